package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Juniper's query tree, as queryvisitor.cpp builds it and SimplifyStack simplifies it (expectations from those sources). */
public class JuniperQueryTest {

    private static QueryItem word(String index, String word, int weight) { return new QueryItem.Term(index, word, QueryItem.TermType.WORD, weight, true); }

    private static String dump(JuniperQuery.Expr expr) {
        if (expr instanceof JuniperQuery.Term term) return term.keyword.text() + (term.keyword.prefix() ? "*" : "") + ":" + term.weight;
        JuniperQuery.Node node = (JuniperQuery.Node) expr;
        return node.operator + "#" + node.index + node.children.stream().map(JuniperQueryTest::dump).toList();
    }

    @Test
    void aSingleTermIsTheOnlyChildOfANodeWithoutOperator() { // QueryVisitor::postprocess_query
        JuniperQuery query = JuniperQuery.of(word("f", "foo", 100), index -> true);
        assertEquals("NONE#0[foo:100]", dump(query.root()));
        assertSame(query.root(), query.terms().get(0).parent);
        assertNull(query.root().parent);
    }

    @Test
    void termsOnOtherIndexesAndIgnoredItemsAreLeftOutAndNodesOfOneChildReplacedByIt() { // SimplifyStack
        QueryItem item = new QueryItem.And(List.of(
                new QueryItem.Or(List.of(word("f", "a", 100), word("g", "b", 100))), // or(a) becomes a
                new QueryItem.Rank(List.of(new QueryItem.Or(List.of(word("f", "c", 150), new QueryItem.Prefix("f", "d", 100, true))), word("f", "e", 100))),
                new QueryItem.True(),
                new QueryItem.WeakAnd(List.of(word("g", "x", 100)), 10))); // nothing left: dropped
        JuniperQuery query = JuniperQuery.of(item, "f"::equals);
        assertEquals("AND#1[a:100, OR#0[c:150, d*:100]]", dump(query.root()));
        assertEquals(List.of("a", "c", "d"), query.terms().stream().map(t -> t.keyword.text()).toList());
        assertEquals(1, query.terms().get(2).childNo);
        assertEquals(1, ((JuniperQuery.Node) query.root().children.get(1)).childNo);
        assertTrue(query.nodes().indexOf(query.root()) > query.nodes().indexOf(query.terms().get(1).parent)); // children first
    }

    @Test
    void aQueryWithNothingOnTheFieldHasNoTree() {
        assertNull(JuniperQuery.of(new QueryItem.And(List.of(word("g", "a", 100), new QueryItem.False())), "f"::equals));
        assertNull(JuniperQuery.of(null, index -> true));
    }

    @Test
    void phrasesAndNumbersOfSeveralPartsArePhraseNodes() { // JuniperQueryAdapter: VisitPHRASE, SplitFloat
        assertTrue(JuniperQuery.of(new QueryItem.Phrase("f", List.of("a", "b"), 100, true, 0, true), index -> true).root().phrase());
        assertTrue(JuniperQuery.of(new QueryItem.Term("f", "1.5", QueryItem.TermType.INTEGER, 100, true), index -> true).root().phrase());
        assertEquals("NONE#0[5:100]", dump(JuniperQuery.of(new QueryItem.Term("f", "-5", QueryItem.TermType.INTEGER, 100, true), index -> true).root()));
    }

}
