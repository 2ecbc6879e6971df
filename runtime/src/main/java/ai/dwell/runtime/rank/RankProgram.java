package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.QueryTerm;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A rank profile compiled for one query over one document index: first and second phase, and the
 * match and summary features with the names they are presented under. Used by one thread.
 */
final class RankProgram {

    /** A feature to output, under its presented name. */
    record OutputFeature(String name, Node node) {}

    private final RankProfile profile;
    private final ExpressionCompiler compiler;
    private final Node firstPhase;
    private final Node secondPhase;

    RankProgram(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms, QueryProperties query) {
        this.profile = profile;
        this.compiler = new ExpressionCompiler(profile, assets, index, terms, query);
        this.firstPhase = compiler.compile(profile.firstPhase());
        this.secondPhase = profile.secondPhase().map(compiler::compile).orElse(null);
    }

    RankProfile profile() { return profile; }

    double firstPhase(int lid) { return firstPhase.number(lid); }

    boolean hasSecondPhase() { return secondPhase != null; }

    /** The second-phase score of a document, given its first-phase score. */
    double secondPhase(int lid, double firstPhaseScore) {
        compiler.firstPhaseSlot().value = firstPhaseScore;
        return secondPhase.number(lid);
    }

    List<OutputFeature> matchFeatures() { return outputs(profile.matchFeatures()); }

    List<OutputFeature> summaryFeatures() { return outputs(profile.summaryFeatures()); }

    /** Sets the first-phase score that features referencing firstPhase read. */
    void setFirstPhase(double score) { compiler.firstPhaseSlot().value = score; }

    Optional<Node> secondPhaseNode() { return Optional.ofNullable(secondPhase); }

    private List<OutputFeature> outputs(List<String> names) {
        List<OutputFeature> features = new ArrayList<>();
        for (String name : names) features.add(new OutputFeature(profile.presentedName(name), compiler.feature(name)));
        return features;
    }

}
