package ai.dwell.runtime.index;

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
    };

    /** The distance between two vectors of the same length, as Vespa's distance(field, name) reports it. */
    public abstract double distance(float[] a, float[] b);

    /** Higher for closer vectors, ordered as the distance orders them (for the HNSW graph). */
    public abstract float similarity(float[] a, float[] b);

    /** Vespa's closeness(field, name) for a distance. */
    public double closeness(double distance) { return 1.0 / (1.0 + distance); }

    /** The metric of an attribute, or an error naming the metric this engine does not support. */
    public static DistanceMetric of(AttributesConfig.Attribute config) {
        return switch (config.distancemetric()) {
            case EUCLIDEAN -> EUCLIDEAN;
            case ANGULAR -> ANGULAR;
            case PRENORMALIZED_ANGULAR, INNERPRODUCT -> PRENORMALIZED_ANGULAR; // innerproduct: the deprecated name of prenormalized-angular, as proton maps it
            case DOTPRODUCT -> DOTPRODUCT;
            default -> throw new IllegalArgumentException("Attribute '" + config.name() + "': distance-metric " +
                                                          config.distancemetric().name().toLowerCase(java.util.Locale.ROOT) +
                                                          " is not supported by this content engine");
        };
    }

    static float dot(float[] a, float[] b) { return VectorMath.dot(a, b); }

    static float squaredDistance(float[] a, float[] b) { return VectorMath.squaredDistance(a, b); }

    static double cosine(float[] a, float[] b) {
        double norms = Math.sqrt((double) dot(a, a) * dot(b, b));
        if (norms == 0) return 0;
        return Math.max(-1.0, Math.min(1.0, dot(a, b) / norms));
    }

}
