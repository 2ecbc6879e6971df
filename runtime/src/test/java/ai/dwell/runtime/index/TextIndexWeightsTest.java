package ai.dwell.runtime.index;

import ai.dwell.runtime.format.StateInput;
import ai.dwell.runtime.format.StateOutput;
import com.yahoo.document.DataType;
import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.Span;
import com.yahoo.document.annotation.SpanList;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A weighted set index field keeps each term's weight in each document (the weight of the first element the term is
 * in) and each element's weight, through removes, re-inserts and a flushed state; an array or single string field gives
 * a term weight 1.
 */
class TextIndexWeightsTest {

    /** A string whose words are annotated as linguistics would annotate them: one TERM per space-separated word. */
    private static StringFieldValue annotated(String text) {
        StringFieldValue value = new StringFieldValue(text);
        SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, new SpanList());
        int from = 0;
        for (String word : text.split(" ")) {
            tree.annotate(new Span(from, word.length()), new Annotation(AnnotationTypes.TERM));
            from += word.length() + 1;
        }
        value.setSpanTree(tree);
        return value;
    }

    private static WeightedSet<StringFieldValue> weighted(Map<String, Integer> elements) {
        WeightedSet<StringFieldValue> set = new WeightedSet<>(DataType.getWeightedSet(DataType.STRING));
        elements.forEach((element, weight) -> set.put(annotated(element), weight));
        return set;
    }

    /** The weights of a set's elements in its own iteration order, the order its elements are indexed in. */
    private static List<Integer> elementWeights(WeightedSet<StringFieldValue> set) {
        return set.keySet().stream().map(set::get).toList();
    }

    @Test
    void aTermHasTheWeightOfTheFirstElementItIsIn() {
        TextIndex index = new TextIndex("tags", true);
        Map<String, Integer> elements = new LinkedHashMap<>();
        elements.put("a", 7);
        elements.put("b c", -3);
        elements.put("c", 12);
        WeightedSet<StringFieldValue> set = weighted(elements);
        index.insert(1, set);
        assertTrue(index.isWeighted());
        assertEquals(7, index.postings("a").weight(1));
        assertEquals(-3, index.postings("b").weight(1));
        assertEquals(-3, index.postings("c").weight(1), "c's first element is 'b c'");
        assertEquals(elementWeights(set), List.of(index.elementWeight(1, 0), index.elementWeight(1, 1), index.elementWeight(1, 2)),
                     "each element's weight, in element order (the set's own order, as its positions are)");
        assertEquals(0, index.postings("a").weight(2), "a document without the term");
        index.remove(1);
        assertEquals(null, index.postings("a"));
        index.insert(1, weighted(Map.of("a", 2)));
        assertEquals(2, index.postings("a").weight(1));
    }

    @Test
    void anUnweightedFieldGivesEachTermItHoldsWeightOne() {
        TextIndex index = new TextIndex("notes", false);
        Array<StringFieldValue> array = new Array<>(DataType.getArray(DataType.STRING));
        array.add(annotated("x y"));
        index.insert(3, array);
        assertFalse(index.isWeighted());
        assertEquals(1, index.postings("x").weight(3));
        assertEquals(0, index.postings("x").weight(4));
    }

    @Test
    void theWeightsSurviveAFlushedState() throws IOException {
        Random random = new Random(4);
        TextIndex index = new TextIndex("tags", true);
        Map<Integer, Map<String, Integer>> fed = new LinkedHashMap<>();
        Map<Integer, List<Integer>> fedElementWeights = new LinkedHashMap<>();
        for (int lid = 1; lid < 200; lid++) {
            Map<String, Integer> elements = new LinkedHashMap<>();
            for (int e = random.nextInt(4); e > 0; e--) elements.put("t" + random.nextInt(20), random.nextInt(1000) - 500);
            fed.put(lid, elements);
            WeightedSet<StringFieldValue> set = weighted(elements);
            fedElementWeights.put(lid, elementWeights(set));
            index.insert(lid, set);
        }
        for (int lid = 1; lid < 200; lid += 7) { index.remove(lid); fed.remove(lid); fedElementWeights.remove(lid); }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StateOutput out = new StateOutput(Channels.newChannel(bytes));
        index.writeState(out, 200);
        out.flush();
        TextIndex restored = new TextIndex("tags", true);
        byte[] state = bytes.toByteArray();
        restored.readState(new StateInput(Channels.newChannel(new ByteArrayInputStream(state)), state.length), 200);
        for (int term = 0; term < 20; term++) {
            for (int lid = 1; lid < 200; lid++) {
                Integer expected = fed.getOrDefault(lid, Map.of()).get("t" + term);
                TextIndex.Postings postings = restored.postings("t" + term);
                assertEquals(expected == null ? 0 : expected, postings == null ? 0 : postings.weight(lid), "t" + term + " in " + lid);
            }
        }
        for (var document : fedElementWeights.entrySet()) {
            List<Integer> weights = document.getValue();
            for (int element = 0; element < weights.size(); element++)
                assertEquals(weights.get(element), restored.elementWeight(document.getKey(), element), "element " + element + " of " + document.getKey());
        }
    }

}
