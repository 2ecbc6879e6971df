package ai.dwell.runtime.serve.deploy;

import com.yahoo.schema.RankingExpressionBody;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.model.content.cluster.ContentCluster;

import com.yahoo.vespa.model.VespaModel;
import net.jpountz.lz4.LZ4FrameOutputStream;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The ranking expressions Vespa's config model distributes as files: an expression longer than its limit (8192
 * characters, as those a lightgbm() or xgboost() model converts to) is replaced in the rank profile's properties by
 * rankingExpression(name).expressionName, naming a blob that proton reads from the file distributed with
 * RankingExpressionsConfig. The runtime builds its model without file distribution, so it takes each blob from the
 * schema the model was built from: for the content nodes, it puts its text back where proton would use it, as the
 * function's rankingScript; for the container (whose global phase reads the same profiles from the files its file
 * acquirer finds in the served package), it writes each blob where its file reference points, LZ4-compressed as
 * Vespa's file distribution delivers it.
 */
public final class LargeRankExpressions {

    private static final String PREFIX = "rankingExpression(", NAME = ").expressionName", SCRIPT = ").rankingScript";

    private LargeRankExpressions() {}

    /** The bodies of the large expressions of a schema in this cluster, by the names the rank profiles give them. */
    static Map<String, String> of(ContentCluster cluster, String schema) {
        Map<String, String> bodies = new HashMap<>();
        var search = cluster.getSearch();
        if ( ! search.hasSearchCluster() || ! search.getSearchCluster().hasDocumentDB(schema)) return bodies;
        var files = search.getSearchCluster().getDocumentDB(schema).getDerivedConfiguration().getSchema().rankExpressionFiles();
        for (RankingExpressionBody body : files.expressions()) {
            ByteBuffer blob = body.getBlob().duplicate();
            byte[] bytes = new byte[blob.remaining()];
            blob.get(bytes);
            bodies.put(body.getName(), new String(bytes, StandardCharsets.UTF_8));
        }
        return bodies;
    }

    /** Writes the large expressions of every schema of the model's content clusters into the package, as name.lz4. */
    public static void writeFiles(VespaModel model, Path packageDir) {
        for (ContentCluster cluster : model.getContentClusters().values()) {
            for (var type : cluster.getDocumentDefinitions().values()) {
                for (var body : of(cluster, type.getName()).entrySet()) {
                    Path file = packageDir.resolve(body.getKey() + ".lz4");
                    try (OutputStream out = new LZ4FrameOutputStream(Files.newOutputStream(file))) {
                        out.write(body.getValue().getBytes(StandardCharsets.UTF_8));
                    }
                    catch (IOException e) {
                        throw new UncheckedIOException("Could not write the ranking expression file " + file, e);
                    }
                }
            }
        }
    }

    /** The rank profiles with each expressionName property replaced by the rankingScript of the body it names. */
    static RankProfilesConfig inline(RankProfilesConfig config, Map<String, String> bodies) {
        if (bodies.isEmpty()) return config;
        RankProfilesConfig.Builder builder = new RankProfilesConfig.Builder(config);
        builder.rankprofile.clear();
        for (RankProfilesConfig.Rankprofile profile : config.rankprofile()) {
            RankProfilesConfig.Rankprofile.Builder inlined = new RankProfilesConfig.Rankprofile.Builder(profile);
            inlined.fef.property.clear();
            for (RankProfilesConfig.Rankprofile.Fef.Property property : profile.fef().property()) {
                String name = property.name(), value = property.value();
                if (name.startsWith(PREFIX) && name.endsWith(NAME)) {
                    String body = bodies.get(value);
                    if (body == null)
                        throw new IllegalArgumentException("Rank profile '" + profile.name() + "': " + name + " names '" + value +
                                                           "', which is not among the schema's ranking expression files");
                    name = name.substring(0, name.length() - NAME.length()) + SCRIPT;
                    value = body;
                }
                inlined.fef.property(new RankProfilesConfig.Rankprofile.Fef.Property.Builder().name(name).value(value));
            }
            builder.rankprofile(inlined);
        }
        return builder.build();
    }

}
