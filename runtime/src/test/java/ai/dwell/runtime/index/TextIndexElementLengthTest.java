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
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The average element length of an array index field (what elementwise bm25 divides by): the documents' lengths over
 * their elements, empty elements counted, through removes, re-inserts and a flushed state; of a single string field
 * the average field length.
 */
class TextIndexElementLengthTest {

    private static StringFieldValue annotated(String text) {
        StringFieldValue value = new StringFieldValue(text);
        if (text.isEmpty()) return value; // linguistics finds no term: no span tree
        SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, new SpanList());
        int from = 0;
        for (String word : text.split(" ")) {
            tree.annotate(new Span(from, word.length()), new Annotation(AnnotationTypes.TERM));
            from += word.length() + 1;
        }
        value.setSpanTree(tree);
        return value;
    }

    private static Array<StringFieldValue> array(String... elements) {
        Array<StringFieldValue> array = new Array<>(DataType.getArray(DataType.STRING));
        for (String element : elements) array.add(annotated(element));
        return array;
    }

    @Test
    void lengthOverElementsWithEmptyOnesCounted() throws IOException {
        TextIndex index = new TextIndex("chunks", false, true);
        index.insert(1, array("a b a", "c", "b d")); // 6 terms in 3 elements
        index.insert(2, array("", "a a b b c"));     // 5 terms in 2 elements, the first empty
        index.insert(3, array("c d", ""));           // 2 terms in 2 elements, the last empty
        assertEquals(13.0 / 7, index.averageElementLength(), 1e-15);
        assertEquals(13.0 / 3, index.averageFieldLength(), 1e-15);

        index.remove(3);
        assertEquals(11.0 / 5, index.averageElementLength(), 1e-15);
        index.insert(1, array("a")); // replaces d1: 1 term in 1 element
        assertEquals(6.0 / 3, index.averageElementLength(), 1e-15);

        TextIndex.Elements elements = new TextIndex.Elements();
        index.elementsOf(2, elements);
        assertEquals(2, elements.count());
        assertEquals(0, elements.length(0));
        assertEquals(5, elements.length(1));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StateOutput out = new StateOutput(Channels.newChannel(bytes));
        index.writeState(out, 10);
        out.flush();
        TextIndex restored = new TextIndex("chunks", false, true);
        byte[] state = bytes.toByteArray();
        restored.readState(new StateInput(Channels.newChannel(new ByteArrayInputStream(state)), state.length), 10);
        assertEquals(6.0 / 3, restored.averageElementLength(), 1e-15);
        restored.remove(1);
        assertEquals(5.0 / 2, restored.averageElementLength(), 1e-15);
    }

    @Test
    void aSingleStringIsOneElement() {
        TextIndex index = new TextIndex("title");
        index.insert(1, annotated("a b c"));
        index.insert(2, annotated("a"));
        assertEquals(2.0, index.averageElementLength(), 1e-15);
    }

}
