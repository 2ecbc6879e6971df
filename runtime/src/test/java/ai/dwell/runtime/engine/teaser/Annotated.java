package ai.dwell.runtime.engine.teaser;

import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.Span;
import com.yahoo.document.annotation.SpanList;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.StringFieldValue;

/** Builds strings with linguistics TERM annotations, as tests of Vespa's annotation converter do. */
final class Annotated {

    private final StringFieldValue value;
    private final SpanList spans = new SpanList();
    private final SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, spans);

    Annotated(String text) {
        value = new StringFieldValue(text);
        value.setSpanTree(tree);
    }

    /** A term of the span's own text. */
    Annotated term(int from, int length) {
        Span span = new Span(from, length);
        spans.add(span);
        tree.annotate(span, new Annotation(AnnotationTypes.TERM));
        return this;
    }

    /** A term with a value (a stem, a lowercased form). */
    Annotated term(int from, int length, String word) {
        Span span = new Span(from, length);
        spans.add(span);
        tree.annotate(span, new Annotation(AnnotationTypes.TERM, new StringFieldValue(word)));
        return this;
    }

    StringFieldValue value() { return value; }

}
