package ai.dwell.runtime.rank;

import java.util.function.IntToDoubleFunction;

/** A feature of a multi-value attribute, per document: attribute(name).count, attribute(name,key).weight or .contains. */
final class MultiValueFeatureNode extends ScalarNode {

    private final IntToDoubleFunction value;

    MultiValueFeatureNode(IntToDoubleFunction value) { this.value = value; }

    @Override double number(int lid) { return value.applyAsDouble(lid); }

}
