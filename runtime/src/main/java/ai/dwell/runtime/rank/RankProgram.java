package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.NearestNeighborTerm;
import ai.dwell.runtime.match.PredicateTerm;
import ai.dwell.runtime.match.QueryTerm;
import ai.dwell.runtime.match.RankTerm;

import com.yahoo.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * A rank profile compiled for one query over one document index: first and second phase, and the
 * match and summary features with the names they are presented under. Used by one thread.
 */
public final class RankProgram {

    /** A feature to output, under its presented name. */
    public record OutputFeature(String name, Node node) {

        /** Whether the feature is a number (else a tensor). */
        public boolean isNumber() { return node.type().rank() == 0; }

        /** The feature's value for a document, as a number. */
        public double number(int lid) { return node.number(lid); }

        /** The feature's value for a document, as a tensor. */
        public Tensor tensor(int lid) { return node.tensor(lid); }

    }

    private final RankProfile profile;
    private final ExpressionCompiler compiler;
    private final Node firstPhase;
    private final Node secondPhase;

    public RankProgram(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms, QueryProperties query) {
        this(profile, assets, index, terms, List.of(), query);
    }

    public RankProgram(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                List<NearestNeighborTerm> nearestNeighbors, QueryProperties query) {
        this(profile, assets, index, terms, nearestNeighbors, List.of(), query);
    }

    /** A program of the profile for a query with these terms, nearest-neighbor items, and ranked terms as native rank features read them. */
    public RankProgram(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms, QueryProperties query) {
        this(profile, assets, index, terms, nearestNeighbors, rankTerms, List.of(), query);
    }

    /** As above, with the query's predicate items, which subqueries(field) reads. */
    public RankProgram(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms, List<PredicateTerm> predicates, QueryProperties query) {
        this.profile = profile;
        this.compiler = new ExpressionCompiler(profile, assets, index, terms, nearestNeighbors, rankTerms, predicates, query);
        this.firstPhase = compiler.compileFirstPhase(profile.firstPhase());
        this.secondPhase = profile.secondPhase().map(compiler::compile).orElse(null);
    }

    public RankProfile profile() { return profile; }

    /** Whether the program depends on the query terms it was compiled with (text features, closeness). */
    public boolean readsTerms() { return compiler.readsTerms(); }

    /**
     * Starts a query: the clock's now reads this second, and no node remembers a document of an earlier query (whose
     * attributes may have changed since). A program is reused by queries of any second.
     */
    void startQuery(long clockSecond) { compiler.startQuery(clockSecond); }

    /**
     * Compiles the match and summary features now rather than when first asked for, so that the program
     * reads nothing more from the query later. False if one of them cannot be compiled (that error then
     * comes when the feature is asked for, as without this).
     */
    boolean compileOutputs() {
        try {
            matchFeatures();
            summaryFeatures();
            return true;
        }
        catch (RuntimeException e) {
            return false;
        }
    }

    /** The number of documents whose first-phase scores are computed in one block. */
    private static final int FIRST_PHASE_BLOCK = 4096;

    private final Batch batch = new Batch();
    private double[] block = new double[0];

    /** Computes the first-phase scores of lids[0..count) into scores, a block of documents at a time. */
    public void firstPhase(int[] lids, int count, double[] scores) { firstPhase(lids, 0, count, scores); }

    /** Computes the first-phase scores of lids[offset..offset+count) into scores[offset..offset+count). */
    public void firstPhase(int[] lids, int offset, int count, double[] scores) {
        compiler.restartRandom();
        block = Batch.atLeast(block, Math.min(count, FIRST_PHASE_BLOCK));
        for (int from = 0; from < count; from += FIRST_PHASE_BLOCK) {
            int n = Math.min(FIRST_PHASE_BLOCK, count - from);
            batch.start(n);
            System.arraycopy(lids, offset + from, batch.lids(), 0, n);
            firstPhase.numbers(batch, block);
            System.arraycopy(block, 0, scores, offset + from, n);
        }
    }

    public boolean hasSecondPhase() { return secondPhase != null; }

    /**
     * Computes the second-phase scores of all the given documents (the rerank window) in one block,
     * given their first-phase scores, into scores.
     */
    public void secondPhase(int[] lids, double[] firstPhaseScores, int count, double[] scores) {
        secondPhase(lids, firstPhaseScores, 0, count, scores);
    }

    /** The second phase of the documents at [offset..offset+count) of the window, into scores[offset..offset+count). */
    public void secondPhase(int[] lids, double[] firstPhaseScores, int offset, int count, double[] scores) {
        compiler.restartRandom();
        batch.start(count);
        System.arraycopy(lids, offset, batch.lids(), 0, count);
        System.arraycopy(firstPhaseScores, offset, batch.firstPhase(), 0, count);
        if (offset == 0) {
            secondPhase.numbers(batch, scores);
            return;
        }
        secondBlock = Batch.atLeast(secondBlock, count);
        secondPhase.numbers(batch, secondBlock);
        System.arraycopy(secondBlock, 0, scores, offset, count);
    }

    private double[] secondBlock = new double[0];

    /**
     * The values of these output features (of this program) for the documents lids[0..count), computed over them as
     * one block, as the phases are: the hits a query returns get their match features this way.
     */
    public FeatureBlock outputs(List<OutputFeature> features, int[] lids, int count) {
        compiler.restartRandom();
        batch.start(count); // the phases' batch: nodes know a block by its generation, which only this batch counts
        System.arraycopy(lids, 0, batch.lids(), 0, count);
        if (compiler.readsFirstPhase()) firstPhase.numbers(batch, batch.firstPhase());
        return FeatureBlock.compute(features, batch);
    }

    public List<OutputFeature> matchFeatures() { return outputs(profile.matchFeatures()); }

    public List<OutputFeature> summaryFeatures() { return outputs(profile.summaryFeatures()); }

    /**
     * The rankfeatures summary field of ranking.listFeatures: the profile's rank-features and, unless it sets
     * ignore-default-rank-features, proton's default features of the schema ({@link DefaultDumpFeatures}), each once,
     * ordered by name as proton's feature resolver keeps them.
     */
    public List<OutputFeature> dumpFeatures() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>(profile.dumpFeatures());
        if ( ! profile.ignoresDefaultDumpFeatures()) names.addAll(DefaultDumpFeatures.names(compiler.index().schema(), profile));
        return outputs(List.copyOf(names));
    }

    private List<OutputFeature> outputs(List<String> names) {
        List<OutputFeature> features = new ArrayList<>();
        for (String name : names) features.add(new OutputFeature(profile.presentedName(name), compiler.feature(name)));
        return features;
    }

}
