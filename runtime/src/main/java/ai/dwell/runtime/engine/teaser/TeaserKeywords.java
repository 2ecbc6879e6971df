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
 * as QueryTermFilter). Rank and and-not keep only their first child's keywords (juniper's X_ONLY_1; when that
 * child has none here, all children's, which can only widen the set). Items juniper ignores (in, weightedSet,
 * dotProduct, wand, sameElement, fuzzy, regexp, nearestNeighbor, true, false) give none. A numeric range on a
 * view is refused, as its text is not kept here.
 */
final class TeaserKeywords {

    private final Set<String> views;
    private final List<Keyword> keywords = new ArrayList<>();

    private TeaserKeywords(Set<String> views) {
        this.views = views;
    }

    /** The keywords for the field with these views, from the query and the highlight terms (index to terms). */
    static List<Keyword> of(QueryItem root, Map<String, List<String>> highlightTerms, Set<String> views) {
        TeaserKeywords collector = new TeaserKeywords(views);
        if (root != null) collector.visit(root);
        highlightTerms.forEach((index, terms) -> {
            if (collector.useful(index)) terms.forEach(term -> collector.add(term, false));
        });
        return List.copyOf(collector.keywords);
    }

    private boolean useful(String index) {
        return views.contains(index) || (index.isEmpty() && views.contains("default"));
    }

    private void visit(QueryItem item) {
        if (item instanceof QueryItem.And and) and.children().forEach(this::visit);
        else if (item instanceof QueryItem.Or or) or.children().forEach(this::visit);
        else if (item instanceof QueryItem.WeakAnd weakAnd) weakAnd.children().forEach(this::visit);
        else if (item instanceof QueryItem.Rank rank) firstChild(rank.children());
        else if (item instanceof QueryItem.AndNot andNot) firstChild(andNot.children());
        else if (item instanceof QueryItem.Term term) {
            if ( ! useful(term.index())) return;
            if (term.type() == QueryItem.TermType.INTEGER || term.type() == QueryItem.TermType.FLOATING_POINT) numberParts(term.word());
            else add(term.word(), false);
        }
        else if (item instanceof QueryItem.Prefix prefix) { if (useful(prefix.index())) add(prefix.prefix(), true); }
        else if (item instanceof QueryItem.Phrase phrase) { if (useful(phrase.index())) phrase.words().forEach(word -> add(word, false)); }
        else if (item instanceof QueryItem.Range range) {
            if (useful(range.index()))
                throw new UnsupportedFeatureException("summary: dynamic with a numeric range on '" + range.index() + "' is not supported by this content engine");
        }
        else if (item instanceof QueryItem.Unsupported unsupported) throw new UnsupportedFeatureException(unsupported.message());
        // other items juniper ignores
    }

    private void firstChild(List<QueryItem> children) {
        if (children.isEmpty()) return;
        int before = keywords.size();
        visit(children.get(0));
        if (keywords.size() == before) children.subList(1, children.size()).forEach(this::visit);
    }

    /** A number's parts (juniper splits a float into a phrase of its digit groups): every run of letters and digits. */
    private void numberParts(String number) {
        for (String part : number.split("[^\\p{L}\\p{N}]+")) add(part, false);
    }

    private void add(String word, boolean prefix) {
        if ( ! word.isEmpty()) keywords.add(new Keyword(word, prefix));
    }

}
