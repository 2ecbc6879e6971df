package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.Attribute;

/** attribute(name) of a number attribute (also imported ones): a direct column read. */
final class AttributeNode extends ScalarNode {

    private final Attribute attribute;

    AttributeNode(Attribute attribute) { this.attribute = attribute; }

    @Override double number(int lid) { return attribute.number(lid); }

    @Override void numbers(Batch batch, double[] out) { attribute.numbers(batch.lids(), batch.count(), out); }

}
