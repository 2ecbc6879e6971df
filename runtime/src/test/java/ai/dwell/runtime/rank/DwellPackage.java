package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.dwell.runtime.serve.deploy.PackageFiles;
import ai.dwell.runtime.serve.deploy.PackageVariants;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.rankingexpression.importer.onnx.OnnxImporter;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.config.model.NullConfigModelRegistry;
import com.yahoo.config.model.application.provider.FilesApplicationPackage;
import com.yahoo.config.model.deploy.DeployState;
import com.yahoo.config.model.deploy.TestProperties;
import com.yahoo.container.QrSearchersConfig;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.language.process.Embedder;
import ai.dwell.runtime.serve.container.PackageEmbedders;
import ai.dwell.runtime.serve.feed.CachingEmbedder;
import com.yahoo.search.Query;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.vespa.model.VespaModel;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** dwell's built application package (target/application), as the runtime serves it, as the content engine's tests use it. */
public final class DwellPackage {

    private static VespaModel model;

    private DwellPackage() {}

    public static Path root() { return Path.of(System.getProperty("dwell.root", "..")).toAbsolutePath().normalize(); }

    private static Path resolved;

    /**
     * The built package as the runtime serves it: a copy of target/application (made once per JVM) with its
     * deployment variants resolved for the runtime's zone ({@link PackageVariants}), as the runtime resolves every
     * deployed package before it validates and builds it.
     */
    public static synchronized Path dir() {
        if (resolved != null) return resolved;
        Path built = root().resolve("target/application");
        if ( ! Files.isDirectory(built.resolve("schemas"))) throw new IllegalStateException(built + " is not built: run `mvn -DskipTests package` in the project root");
        try {
            Path copy = Files.createTempDirectory("dwell-package");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try { PackageFiles.deleteRecursively(copy); }
                catch (java.io.IOException e) { System.err.println("could not delete " + copy + ": " + e); }
            }));
            PackageFiles.copy(built, copy);
            PackageVariants.resolve(copy);
            return resolved = copy;
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static synchronized VespaModel model() {
        if (model == null) model = model(dir());
        return model;
    }

    /** Builds the model of an application package directory, e.g. a modified copy of dwell's. */
    public static VespaModel model(Path dir) {
        try {
            var app = FilesApplicationPackage.fromDir(dir.toFile(), Map.of());
            var state = new DeployState.Builder().applicationPackage(app).properties(new TestProperties())
                                                 .modelImporters(List.of(new OnnxImporter())).build();
            return new VespaModel(new NullConfigModelRegistry(), state);
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static ContentClusterConfig cluster() { return ContentClusterConfigs.from(model(), "dwell", dir()); }

    /** A copy of dwell's built package at this path, for a test to change. */
    public static Path copyTo(Path copy) {
        try {
            PackageFiles.copy(dir(), copy);
            return copy;
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A copy of dwell's package in tmp with these rank profiles (and comment.sd's closing brace) in place of its closing brace. */
    public static Path copyWithProfiles(Path tmp, String profiles) {
        try {
            Path copy = copyTo(tmp.resolve("application"));
            Path schema = copy.resolve("schemas/comment.sd");
            String text = java.nio.file.Files.readString(schema).stripTrailing();
            java.nio.file.Files.writeString(schema, text.substring(0, text.length() - 1) + profiles);
            return copy;
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A package of one schema, doc.sd, in one content cluster "texts" of one node (distribution key 0) beside one
     * container, written under app; its content cluster's configs.
     */
    public static ContentClusterConfig oneNodeCluster(Path app, String schema) throws java.io.IOException {
        Files.createDirectories(app.resolve("schemas"));
        Files.writeString(app.resolve("services.xml"), """
                <?xml version="1.0" encoding="utf-8" ?>
                <services version="1.0">
                    <container id="default" version="1.0">
                        <document-api/>
                        <search/>
                        <nodes><node hostalias="node1"/></nodes>
                    </container>
                    <content id="texts" version="1.0">
                        <redundancy>1</redundancy>
                        <documents><document type="doc" mode="index"/></documents>
                        <nodes><node hostalias="node1" distribution-key="0"/></nodes>
                    </content>
                </services>
                """);
        Files.writeString(app.resolve("schemas/doc.sd"), schema);
        return ContentClusterConfigs.from(model(app), "texts", app);
    }

    /** A string of these words (joined by single spaces), each a term annotation, as linguistics would annotate it. */
    public static com.yahoo.document.datatypes.StringFieldValue annotated(List<String> words) {
        var value = new com.yahoo.document.datatypes.StringFieldValue(String.join(" ", words));
        if (words.isEmpty()) return value;
        var spans = new com.yahoo.document.annotation.SpanList();
        var tree = new com.yahoo.document.annotation.SpanTree(com.yahoo.document.annotation.SpanTrees.LINGUISTICS, spans);
        int from = 0;
        for (String word : words) {
            var span = new com.yahoo.document.annotation.Span(from, word.length());
            spans.add(span);
            tree.annotate(span, new com.yahoo.document.annotation.Annotation(com.yahoo.document.annotation.AnnotationTypes.TERM));
            from += word.length() + 1;
        }
        value.setSpanTree(tree);
        return value;
    }

    /** An empty index of the package's comments, with its imports from an empty author index connected. */
    public static DocumentIndex emptyCommentIndex(ContentClusterConfig cluster) {
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        DocumentIndex comments = new DocumentIndex(cluster.schema("comment"), types);
        comments.importFrom(Map.of("comment", comments, "author", new DocumentIndex(cluster.schema("author"), types)));
        return comments;
    }

    public static IndexingScripts indexing(ContentClusterConfig cluster) {
        IlscriptsConfig scripts = model().getConfig(IlscriptsConfig.class, "dwell_container/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor");
        return new IndexingScripts(scripts, new DocumentTypeManager(cluster.documentManager()), new SimpleLinguistics(), embedders());
    }

    private static Map<String, Embedder> embedders;

    /**
     * The package's embedder, Vespa's HuggingFaceEmbedder made as the runtime makes it from the model
     * (services.xml's component minilm, model paths resolved to the package's files), behind the runtime's cache.
     */
    public static synchronized Map<String, Embedder> embedders() {
        if (embedders == null) {
            PackageEmbedders made = PackageEmbedders.of(model(), "dwell_container", dir())
                    .orElseThrow(() -> new IllegalStateException("the runtime makes no embedders for dwell's package"));
            embedders = CachingEmbedder.wrap(made.byId(), 10_000, null, () -> 0);
        }
        return embedders;
    }

    /** The search request the Java dispatcher would send for this query, by container-search's own serialization. */
    public static SearchProtocol.SearchRequest request(Query query, int hits) {
        try {
            Method convert = Class.forName("com.yahoo.search.dispatch.rpc.ProtobufSerialization")
                                  .getDeclaredMethod("convertFromQuery", Query.class, int.class, String.class, double.class, double.class, QrSearchersConfig.class);
            convert.setAccessible(true);
            return (SearchProtocol.SearchRequest) convert.invoke(null, query, hits, "node0", 1.0, 10.0, new QrSearchersConfig.Builder().build());
        }
        catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

}
