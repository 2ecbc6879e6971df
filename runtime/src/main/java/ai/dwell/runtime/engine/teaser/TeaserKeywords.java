package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.UnsupportedFeatureException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keywords juniper's query for one field holds (searchsummary's JuniperQueryAdapter and juniper's
 * QueryVisitor): the words, exact strings, numbers and prefixes of the query and of the request's highlight terms
 * whose index is one of the field's views (the field and the fieldsets holding it; "" where "default" is one,
 * as QueryTermFilter). Rank and and-not keep only their first child (juniper's X_ONLY_1, applied by its
 * SimplifyStack). Items juniper ignores (in, weightedSet, dotProduct, wand, sameElement, fuzzy, regexp,
 * nearestNeighbor, true, false) give none. A numeric range or floating point term on a view is refused, as its text
 * is not kept here; an integer gives its digits (a negative one without its sign, as SplitFloat).
 */
final class TeaserKeywords {

    /**
     * The keywords of the field's query; whether it has a phrase (juniper then marks only the occurrences in
     * complete matches); whether the query flags a term on one of its views as not to be highlighted or as a special
     * token (which juniper leaves out, or tokenizes by its special token registry).
     */
    record FieldQuery(List<Keyword> keywords, boolean phrase, boolean flagged, JuniperQuery tree, int highlightViews) {

        /** The keywords as juniper's or of them, each of weight 100, without highlight terms. */
        FieldQuery(List<Keyword> keywords, boolean phrase, boolean flagged) {
            this(keywords, phrase, flagged, orOf(keywords), 0);
        }

        private static JuniperQuery orOf(List<Keyword> keywords) {
            List<QueryItem> terms = keywords.stream().map(k -> k.prefix() ? (QueryItem) new QueryItem.Prefix("f", k.text(), 100, true)
                                                                          : new QueryItem.Term("f", k.text(), QueryItem.TermType.WORD, 100, true)).toList();
            return terms.isEmpty() ? null : JuniperQuery.of(new QueryItem.Or(terms), index -> true);
        }

    }

    private final Set<String> views;
    private final List<Keyword> keywords = new ArrayList<>();
    private boolean phrase = false;

    private TeaserKeywords(Set<String> views) {
        this.views = views;
    }

    /**
     * The keywords for the field with these views, from the query and the highlight terms (index to terms), given the
     * indexes of the query's terms flagged not to be highlighted or as special tokens.
     */
    static FieldQuery of(QueryItem root, Map<String, List<String>> highlightTerms, Set<String> flaggedIndexes, Set<String> views) {
        TeaserKeywords collector = new TeaserKeywords(views);
        if (root != null) collector.visit(root);
        Map<String, List<List<String>>> highlightBlocks = new java.util.LinkedHashMap<>();
        highlightTerms.forEach((index, values) -> {
            if ( ! collector.useful(index)) return;
            List<List<String>> blocks = blocks(index, values);
            highlightBlocks.put(index, blocks);
            for (List<String> block : blocks) {
                if (block.size() > 1) collector.phrase = true;
                block.forEach(word -> collector.add(word, false));
            }
        });
        boolean flagged = flaggedIndexes.stream().anyMatch(collector::useful);
        return new FieldQuery(List.copyOf(collector.keywords), collector.phrase, flagged,
                              JuniperQuery.of(root, collector::useful, highlightBlocks), highlightBlocks.size());
    }

    /**
     * The blocks of one index's highlight terms, as the container's Highlight.prepare writes them and searchsummary's
     * JuniperDFWTermVisitor reads them: their count, then each a word, or a phrase: a quote, its length, its words, a
     * quote. A phrase of one word is that word (juniper's SimplifyStack).
     */
    static List<List<String>> blocks(String index, List<String> values) {
        try {
            List<List<String>> blocks = new ArrayList<>();
            int at = 0;
            int count = Integer.parseInt(values.get(at++));
            for (int i = 0; i < count; i++) {
                String value = values.get(at++);
                if ( ! value.startsWith("\"")) {
                    blocks.add(value.isEmpty() ? List.of() : List.of(value));
                    continue;
                }
                at++; // the phrase's length: juniper's visitor reads its words up to the closing quote
                List<String> words = new ArrayList<>();
                for (String word = values.get(at++); ! word.startsWith("\""); word = values.get(at++))
                    if ( ! word.isEmpty()) words.add(word);
                blocks.add(words);
            }
            return blocks;
        }
        catch (RuntimeException e) {
            throw new UnsupportedFeatureException("summary: dynamic with the highlight terms " + values + " of '" + index +
                                                  "', which are not as the container writes them, is not supported by this content engine");
        }
    }

    private boolean useful(String index) {
        return views.contains(index) || (index.isEmpty() && views.contains("default"));
    }

    private void visit(QueryItem item) {
        if (item instanceof QueryItem.And and) and.children().forEach(this::visit);
        else if (item instanceof QueryItem.Or or) or.children().forEach(this::visit);
        else if (item instanceof QueryItem.WeakAnd weakAnd) weakAnd.children().forEach(this::visit);
        else if (item instanceof QueryItem.Rank rank) { if ( ! rank.children().isEmpty()) visit(rank.children().get(0)); }
        else if (item instanceof QueryItem.AndNot andNot) { if ( ! andNot.children().isEmpty()) visit(andNot.children().get(0)); }
        else if (item instanceof QueryItem.Term term) {
            if ( ! useful(term.index())) return;
            if (term.type() == QueryItem.TermType.FLOATING_POINT) // the text juniper gets is the engine's rendering of the double, not kept here
                throw new UnsupportedFeatureException("summary: dynamic with a floating point term on '" + term.index() + "' is not supported by this content engine");
            if (term.type() == QueryItem.TermType.INTEGER) numberParts(term.word());
            else add(term.word(), false);
        }
        else if (item instanceof QueryItem.Prefix prefix) { if (useful(prefix.index())) add(prefix.prefix(), true); }
        else if (item instanceof QueryItem.Phrase phraseItem) {
            if ( ! useful(phraseItem.index())) return;
            phrase = true;
            phraseItem.words().forEach(word -> add(word, false));
        }
        else if (item instanceof QueryItem.Range range) {
            if (useful(range.index()))
                throw new UnsupportedFeatureException("summary: dynamic with a numeric range on '" + range.index() + "' is not supported by this content engine");
        }
        else if (item instanceof QueryItem.Unsupported unsupported) throw new UnsupportedFeatureException(unsupported.message());
        // other items juniper ignores
    }

    /** A number's parts (searchlib's SplitFloat: the runs of ASCII letters and digits; several make a phrase). */
    private void numberParts(String number) {
        List<String> parts = java.util.Arrays.stream(number.split("[^A-Za-z0-9]+")).filter(part -> ! part.isEmpty()).toList();
        if (parts.size() > 1) phrase = true;
        parts.forEach(part -> add(part, false));
    }

    private void add(String word, boolean prefix) {
        if ( ! word.isEmpty()) keywords.add(new Keyword(word, prefix));
    }

}
