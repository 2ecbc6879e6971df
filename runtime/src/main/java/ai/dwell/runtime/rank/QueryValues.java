package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.evaluation.DoubleValue;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;

/**
 * The values of query(name) and now for a query, as proton resolves them: the request's feature
 * overrides and rank properties ("query(name)" or "name", as the container sends it), else the profile's default (a property "query(name)"),
 * else an empty tensor of the declared type (zeros when dense), else 0 for an undeclared name.
 */
final class QueryValues {

    private QueryValues() {}

    static Value of(String name, RankProfile profile, QueryProperties query) {
        String key = "query(" + name + ")";
        Optional<TensorType> type = profile.queryType(name);
        // The container sends query(name) as the rank property "name"; other clients send "query(name)"
        Optional<Tensor> tensor = query.tensor(key, type).or(() -> query.tensor(name, type));
        if (tensor.isPresent()) return value(tensor.get());
        Optional<String> string = query.string(key).or(() -> query.string(name)).or(() -> profile.property(key));
        if (string.isPresent()) return parse(string.get(), type);
        return type.isPresent() && type.get().rank() > 0 ? new TensorValue(Tensor.Builder.of(type.get()).build()) : new DoubleValue(0);
    }

    /** vespa.now from the request, else the profile, else the current time, in seconds. */
    static double now(RankProfile profile, QueryProperties query) {
        return query.string("vespa.now").or(() -> profile.property("vespa.now")).map(Double::parseDouble)
                    .orElse((double) (System.currentTimeMillis() / 1000));
    }

    private static Value parse(String value, Optional<TensorType> type) {
        if (type.isPresent() && type.get().rank() > 0) return new TensorValue(Tensor.from(type.get(), value));
        try {
            return new DoubleValue(Double.parseDouble(value));
        }
        catch (NumberFormatException e) {
            return value.trim().startsWith("tensor") || value.trim().startsWith("{") ? new TensorValue(Tensor.from(value)) : new DoubleValue(0);
        }
    }

    private static Value value(Tensor tensor) {
        return tensor.type().rank() == 0 ? new DoubleValue(tensor.asDouble()) : new TensorValue(tensor);
    }

}
