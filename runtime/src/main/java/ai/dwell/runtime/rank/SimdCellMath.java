package ai.dwell.runtime.rank;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/** {@link CellMath} with the JDK's vector API (loaded only when the JVM has jdk.incubator.vector). */
final class SimdCellMath implements CellMath.Operations {

    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    /** Floats, as many lanes as SPECIES has. */
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(SPECIES.vectorBitSize() / 2));

    @Override
    public void addScaled(double[] out, int to, double[] x, int from, double w, int n) {
        int k = 0, bound = SPECIES.loopBound(n);
        for (; k < bound; k += SPECIES.length())
            DoubleVector.fromArray(SPECIES, x, from + k).mul(w).add(DoubleVector.fromArray(SPECIES, out, to + k)).intoArray(out, to + k);
        for (; k < n; k++) out[to + k] += x[from + k] * w;
    }

    @Override
    public void roundToFloat(double[] values, int n) {
        int k = 0, bound = SPECIES.loopBound(n);
        for (; k < bound; k += SPECIES.length())
            ((DoubleVector) DoubleVector.fromArray(SPECIES, values, k).convertShape(VectorOperators.D2F, FLOATS, 0)
                                        .convertShape(VectorOperators.F2D, SPECIES, 0)).intoArray(values, k);
        for (; k < n; k++) values[k] = (float) values[k];
    }

    @Override
    public void eluInPlace(double[] values, int n) {
        int k = 0, bound = SPECIES.loopBound(n);
        for (; k < bound; k += SPECIES.length())
            elu(DoubleVector.fromArray(SPECIES, values, k)).intoArray(values, k);
        if (k < n) { // the last cells through the same lanes, so that no cell's value depends on where it is
            VectorMask<Double> tail = SPECIES.indexInRange(k, n);
            elu(DoubleVector.fromArray(SPECIES, values, k, tail)).intoArray(values, k, tail);
        }
    }

    private static DoubleVector elu(DoubleVector x) {
        return x.blend(x.lanewise(VectorOperators.EXP).sub(1.0), x.compare(VectorOperators.LT, 0.0));
    }

}
