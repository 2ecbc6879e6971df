package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;

import java.util.BitSet;

/**
 * An attribute of a global document type read through a reference attribute (ImportedFieldsConfig):
 * the value of the referenced document, or the target attribute's undefined value when there is none.
 */
public final class ImportedAttribute extends Attribute {

    private final ReferenceAttribute reference;
    private final Attribute target;
    private final double undefined;
    /** Scratch for the target local ids of a block, per ranking thread. */
    private final ThreadLocal<int[]> targetLids = ThreadLocal.withInitial(() -> new int[0]);

    public ImportedAttribute(String name, ReferenceAttribute reference, Attribute target) {
        super(name);
        this.reference = reference;
        this.target = target;
        this.undefined = target instanceof NumericAttribute numeric ? numeric.kind().undefined
                         : target instanceof StringAttribute ? StringAttribute.hash("") : Double.NaN;
    }

    public Attribute target() { return target; }

    /** The local id in the target of the document this one references, or -1 when it references none (or one not there). */
    public int targetLid(int lid) { return reference.targetLid(lid); }

    @Override
    public void set(int lid, FieldValue value) {
        throw new IllegalArgumentException("Imported attribute '" + name() + "' can not be written");
    }

    @Override
    public void clear(int lid) { }

    @Override
    public double number(int lid) {
        int targetLid = reference.targetLid(lid);
        return targetLid < 0 ? undefined : target.number(targetLid);
    }

    /** Resolves the block's references in one pass, then reads the target's column for all of them. */
    @Override
    public void numbers(int[] lids, int count, double[] out) {
        int[] targets = targetLids.get();
        if (targets.length < count) targetLids.set(targets = new int[Math.max(count, 2 * targets.length)]);
        int resolved = 0;
        for (int k = 0; k < count; k++) {
            int targetLid = reference.targetLid(lids[k]);
            targets[k] = targetLid;
            if (targetLid >= 0) resolved++;
        }
        if (resolved == count) {
            target.numbers(targets, count, out);
            return;
        }
        for (int k = 0; k < count; k++) out[k] = targets[k] < 0 ? undefined : target.number(targets[k]);
    }

    @Override
    public long longValue(int lid) {
        int targetLid = reference.targetLid(lid);
        return targetLid < 0 ? (long) undefined : target.longValue(targetLid);
    }

    @Override
    public Object value(int lid) {
        int targetLid = reference.targetLid(lid);
        return targetLid < 0 ? null : target.value(targetLid);
    }

    @Override
    public boolean isNumeric() { return target.isNumeric(); }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        BitSet targets = new BitSet();
        if ( ! target.matchTerm(term, null, targets)) return false;
        collect(targets, candidates, result);
        return true;
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        BitSet targets = new BitSet();
        target.matchRange(low, lowInclusive, high, highInclusive, null, targets);
        collect(targets, candidates, result);
    }

    private void collect(BitSet targets, BitSet candidates, BitSet result) {
        if (candidates == null) throw new IllegalStateException("Matching imported attribute '" + name() + "' needs the candidate documents");
        for (int lid = candidates.nextSetBit(0); lid >= 0; lid = candidates.nextSetBit(lid + 1)) {
            int targetLid = reference.targetLid(lid);
            if (targetLid >= 0 && targets.get(targetLid)) result.set(lid);
        }
    }

}
