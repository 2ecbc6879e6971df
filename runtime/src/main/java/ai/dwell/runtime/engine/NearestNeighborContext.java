package ai.dwell.runtime.engine;

import ai.dwell.runtime.match.QueryContext;
import ai.dwell.runtime.rank.QueryProperties;
import ai.dwell.runtime.rank.RankProfile;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;

/**
 * What matching a nearestNeighbor reads: the request's query tensors (with the attribute's dimensions, in any cell type, cast to
 * the attribute's as proton converts them: a float query vector searches a bfloat16 attribute), and properties of the request,
 * else of the rank profile.
 */
final class NearestNeighborContext {

    private NearestNeighborContext() {}

    static QueryContext of(QueryProperties query, RankProfile profile) {
        return new QueryContext() {
            @Override public Optional<Tensor> tensor(String name, TensorType type) { return query.tensor(name, Optional.empty()).map(tensor -> as(tensor, type, name)); }
            @Override public Optional<String> property(String name) { return query.string(name).or(() -> profile.property(name)); }
        };
    }

    private static Tensor as(Tensor tensor, TensorType type, String name) {
        if ( ! tensor.type().dimensions().equals(type.dimensions()))
            throw new IllegalArgumentException("Query tensor '" + name + "' of type " + tensor.type() + " does not have the dimensions of " + type);
        return tensor.type().valueType() == type.valueType() ? tensor : tensor.cellCast(type.valueType());
    }

}
