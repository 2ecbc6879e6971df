package ai.dwell.runtime.index;

import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.AttributesConfig;

/**
 * The distance metrics of Vespa's tensor attributes (attribute { distance-metric }), with Vespa's
 * definitions of distance and closeness, and a similarity for graph search that orders vectors as the
 * distance does (higher is closer) but is cheaper where the distance is not (no acos, no sqrt).
 */
public enum DistanceMetric {

    /** sqrt(Σ(a−b)²); closeness 1/(1 + distance). */
    EUCLIDEAN {
        @Override public double distance(float[] a, float[] b) { return Math.sqrt(squaredDistance(a, b)); }
        @Override public float similarity(float[] a, float[] b) { return 1f / (1f + squaredDistance(a, b)); }
    },

    /** The angle between the vectors in radians, acos(a·b / |a||b|); closeness 1/(1 + distance). */
    ANGULAR {
        @Override public double distance(float[] a, float[] b) { return Math.acos(cosine(a, b)); }
        @Override public float similarity(float[] a, float[] b) { return (float) ((1 + cosine(a, b)) / 2); }
    },

    /** For vectors of length 1: 1 − a·b; closeness 1/(1 + distance). */
    PRENORMALIZED_ANGULAR {
        @Override public double distance(float[] a, float[] b) { return Math.max(0, 1.0 - dot(a, b)); }
        @Override public float similarity(float[] a, float[] b) { return (1f + dot(a, b)) / 2f; }
    },

    /** −a·b; closeness a·b. */
    DOTPRODUCT {
        @Override public double distance(float[] a, float[] b) { return -dot(a, b); }
        @Override public double closeness(double distance) { return -distance; }
        @Override public float similarity(float[] a, float[] b) {
            float dot = dot(a, b);
            return dot < 0 ? 1f / (1f - dot) : dot + 1f;
        }
    },

    /**
     * Of int8 cells, which hold packed bits: the number of bits that differ, the popcount of each pair of cells' xor
     * as bytes, summed; closeness 1/(1 + distance).
     */
    HAMMING {
        @Override public double distance(float[] a, float[] b) { return differingBits(a, b); }
        @Override public float similarity(float[] a, float[] b) { return 1f / (1f + differingBits(a, b)); }
    },

    /**
     * Hamming of float, double and bfloat16 cells, as proton defines it for them: the number of cells that differ;
     * closeness 1/(1 + distance). Cells are compared as the floats they are kept as here, so two double cells that
     * differ only past float precision count as equal, where proton would count them.
     */
    HAMMING_CELLS {
        @Override public double distance(float[] a, float[] b) { return differingCells(a, b); }
        @Override public float similarity(float[] a, float[] b) { return 1f / (1f + differingCells(a, b)); }
    },

    /**
     * Of points tensor(x[2]) holding latitude and longitude in degrees: the great-circle distance in kilometers, by the
     * haversine formula on a sphere of the Earth's mean radius (6371.0088 km, as proton); closeness 1/(1 + distance).
     */
    GEODEGREES {
        @Override public double distance(float[] a, float[] b) { return greatCircleKilometers(a, b); }
        @Override public float similarity(float[] a, float[] b) { return (float) (1.0 / (1.0 + greatCircleKilometers(a, b))); }
    };

    /** The Earth's mean radius in kilometers (IUGG), the sphere geodegrees measures on. */
    static final double EARTH_MEAN_RADIUS_KM = 6371.0088;

    /** The distance between two vectors of the same length, as Vespa's distance(field, name) reports it. */
    public abstract double distance(float[] a, float[] b);

    /** Higher for closer vectors, ordered as the distance orders them (for the HNSW graph). */
    public abstract float similarity(float[] a, float[] b);

    /** Vespa's closeness(field, name) for a distance. */
    public double closeness(double distance) { return 1.0 / (1.0 + distance); }

    /**
     * The metric of an attribute, or an error naming the metric this engine does not support. Hamming depends on the
     * cell type, as proton's: bits of int8 cells, whole cells of the others; geodegrees takes two cells.
     */
    public static DistanceMetric of(AttributesConfig.Attribute config) {
        return switch (config.distancemetric()) {
            case EUCLIDEAN -> EUCLIDEAN;
            case ANGULAR -> ANGULAR;
            case PRENORMALIZED_ANGULAR, INNERPRODUCT -> PRENORMALIZED_ANGULAR; // innerproduct: the deprecated name of prenormalized-angular, as proton maps it
            case DOTPRODUCT -> DOTPRODUCT;
            case HAMMING -> TensorType.fromSpec(config.tensortype()).valueType() == TensorType.Value.INT8 ? HAMMING : HAMMING_CELLS;
            case GEODEGREES -> {
                TensorType type = TensorType.fromSpec(config.tensortype());
                if (type.indexedSubtype().dimensions().size() != 1 || type.indexedSubtype().dimensions().get(0).size().orElse(0L) != 2)
                    throw new IllegalArgumentException("Attribute '" + config.name() + "': distance-metric geodegrees takes points of " +
                                                       "latitude and longitude, a tensor with one indexed dimension of size 2, not " + type);
                yield GEODEGREES;
            }
            default -> throw new IllegalArgumentException("Attribute '" + config.name() + "': distance-metric " +
                                                          config.distancemetric().name().toLowerCase(java.util.Locale.ROOT) +
                                                          " is not supported by this content engine");
        };
    }

    static float dot(float[] a, float[] b) { return VectorMath.dot(a, b); }

    static float squaredDistance(float[] a, float[] b) { return VectorMath.squaredDistance(a, b); }

    /** The number of bits that differ between int8 cells (kept as floats holding their values). */
    static int differingBits(float[] a, float[] b) {
        int bits = 0;
        for (int i = 0; i < a.length; i++) bits += Integer.bitCount(((int) a[i] ^ (int) b[i]) & 0xff);
        return bits;
    }

    /** The number of cells that differ. */
    static int differingCells(float[] a, float[] b) {
        int cells = 0;
        for (int i = 0; i < a.length; i++) if (a[i] != b[i]) cells++;
        return cells;
    }

    /** The great-circle distance in kilometers between two points [latitude, longitude] in degrees (haversine). */
    static double greatCircleKilometers(float[] a, float[] b) {
        double latA = Math.toRadians(a[0]), latB = Math.toRadians(b[0]);
        double sinHalfLat = Math.sin((latA - latB) / 2), sinHalfLon = Math.sin(Math.toRadians(a[1] - (double) b[1]) / 2);
        double haversine = sinHalfLat * sinHalfLat + Math.cos(latA) * Math.cos(latB) * sinHalfLon * sinHalfLon;
        return 2 * Math.asin(Math.sqrt(Math.min(1.0, haversine))) * EARTH_MEAN_RADIUS_KM;
    }

    static double cosine(float[] a, float[] b) {
        double norms = Math.sqrt((double) dot(a, a) * dot(b, b));
        if (norms == 0) return 0;
        return Math.max(-1.0, Math.min(1.0, dot(a, b) / norms));
    }

}
