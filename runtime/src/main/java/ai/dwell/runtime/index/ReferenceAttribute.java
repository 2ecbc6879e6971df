package ai.dwell.runtime.index;

import com.yahoo.document.DocumentId;
import com.yahoo.document.GlobalId;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reference to a document of a global type. Each local id holds the target's global id and the
 * target's local id in the target type's index on this node (-1 when the target is absent); the
 * target index tells this attribute when targets come and go, so reads are one array access.
 * The referrers of each target are a {@link PostingList}: a few words per referring document.
 */
public final class ReferenceAttribute extends Attribute {

    private final String targetType;
    private GlobalId[] targets = new GlobalId[0];
    private int[] targetLids = new int[0];
    private final Map<GlobalId, PostingList> referrers = new HashMap<>();
    private LocalIdLookup targetIndex = gid -> -1;

    /** Finds the local id of a global id in the target index, or -1. */
    @FunctionalInterface
    public interface LocalIdLookup { int localId(GlobalId gid); }

    public ReferenceAttribute(String name, String targetType) {
        super(name);
        this.targetType = targetType;
    }

    public String targetType() { return targetType; }

    /** Connects this to the index of the target type, and resolves all references against it. */
    public void resolveAgainst(LocalIdLookup targetIndex) {
        this.targetIndex = targetIndex;
        for (var entry : referrers.entrySet()) targetChanged(entry.getKey(), targetIndex.localId(entry.getKey()));
    }

    /** Called when a target document is put (its local id) or removed (-1). */
    public void targetChanged(GlobalId target, int targetLid) {
        PostingList lids = referrers.get(target);
        if (lids == null) return;
        for (int i = 0; i < lids.size(); i++) targetLids[lids.lid(i)] = targetLid;
    }

    /** The target's local id, or -1 if there is no reference or no such target document on this node. */
    public int targetLid(int lid) { return lid < targetLids.length ? targetLids[lid] : -1; }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        if ( ! (value instanceof ReferenceFieldValue reference))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes references, got " + value.getDataType().getName());
        if (reference.getDocumentId().isEmpty()) return;
        ensure(lid);
        GlobalId gid = new GlobalId(reference.getDocumentId().get().getGlobalId());
        targets[lid] = gid;
        referrers.computeIfAbsent(gid, k -> new PostingList()).add(lid);
        targetLids[lid] = targetIndex.localId(gid);
    }

    @Override
    public void clear(int lid) {
        if (lid >= targets.length || targets[lid] == null) return;
        PostingList lids = referrers.get(targets[lid]);
        lids.remove(lid);
        if (lids.isEmpty()) referrers.remove(targets[lid]);
        targets[lid] = null;
        targetLids[lid] = -1;
    }

    @Override
    public double number(int lid) { return Double.NaN; }

    @Override
    public Object value(int lid) { return lid < targets.length ? targets[lid] : null; }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        GlobalId gid;
        try { gid = new GlobalId(new DocumentId(term).getGlobalId()); }
        catch (IllegalArgumentException e) { return false; }
        PostingList lids = referrers.get(gid);
        if (lids == null) return true;
        if (candidates == null) lids.orInto(result);
        else lids.orInto(result, candidates);
        return true;
    }

    @Override
    public Optional<List<PostingList>> termPostings(String term) {
        GlobalId gid;
        try { gid = new GlobalId(new DocumentId(term).getGlobalId()); }
        catch (IllegalArgumentException e) { return Optional.empty(); }
        PostingList lids = referrers.get(gid);
        return Optional.of(lids == null ? List.of() : List.of(lids));
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        throw new IllegalArgumentException("Range on reference attribute '" + name() + "' is not supported");
    }

    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        int count = 0;
        int length = Math.min(lidLimit, targets.length);
        for (int lid = 0; lid < length; lid++) if (targets[lid] != null) count++;
        out.writeInt(count);
        for (int lid = 0; lid < length; lid++) {
            if (targets[lid] == null) continue;
            out.writeInt(lid);
            out.writeBytes(targets[lid].getRawId());
        }
    }

    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        int count = in.readLength(16);
        for (int i = 0; i < count; i++) {
            int lid = in.readInt();
            GlobalId gid = new GlobalId(in.readBytes());
            if (lid < 0 || lid >= lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': local id out of range");
            ensure(lid);
            targets[lid] = gid;
            referrers.computeIfAbsent(gid, k -> new PostingList()).add(lid);
            targetLids[lid] = -1;
        }
    }

    /** Resolves every reference against the target index again (after the target's state was loaded). */
    public void resolve() { resolveAgainst(targetIndex); }

    private void ensure(int lid) {
        if (lid < targets.length) return;
        int size = grow(targets.length, lid);
        targets = Arrays.copyOf(targets, size);
        int old = targetLids.length;
        targetLids = Arrays.copyOf(targetLids, size);
        Arrays.fill(targetLids, old, size, -1);
    }

}
