package ai.dwell.runtime.engine;

import com.yahoo.component.provider.ComponentRegistry;
import com.yahoo.document.DataType;
import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.Span;
import com.yahoo.document.annotation.SpanList;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.language.Language;
import com.yahoo.language.lucene.LuceneAnalysisConfig;
import com.yahoo.language.lucene.LuceneLinguistics;
import com.yahoo.language.process.StemMode;
import com.yahoo.slime.JsonFormat;
import com.yahoo.slime.Slime;
import com.yahoo.vespa.indexinglanguage.linguistics.AnnotatorConfig;
import com.yahoo.vespa.indexinglanguage.linguistics.LinguisticsAnnotator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The tokens summary of strings annotated by Vespa's indexing annotator with a LuceneLinguistics of a known analyzer
 * (whitespace tokens, lowercased, ASCII-folded), and of span trees made by hand, against tokens computed by hand.
 */
public class TokensSummaryTest {

    private static final LuceneLinguistics FOLDING = new LuceneLinguistics(
            new LuceneAnalysisConfig.Builder()
                    .analysis("profile=folded;language=en", new LuceneAnalysisConfig.Analysis.Builder()
                            .tokenizer(new LuceneAnalysisConfig.Analysis.Tokenizer.Builder().name("whitespace"))
                            .tokenFilters(new LuceneAnalysisConfig.Analysis.TokenFilters.Builder().name("lowercase"))
                            .tokenFilters(new LuceneAnalysisConfig.Analysis.TokenFilters.Builder().name("asciiFolding")))
                    .build(),
            new ComponentRegistry<>());

    @Test
    void aStringsTokensAreItsAnnotatedTermsInTextOrder() {
        // whitespace: "Crème", "BRÛLÉE", "à", "Œuf"; lowercased: "crème", "brûlée", "à", "œuf"; folded:
        assertEquals("{\"f\":[\"creme\",\"brulee\",\"a\",\"oeuf\"]}", tokensOf(annotated("Crème BRÛLÉE à Œuf")));
    }

    @Test
    void anArrayHasOneArrayOfTokensPerElementAndAWeightedSetTheSameWithoutWeights() {
        Array<StringFieldValue> array = new Array<>(DataType.getArray(DataType.STRING));
        array.add(annotated("Naïve Art"));
        array.add(annotated("Zoë"));
        assertEquals("{\"f\":[[\"naive\",\"art\"],[\"zoe\"]]}", tokensOf(array));

        WeightedSet<StringFieldValue> set = new WeightedSet<>(DataType.getWeightedSet(DataType.STRING));
        set.put(annotated("Ça Va"), 7);
        assertEquals("{\"f\":[[\"ca\",\"va\"]]}", tokensOf(set));
    }

    @Test
    void termsOfOneSpanAreAnArrayOrderedByTheirBytesAndSpansAreOrderedByStartThenLength() {
        String text = "running fast";
        StringFieldValue value = new StringFieldValue(text);
        SpanList root = new SpanList();
        SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, root);
        Span fast = new Span(8, 4), running = new Span(0, 7), runningFast = new Span(0, 12);
        root.add(fast).add(runningFast).add(running);
        tree.annotate(fast, new Annotation(AnnotationTypes.TERM));                                       // the span's text
        tree.annotate(runningFast, new Annotation(AnnotationTypes.TERM, new StringFieldValue("running fast")));
        tree.annotate(running, new Annotation(AnnotationTypes.TERM, new StringFieldValue("run")));
        tree.annotate(running, new Annotation(AnnotationTypes.TERM, new StringFieldValue("running")));
        tree.annotate(running, new Annotation(AnnotationTypes.TERM, new StringFieldValue("Run")));        // 'R' < 'r'
        tree.annotate(running, new Annotation(AnnotationTypes.TERM, new StringFieldValue("")));           // empty: left out
        tree.annotate(running, new Annotation(AnnotationTypes.TOKEN_TYPE, new IntegerFieldValue(1)));     // not a term
        value.setSpanTree(tree);
        // (0,7) before (0,12) before (8,4)
        assertEquals("{\"f\":[[\"Run\",\"run\",\"running\"],\"running fast\",\"fast\"]}", tokensOf(value));
    }

    @Test
    void aStringWithoutAnnotationsHasNoTokensAndANonStringFieldIsRefused() {
        assertEquals("{\"f\":[]}", tokensOf(new StringFieldValue("not indexed")));
        assertEquals("{}", tokensOf(null));
        assertThrows(IllegalArgumentException.class, () -> tokensOf(new IntegerFieldValue(3)));
    }

    @Test
    void aWordOverProtonsLongestWordIsLeftOut() {
        String word = "a".repeat(TokensSummary.MAX_WORD_BYTES + 1);
        StringFieldValue value = new StringFieldValue(word + " b");
        SpanList root = new SpanList();
        SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, root);
        Span whole = new Span(0, word.length()), b = new Span(word.length() + 1, 1);
        root.add(whole).add(b);
        tree.annotate(whole, new Annotation(AnnotationTypes.TERM));
        tree.annotate(b, new Annotation(AnnotationTypes.TERM));
        value.setSpanTree(tree);
        assertEquals("{\"f\":[\"b\"]}", tokensOf(value));
    }

    private static StringFieldValue annotated(String text) {
        StringFieldValue value = new StringFieldValue(text);
        AnnotatorConfig config = new AnnotatorConfig().setLanguage(Language.ENGLISH).setStemMode(StemMode.NONE)
                                                      .setRemoveAccents(false).setProfile("folded");
        new LinguisticsAnnotator(FOLDING, config).annotate(value, null, false);
        return value;
    }

    private static String tokensOf(com.yahoo.document.datatypes.FieldValue value) {
        Slime slime = new Slime();
        TokensSummary.write(slime.setObject(), "f", value);
        return new String(JsonFormat.toJsonBytes(slime), StandardCharsets.UTF_8);
    }

}
