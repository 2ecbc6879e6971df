package ai.dwell.searchers;

import ai.dwell.application.DwellApplication;
import com.yahoo.component.chain.Chain;
import com.yahoo.container.QrSearchersConfig;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.documentapi.DocumentAccessParams;
import com.yahoo.documentapi.local.LocalDocumentAccess;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.config.SchemaInfoConfig;
import com.yahoo.search.schema.SchemaInfo;
import com.yahoo.search.searchchain.Execution;

import java.util.List;

/** Real search chains of dwell's searchers, with configs from the built application package. */
final class SearchChains {

    static final String CONTAINER = "dwell_container";

    private SearchChains() {}

    static SchemaInfo schemaInfo() {
        return new SchemaInfo(DwellApplication.config(SchemaInfoConfig.class, CONTAINER),
                              DwellApplication.config(QrSearchersConfig.class, CONTAINER));
    }

    /** A document access with dwell's document types, holding documents in memory. */
    static LocalDocumentAccess documentAccess() {
        return new LocalDocumentAccess(new DocumentAccessParams()
                .setDocumentmanagerConfig(DwellApplication.config(DocumentmanagerConfig.class, CONTAINER)));
    }

    /** An ArticleSearcher with the default config, which is the package's. */
    static ArticleSearcher articleSearcher() {
        return new ArticleSearcher(new ArticleViewConfig.Builder().build());
    }

    static Result search(List<Searcher> searchers, String request) {
        Execution execution = new Execution(new Chain<>(searchers), Execution.Context.createContextStub());
        return execution.search(new Query(request));
    }

}
