package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.query.DocsumQuery;
import ai.dwell.runtime.engine.teaser.Teasers;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.MatchResult;
import ai.dwell.runtime.match.QueryMatcher;
import ai.dwell.runtime.rank.RankProfile;
import ai.dwell.runtime.rank.RankProgram;
import ai.dwell.runtime.rank.RankProgramCache;
import com.yahoo.document.GlobalId;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Cursor;
import com.yahoo.slime.Slime;
import com.yahoo.vespa.config.search.SummaryConfig;

import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The summaries of the documents a docsum request names, in its order, as binary Slime
 * {docsums:[{docsum:{...}}], errors:[...]}; summary and match features are computed with the request's rank
 * profile, by a program compiled (or taken from the cache) once per document type, on the first document that
 * asks for them. Call under the node's read lock.
 */
final class Docsums {

    private final NodeIndexes node;
    private final RankProgramCache programCache;

    Docsums(NodeIndexes node, RankProgramCache programCache) {
        this.node = node;
        this.programCache = programCache;
    }

    byte[] write(DocsumQuery query) {
        return write(query, null);
    }

    /**
     * The summaries; with streamed not null, those of a streaming search over those documents, whose summary features are
     * computed from the query matched among them alone (as the search matched it), not among all the node's documents.
     */
    byte[] write(DocsumQuery query, Collection<GlobalId> streamed) {
        Slime slime = new Slime();
        Cursor root = slime.setObject();
        Cursor docsums = root.setArray("docsums");
        Cursor errors = root.setArray("errors");
        Map<String, RankProgramCache.Lease> programs = new LinkedHashMap<>();
        Map<String, Teasers> teasers = new HashMap<>();
        Map<String, DocsumWriter.FeatureSource> featureSources = new HashMap<>(); // by index, made once per request
        Set<String> refused = new LinkedHashSet<>();
        try {
            List<DocumentIndex> searched = node.searched(query.documentType()); // once per request, not per document
            for (GlobalId gid : query.globalIds()) {
                Cursor entry = docsums.addObject();
                for (DocumentIndex index : searched) {
                    int lid = index.localId(gid);
                    if (lid < 0) continue;
                    try {
                        SummaryConfig.Classes summaryClass = summaryClass(index, query.summaryClass());
                        Teasers indexTeasers = teasers.computeIfAbsent(index.name(), name -> new Teasers(query.root(), query.highlightTerms(), query.flaggedIndexes(), index::views,
                                                                                                         field -> index.index(field).isPresent(),
                                                                                                         index.schema().juniperrc()));
                        DocsumWriter.write(entry.setObject("docsum"), index, lid, summaryClass, query.fields(), featureSources.computeIfAbsent(index.name(), name -> featureSource(programs, index, query, streamed)),
                                           indexTeasers, refused::add);
                    }
                    catch (IllegalArgumentException e) {
                        errors.addObject().setString("message", e.getMessage());
                    }
                    break;
                }
            }
        }
        finally {
            programs.values().forEach(RankProgramCache.Lease::close);
        }
        refused.forEach(message -> errors.addObject().setString("message", message)); // once per request, not per document
        return BinaryFormat.encode(slime);
    }

    private DocsumWriter.FeatureSource featureSource(Map<String, RankProgramCache.Lease> programs, DocumentIndex index, DocsumQuery query,
                                                     Collection<GlobalId> streamed) {
        Optional<RankProfile> profile = node.profile(index, query.rankProfile());
        if (profile.isEmpty()) return null;
        return new DocsumWriter.FeatureSource() {
            private RankProgram program() {
                return programs.computeIfAbsent(index.name(), name -> {
                    java.util.function.Supplier<MatchResult> match =
                            () -> streamed == null ? QueryMatcher.matchWithin(index, query.root(), NearestNeighborContext.of(query.properties(), profile.get()),
                                                                              requested(index, query))
                                                   : QueryMatcher.matchStreaming(index, query.root(), NearestNeighborContext.of(query.properties(), profile.get()),
                                                                                 QueryExecution.localIds(index, streamed));
                    long now = System.currentTimeMillis() / 1000;
                    // the rank features of ranking.listFeatures may read the query's terms, which a cached program was not compiled for
                    return query.dumpFeatures() ? programCache.compile(profile.get(), node.assets(name), index, match, query.properties(), now)
                                                : programCache.borrow(profile.get(), node.assets(name), index, match, query.properties(), now);
                }).program();
            }
            // a profile without such features needs no program: every summary class has these fields, and a compile (for a new
            // clock second or model) would match the query again, over the whole article, for nothing
            @Override public List<RankProgram.OutputFeature> summaryFeatures() {
                return profile.get().summaryFeatures().isEmpty() ? List.of() : program().summaryFeatures();
            }
            @Override public List<RankProgram.OutputFeature> matchFeatures() {
                return profile.get().matchFeatures().isEmpty() ? List.of() : program().matchFeatures();
            }
            @Override public List<RankProgram.OutputFeature> rankFeatures() { return query.dumpFeatures() ? program().dumpFeatures() : null; }
        };
    }

    /** The local ids in this index of the documents the request asks for. */
    private static BitSet requested(DocumentIndex index, DocsumQuery query) {
        BitSet lids = new BitSet();
        for (GlobalId gid : query.globalIds()) {
            int lid = index.localId(gid);
            if (lid >= 0) lids.set(lid);
        }
        return lids;
    }

    private static SummaryConfig.Classes summaryClass(DocumentIndex index, String name) {
        SummaryConfig summary = index.schema().summary();
        for (SummaryConfig.Classes c : summary.classes())
            if (name.isEmpty() ? c.id() == summary.defaultsummaryid() : c.name().equals(name)) return c;
        throw new IllegalArgumentException("No summary class '" + name + "' in schema '" + index.name() + "'");
    }

}
