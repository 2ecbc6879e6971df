package ai.dwell.searchers;

import com.yahoo.tensor.Tensor;

import java.util.Map;

/**
 * One immutable version of a rank profile's network weights. A query takes one instance and
 * sends all of its tensors, so it never mixes two versions.
 *
 * @param profile the rank profile these weights are for
 * @param version the model version; 0 stands for the constants shipped in the package
 * @param tensors rank feature name, e.g. "query(W_0)", to weight tensor
 */
public record RankingModel(String profile, long version, Map<String, Tensor> tensors) {

    public static final long PACKAGE_VERSION = 0;

    public RankingModel {
        tensors = Map.copyOf(tensors);
    }

    /** The weights shipped as constants in the application package. */
    public static RankingModel packaged(String profile) {
        return new RankingModel(profile, PACKAGE_VERSION, Map.of());
    }

    public boolean isPackaged() { return version == PACKAGE_VERSION; }

}
