package ai.dwell.runtime.serve.deploy;

import com.yahoo.vespa.config.search.vsm.VsmfieldsConfig;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.content.cluster.ContentCluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The document types a package has in mode streaming, and what the runtime does differently for them at deploy.
 *
 * Vespa's search visitor reads a streaming type's string fields from the stored document and tokenizes them at query
 * time (its vsmfields config: lowercased and accent-folded, never stemmed), so Vespa derives their indexing statements
 * without tokenize ({@code input title | index title}). The runtime answers streaming queries with its own index, so
 * it tokenizes such a field when indexing it, as the search visitor would ({@code tokenize normalize}, no stemming).
 * A string index field whose streaming match mode the engine does not honour (prefix, substring, suffix, exact, word)
 * is refused at deploy, by name.
 */
public final class StreamingTypes {

    private static final Pattern INDEX_OUTPUT = Pattern.compile("\\|\\s*index\\s+([A-Za-z_][A-Za-z0-9_.]*)");

    private final Map<String, Set<String>> textFieldsOfType; // per streaming type: its string index fields

    private StreamingTypes(Map<String, Set<String>> textFieldsOfType) {
        this.textFieldsOfType = textFieldsOfType;
    }

    /** The streaming types of the model's content clusters; refuses a string index field with a match mode not honoured. */
    public static StreamingTypes of(VespaModel model) {
        Map<String, Set<String>> textFields = new HashMap<>();
        for (ContentCluster content : model.getContentClusters().values()) {
            if ( ! content.getSearch().hasStreaming()) continue;
            for (var type : content.getSearch().getDocumentTypesWithStreamingCluster()) {
                String id = content.getName() + "/search/cluster." + content.getName() + "/" + type.getName();
                VsmfieldsConfig fields = model.getConfig(VsmfieldsConfig.class, id);
                Set<String> text = new HashSet<>();
                for (VsmfieldsConfig.Fieldspec field : fields.fieldspec()) {
                    if (field.fieldtype() != VsmfieldsConfig.Fieldspec.Fieldtype.INDEX || ! isText(field.searchmethod())) continue;
                    if ( ! field.arg1().isEmpty())
                        throw new InvalidApplicationException("Content cluster '" + content.getName() + "', streaming document type '" +
                                                              type.getName() + "': field '" + field.name() + "' with match mode '" + field.arg1() +
                                                              "' is not supported by this content engine in streaming mode (the default text matching is)");
                    text.add(field.name());
                }
                textFields.put(type.getName(), Set.copyOf(text));
            }
        }
        return new StreamingTypes(Map.copyOf(textFields));
    }

    private static boolean isText(VsmfieldsConfig.Fieldspec.Searchmethod.Enum method) {
        return method == VsmfieldsConfig.Fieldspec.Searchmethod.AUTOUTF8 || method == VsmfieldsConfig.Fieldspec.Searchmethod.UTF8
               || method == VsmfieldsConfig.Fieldspec.Searchmethod.SSE2UTF8;
    }

    public Set<String> types() { return textFieldsOfType.keySet(); }

    /**
     * The indexing scripts with each streaming type's string index fields tokenized before they are indexed (where
     * the statement does not tokenize already); other types' scripts unchanged.
     */
    public IlscriptsConfig tokenizing(IlscriptsConfig scripts) {
        if (textFieldsOfType.isEmpty()) return scripts;
        IlscriptsConfig.Builder builder = new IlscriptsConfig.Builder(scripts);
        List<IlscriptsConfig.Ilscript.Builder> rewritten = new ArrayList<>();
        for (IlscriptsConfig.Ilscript script : scripts.ilscript()) {
            IlscriptsConfig.Ilscript.Builder copy = new IlscriptsConfig.Ilscript.Builder(script);
            Set<String> text = textFieldsOfType.get(script.doctype());
            if (text != null) {
                List<String> content = new ArrayList<>();
                for (String statement : script.content()) content.add(tokenizing(statement, text));
                copy.content.clear();
                copy.content(content);
            }
            rewritten.add(copy);
        }
        builder.ilscript.clear();
        builder.ilscript(rewritten);
        return builder.build();
    }

    static String tokenizing(String statement, Set<String> textFields) {
        if (statement.contains("tokenize") || statement.contains("ngram") || statement.contains("exact")) return statement;
        Matcher matcher = INDEX_OUTPUT.matcher(statement);
        StringBuilder result = new StringBuilder();
        while (matcher.find())
            matcher.appendReplacement(result, Matcher.quoteReplacement(textFields.contains(matcher.group(1))
                                                                       ? "| tokenize normalize | index " + matcher.group(1)
                                                                       : matcher.group()));
        matcher.appendTail(result);
        return result.toString();
    }

}
