package ai.dwell.runtime.engine;

import ai.dwell.runtime.match.QueryContext;
import ai.dwell.runtime.rank.QueryProperties;
import ai.dwell.runtime.rank.RankProfile;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;

/** What matching a nearestNeighbor reads: the request's query tensors, and properties of the request, else of the rank profile. */
final class NearestNeighborContext {

    private NearestNeighborContext() {}

    static QueryContext of(QueryProperties query, RankProfile profile) {
        return new QueryContext() {
            @Override public Optional<Tensor> tensor(String name, TensorType type) { return query.tensor(name, Optional.of(type)); }
            @Override public Optional<String> property(String name) { return query.string(name).or(() -> profile.property(name)); }
        };
    }

}
