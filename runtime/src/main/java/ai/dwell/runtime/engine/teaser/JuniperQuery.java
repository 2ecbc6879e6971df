package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * Juniper's query tree for one field (juniper/queryvisitor.cpp, querynode.cpp), which its matcher builds match
 * candidates from: and and or nodes of terms, as searchsummary's JuniperQueryAdapter visits the query. Items juniper
 * ignores, and terms on other indexes, are left out; rank and and-not keep their first child only; nodes left with
 * no child are dropped and nodes with one are replaced by it (SimplifyStack); a single term becomes the one child of a
 * node without operator (QueryVisitor::postprocess_query). Phrases, and numbers of several parts (a phrase in
 * juniper), are kept as {@link Node#phrase()} nodes, which the snippet selection does not take. Terms are numbered in
 * query order and nodes after their children (the order of juniper's MatchObject).
 */
final class JuniperQuery {

    enum Operator { NONE, AND, OR, PHRASE }

    /** A node or a term of the tree, with its parent and its number among its parent's children. */
    abstract static sealed class Expr permits Node, Term {
        Node parent;
        int childNo;
    }

    static final class Node extends Expr {
        final Operator operator;
        final List<Expr> children;
        int index;
        Node(Operator operator, List<Expr> children) {
            this.operator = operator;
            this.children = children;
            for (int i = 0; i < children.size(); i++) {
                children.get(i).parent = this;
                children.get(i).childNo = i;
            }
        }
        boolean phrase() { return operator == Operator.PHRASE || children.stream().anyMatch(c -> c instanceof Node n && n.phrase()); }
    }

    static final class Term extends Expr {
        final Keyword keyword;
        final int weight;
        Term(Keyword keyword, int weight) { this.keyword = keyword; this.weight = weight; }
    }

    private final Node root;
    private final List<Term> terms = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();

    private JuniperQuery(Node root) {
        this.root = root;
        number(root);
    }

    /** The tree of the query for the views of a field; null when no term of it is on them. */
    static JuniperQuery of(QueryItem item, Predicate<String> useful) {
        return of(item, useful, java.util.Map.of());
    }

    /**
     * The tree of the query and the request's highlight terms on the field's views (each view's blocks: a word or the
     * words of a phrase), as JuniperQueryAdapter visits them: and(query, and(per view: and(blocks))), the highlight terms
     * of weight 0 (JuniperDFWExplicitItemData).
     */
    static JuniperQuery of(QueryItem item, Predicate<String> useful, java.util.Map<String, List<List<String>>> highlights) {
        Expr query = item == null ? null : expr(item, useful);
        List<Expr> views = new ArrayList<>();
        highlights.forEach((view, blocks) -> {
            List<Expr> terms = new ArrayList<>();
            for (List<String> block : blocks) {
                List<Expr> words = new ArrayList<>(block.stream().map(w -> (Expr) new Term(new Keyword(w, false), 0)).toList());
                if (words.size() == 1) terms.add(words.get(0));
                else if (words.size() > 1) terms.add(new Node(Operator.PHRASE, words));
            }
            Expr expr = collapse(Operator.AND, terms);
            if (expr != null) views.add(expr);
        });
        Expr highlight = collapse(Operator.AND, views);
        List<Expr> both = new ArrayList<>();
        if (query != null) both.add(query);
        if (highlight != null) both.add(highlight);
        Expr expr = collapse(Operator.AND, both);
        if (expr == null) return null;
        Node root = expr instanceof Node node ? node : new Node(Operator.NONE, new ArrayList<>(List.of(expr)));
        root.parent = null;
        return new JuniperQuery(root);
    }

    Node root() { return root; }

    /** The terms in query order. */
    List<Term> terms() { return terms; }

    /** The nodes, each after its children. */
    List<Node> nodes() { return nodes; }

    private void number(Expr expr) {
        if (expr instanceof Term term) { terms.add(term); return; }
        Node node = (Node) expr;
        node.children.forEach(this::number);
        node.index = nodes.size();
        nodes.add(node);
    }

    /** The simplified tree of the item, or null where juniper has none. */
    private static Expr expr(QueryItem item, Predicate<String> useful) {
        if (item instanceof QueryItem.And and) return node(Operator.AND, and.children(), useful);
        if (item instanceof QueryItem.Or or) return node(Operator.OR, or.children(), useful);
        if (item instanceof QueryItem.WeakAnd weakAnd) return node(Operator.OR, weakAnd.children(), useful);
        if (item instanceof QueryItem.Rank rank) return rank.children().isEmpty() ? null : expr(rank.children().get(0), useful);
        if (item instanceof QueryItem.AndNot andNot) return andNot.children().isEmpty() ? null : expr(andNot.children().get(0), useful);
        if (item instanceof QueryItem.Term term) {
            if ( ! useful.test(term.index())) return null;
            if (term.type() == QueryItem.TermType.INTEGER) {
                List<String> parts = Arrays.stream(term.word().split("[^A-Za-z0-9]+")).filter(part -> ! part.isEmpty()).toList();
                if (parts.size() > 1) return new Node(Operator.PHRASE, new ArrayList<>(parts.stream().map(p -> (Expr) new Term(new Keyword(p, false), 100)).toList()));
                return parts.isEmpty() ? null : new Term(new Keyword(parts.get(0), false), term.weight());
            }
            return term.word().isEmpty() ? null : new Term(new Keyword(term.word(), false), term.weight());
        }
        if (item instanceof QueryItem.Prefix prefix)
            return useful.test(prefix.index()) && ! prefix.prefix().isEmpty() ? new Term(new Keyword(prefix.prefix(), true), prefix.weight()) : null;
        if (item instanceof QueryItem.Phrase phrase) {
            if ( ! useful.test(phrase.index())) return null;
            List<Expr> words = new ArrayList<>(phrase.words().stream().filter(w -> ! w.isEmpty()).map(w -> (Expr) new Term(new Keyword(w, false), phrase.weight())).toList());
            return words.isEmpty() ? null : words.size() == 1 ? words.get(0) : new Node(Operator.PHRASE, words);
        }
        return null; // items juniper ignores (ranges and unsupported items are refused by TeaserKeywords)
    }

    private static Expr node(Operator operator, List<QueryItem> items, Predicate<String> useful) {
        List<Expr> children = new ArrayList<>();
        for (QueryItem child : items) {
            Expr expr = expr(child, useful);
            if (expr != null) children.add(expr);
        }
        return collapse(operator, children);
    }

    /** A node of the children; none without children, the child itself when one (SimplifyStack). */
    private static Expr collapse(Operator operator, List<Expr> children) {
        if (children.isEmpty()) return null;
        if (children.size() == 1) return children.get(0);
        return new Node(operator, children);
    }

}
