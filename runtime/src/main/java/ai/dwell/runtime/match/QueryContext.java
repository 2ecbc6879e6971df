package ai.dwell.runtime.match;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;

/** What matching reads from the request besides the query tree: query tensors and rank properties. */
public interface QueryContext {

    /** The tensor sent as this rank property (e.g. "query(q)"), decoded with the given type. */
    Optional<Tensor> tensor(String name, TensorType type);

    /** A rank property of the request, else of the rank profile. */
    Optional<String> property(String name);

    /** No tensors, no properties. */
    QueryContext NONE = new QueryContext() {
        @Override public Optional<Tensor> tensor(String name, TensorType type) { return Optional.empty(); }
        @Override public Optional<String> property(String name) { return Optional.empty(); }
    };

}
