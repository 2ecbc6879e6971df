package ai.dwell.runtime.index;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** {@link VectorMath} with the JDK's vector API (loaded only when the JVM has jdk.incubator.vector). */
final class SimdVectorMath implements VectorMath.Operations {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    @Override
    public float dot(float[] a, float[] b) {
        FloatVector sum = FloatVector.zero(SPECIES);
        int i = 0, bound = SPECIES.loopBound(a.length);
        for (; i < bound; i += SPECIES.length())
            sum = FloatVector.fromArray(SPECIES, a, i).fma(FloatVector.fromArray(SPECIES, b, i), sum);
        float result = sum.reduceLanes(VectorOperators.ADD);
        for (; i < a.length; i++) result += a[i] * b[i];
        return result;
    }

    @Override
    public float squaredDistance(float[] a, float[] b) {
        FloatVector sum = FloatVector.zero(SPECIES);
        int i = 0, bound = SPECIES.loopBound(a.length);
        for (; i < bound; i += SPECIES.length()) {
            FloatVector difference = FloatVector.fromArray(SPECIES, a, i).sub(FloatVector.fromArray(SPECIES, b, i));
            sum = difference.fma(difference, sum);
        }
        float result = sum.reduceLanes(VectorOperators.ADD);
        for (; i < a.length; i++) {
            float d = a[i] - b[i];
            result += d * d;
        }
        return result;
    }

}
