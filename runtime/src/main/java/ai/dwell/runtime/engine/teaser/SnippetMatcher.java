package ai.dwell.runtime.engine.teaser;

import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Comparator;
import java.util.TreeSet;

/**
 * Juniper's matcher (juniper/Matcher.cpp, mcand.cpp, keyocc.h) over the keyword occurrences of one input: each
 * occurrence starts a candidate of its term's parent node, and joins the open candidates of that node (freshest first,
 * until one already has a term of that child); a candidate with an element for each child is complete and moves up, as
 * do the open ones when an occurrence comes a window (winsize bytes) after their start once enough (max_matches)
 * candidates were complete, and all at the end of the input; those of the root are the matches, best first: by the
 * sum of their terms' weights, then the fewest words between their terms, then the earliest. Only and, or and
 * operator-less nodes: their candidates may be partial, have no order and no limit.
 */
final class SnippetMatcher {

    /** A match element: an occurrence of a keyword, or a candidate of a node. */
    abstract static sealed class Element permits Occurrence, Candidate {
        int startPos;   // bytes
        int startToken; // words
        abstract int endPos();
        abstract int endToken();
        abstract boolean complete();
        abstract void addTo(TreeSet<Occurrence> keys);
    }

    /** A token that matched a keyword: its byte position and length, and its word number. */
    static final class Occurrence extends Element {
        final int length;
        Occurrence(int pos, int token, int length) { this.startPos = pos; this.startToken = token; this.length = length; }
        @Override int endPos() { return startPos + length; }
        @Override int endToken() { return startToken + 1; }
        @Override boolean complete() { return true; }
        @Override void addTo(TreeSet<Occurrence> keys) { keys.add(this); }
    }

    /** A match candidate of a node (MatchCandidate). */
    static final class Candidate extends Element {
        final JuniperQuery.Node node;
        final Element[] elements;
        int elems;      // elements present (_nelems)
        int endPos;
        int endToken;
        int weight;
        TreeSet<Occurrence> keys;
        Candidate(JuniperQuery.Node node) {
            this.node = node;
            this.elements = new Element[Math.max(node.children.size(), 1)];
        }
        @Override int endPos() { return endPos; }
        @Override int endToken() { return endToken; }
        int size() { return endPos - startPos; }
        int wordDistance() { return endToken - startToken - (elements.length - 1); }
        @Override boolean complete() {
            if (elems < elements.length) return false;
            for (Element e : elements) if ( ! e.complete()) return false;
            return true;
        }
        @Override void addTo(TreeSet<Occurrence> into) {
            for (Element e : elements) if (e != null) e.addTo(into);
        }
        /** The keyword occurrences of this, by word number (make_keylist). */
        TreeSet<Occurrence> keys() {
            if (keys == null) {
                keys = new TreeSet<>(Comparator.comparingInt(o -> o.startToken));
                addTo(keys);
            }
            return keys;
        }
        /** Takes the element for the child unless it has one: whether it took it. */
        boolean accept(Element k, JuniperQuery.Expr child, int childWeight) {
            if (elements[child.childNo] != null) return false;
            elements[child.childNo] = k;
            if (elems == 0 || k.startPos < startPos) {
                startPos = k.startPos;
                startToken = k.startToken;
            }
            elems++;
            weight += childWeight;
            if (k.endPos() > endPos) {
                endPos = k.endPos();
                endToken = k.endToken();
            }
            return true;
        }
    }

    /** Juniper's order of matches (gtematch_cand): heavier first, then shorter word distance, then earlier. */
    static int compare(Candidate a, Candidate b) {
        if (a.weight != b.weight) return a.weight > b.weight ? -1 : 1;
        if (a.wordDistance() != b.wordDistance()) return a.wordDistance() < b.wordDistance() ? -1 : 1;
        return Integer.compare(a.startPos, b.startPos);
    }

    private final JuniperQuery query;
    private final int winsize;
    private final int winsizeFallback;
    private final int maxCandidates;
    private int needComplete;
    private final List<LinkedList<Candidate>> workSets = new ArrayList<>();
    private final List<Occurrence> occurrences = new ArrayList<>();
    private final List<Candidate> matches = new ArrayList<>();

    SnippetMatcher(JuniperQuery query, JuniperSettings settings) {
        this.query = query;
        this.winsize = settings.winsize();
        this.winsizeFallback = (int) (settings.winsizeFallbackMultiplier() * settings.winsize());
        this.maxCandidates = settings.maxMatchCandidates();
        this.needComplete = settings.maxMatches();
        for (int i = 0; i < query.nodes().size(); i++) workSets.add(new LinkedList<>());
    }

    /**
     * A token (byte position and length, word number) matched these terms, in the order juniper's match iterator
     * gives them (add_occurrence).
     */
    void occurrence(int pos, int token, int length, List<JuniperQuery.Term> terms) {
        Occurrence k = new Occurrence(pos, token, length);
        occurrences.add(k);
        if (needComplete <= 0) {
            for (LinkedList<Candidate> workSet : workSets) {
                for (ListIterator<Candidate> it = workSet.listIterator(); it.hasNext(); ) {
                    Candidate m = it.next();
                    if (k.startPos - m.startPos < winsize) break;
                    it.remove();
                    update(m);
                }
            }
        }
        for (JuniperQuery.Term term : terms) {
            LinkedList<Candidate> workSet = workSets.get(term.parent.index);
            if (workSet.size() < maxCandidates) workSet.add(new Candidate(term.parent));
            updateWorkSet(workSet, k, term, term.weight);
        }
    }

    /** The end of the input: the open candidates move up (flush_candidates). */
    void end() {
        for (LinkedList<Candidate> workSet : workSets) {
            for (Candidate m : new ArrayList<>(workSet)) update(m);
            workSet.clear();
        }
    }

    List<Occurrence> occurrences() { return occurrences; }

    /** The matches, best first. */
    List<Candidate> matches() { return matches; }

    private void update(Candidate m) {
        JuniperQuery.Node parent = m.node.parent;
        if (parent == null) {
            int at = matches.size();
            while (at > 0 && compare(m, matches.get(at - 1)) < 0) at--; // after its equals, as a multiset inserts
            matches.add(at, m);
            return;
        }
        LinkedList<Candidate> workSet = workSets.get(parent.index);
        workSet.add(new Candidate(parent));
        updateWorkSet(workSet, m, m.node, m.weight);
    }

    private void updateWorkSet(LinkedList<Candidate> workSet, Element k, JuniperQuery.Expr child, int weight) {
        for (ListIterator<Candidate> it = workSet.listIterator(workSet.size()); it.hasPrevious(); ) {
            Candidate m = it.previous();
            if ( ! m.accept(k, child, weight)) break; // it, and all earlier, have this child
            if (k.startPos - m.startPos >= winsizeFallback) {
                it.remove();
            }
            else if (m.complete()) {
                it.remove();
                if (needComplete > 0) needComplete--;
                update(m);
            }
        }
    }

}
