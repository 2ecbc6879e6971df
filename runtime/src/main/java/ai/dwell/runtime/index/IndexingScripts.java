package ai.dwell.runtime.index;

import ai.vespa.language.chunker.FixedLengthChunker;
import ai.vespa.language.chunker.SentenceChunker;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.language.Linguistics;
import com.yahoo.language.process.Chunker;
import com.yahoo.language.process.Embedder;
import com.yahoo.language.process.FieldGenerator;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.vespa.indexinglanguage.ScriptParserContext;
import com.yahoo.vespa.indexinglanguage.expressions.Expression;
import com.yahoo.vespa.indexinglanguage.expressions.InputExpression;
import com.yahoo.vespa.indexinglanguage.expressions.OutputExpression;
import com.yahoo.vespa.indexinglanguage.expressions.ScriptExpression;
import com.yahoo.vespa.indexinglanguage.expressions.StatementExpression;
import com.yahoo.vespa.indexinglanguage.parser.IndexingInput;
import com.yahoo.vespa.indexinglanguage.parser.ParseException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemas' {@code indexing:} statements (from IlscriptsConfig, config id
 * "&lt;container&gt;/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor"),
 * run with Vespa's indexing language on puts and updates, as Vespa's IndexingProcessor does.
 * An update runs only the statements whose input fields it touches, so updating attribute-only
 * fields does not run text processing again.
 */
public final class IndexingScripts {

    private final DocumentTypeManager types;
    private final Map<String, ScriptExpression> scripts = new HashMap<>();

    public IndexingScripts(IlscriptsConfig config, DocumentTypeManager types, Linguistics linguistics) {
        this(config, types, linguistics, Map.of());
    }

    /**
     * Vespa's built-in chunkers by the ids {@code chunk} expressions name them with, as a container has them without
     * declaring any (a chunker component declared in services.xml is not looked up here).
     */
    static final Map<String, Chunker> BUILT_IN_CHUNKERS = Map.of("fixed-length", new FixedLengthChunker(),
                                                                 "sentence", new SentenceChunker());

    /**
     * @param embedders the container's embedder components by id, for the {@code embed} expressions
     *                  (as Vespa's IndexingProcessor gets them injected)
     */
    public IndexingScripts(IlscriptsConfig config, DocumentTypeManager types, Linguistics linguistics, Map<String, Embedder> embedders) {
        this(config, types, linguistics, embedders, Map.of());
    }

    /**
     * @param embedders  the container's embedder components by id, for the {@code embed} expressions
     * @param generators the container's field generator components by id (e.g. LanguageModelFieldGenerator), for the
     *                   {@code generate} expressions (as Vespa's IndexingProcessor gets both injected)
     */
    public IndexingScripts(IlscriptsConfig config, DocumentTypeManager types, Linguistics linguistics, Map<String, Embedder> embedders,
                           Map<String, FieldGenerator> generators) {
        this.types = types;
        ScriptParserContext context = new ScriptParserContext(linguistics, BUILT_IN_CHUNKERS, embedders, generators);
        context.getAnnotatorConfig().setMaxTermOccurrences(config.maxtermoccurrences());
        context.getAnnotatorConfig().setMaxTokenizeLength(config.fieldmatchmaxlength());
        for (IlscriptsConfig.Ilscript ilscript : config.ilscript()) {
            DocumentType type = types.getDocumentType(ilscript.doctype());
            if (type == null) throw new IllegalArgumentException("Indexing script for unknown document type '" + ilscript.doctype() + "'");
            InputExpression.FieldPathOptimizer optimizer = new InputExpression.FieldPathOptimizer(type);
            List<StatementExpression> statements = new ArrayList<>();
            for (String content : ilscript.content()) {
                StatementExpression statement = parse(type, context, content, ! generators.isEmpty());
                OutputExpression.OutputFieldNameExtractor outputs = new OutputExpression.OutputFieldNameExtractor();
                statement.select(outputs, outputs);
                statement.select(optimizer, optimizer);
                if ( ! outputs.getOutputFieldNames().isEmpty())
                    statement.setStatementOutput(type, type.getField(outputs.getOutputFieldNames().get(0)));
                statements.add(statement);
            }
            ScriptExpression script = new ScriptExpression(statements);
            script.select(optimizer, optimizer);
            script.resolve(type);
            scripts.put(ilscript.doctype(), script);
        }
    }

    /** Returns the document with its indexing statements applied (a new instance of the schema's full type). */
    public Document process(Document document) {
        ScriptExpression script = scripts.get(document.getDataType().getName());
        if (script == null) return document;
        return Expression.execute(script, document);
    }

    /** Returns the update with the indexing statements of the fields it changes applied to its values. */
    public DocumentUpdate process(DocumentUpdate update) {
        ScriptExpression script = scripts.get(update.getDocumentType().getName());
        if (script == null) return update;
        DocumentUpdate processed = Expression.execute(script, update);
        return processed == null ? update : processed;
    }

    public DocumentTypeManager documentTypes() { return types; }

    /** A {@code generate} expression, outside quoted strings' usual places (the indexing language's keyword). */
    private static final java.util.regex.Pattern GENERATE = java.util.regex.Pattern.compile("(^|[|{;(]\\s*)generate\\b");

    /**
     * Whether any statement embeds or generates (and so needs the container's embedders or field generators, which
     * exist once it runs).
     */
    public static boolean usesEmbedders(IlscriptsConfig config) {
        return config.ilscript().stream().flatMap(script -> script.content().stream())
                     .anyMatch(IndexingScripts::usesEmbedders);
    }

    /** Whether the statement embeds or generates (needs the container's embedders or field generators). */
    public static boolean usesEmbedders(String statement) {
        return statement.matches("(?s).*\\bembed\\b.*") || generates(statement);
    }

    /** Whether the statement has a {@code generate} expression. */
    public static boolean generates(String statement) {
        return GENERATE.matcher(statement).find();
    }

    private static StatementExpression parse(DocumentType type, ScriptParserContext context, String content, boolean hasGenerators) {
        if ( ! hasGenerators && generates(content))
            throw new IllegalArgumentException("Indexing statement '" + content.strip() + "' of " + type.getName() +
                                               ": 'generate' needs the container's field generators (components such as " +
                                               "LanguageModelFieldGenerator), and this indexing has none");
        try {
            context.setInputStream(new IndexingInput(content));
            return StatementExpression.newInstance(context);
        }
        catch (ParseException e) {
            throw new IllegalArgumentException("Illegal indexing script for " + type + ": " + content, e);
        }
    }

}
