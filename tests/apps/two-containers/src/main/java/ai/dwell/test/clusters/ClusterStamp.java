package ai.dwell.test.clusters;

import com.yahoo.docproc.DocumentProcessor;
import com.yahoo.docproc.Processing;
import com.yahoo.document.DocumentOperation;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.datatypes.StringFieldValue;

/** Writes the container cluster it runs in (its config) into each item put, so a search shows which cluster processed it. */
public class ClusterStamp extends DocumentProcessor {

    private final String cluster;

    public ClusterStamp(ClusterStampConfig config) {
        this.cluster = config.cluster();
    }

    @Override
    public Progress process(Processing processing) {
        for (DocumentOperation operation : processing.getDocumentOperations())
            if (operation instanceof DocumentPut put && put.getDocument().getDataType().getName().equals("item"))
                put.getDocument().setFieldValue("stamp", new StringFieldValue(cluster));
        return Progress.DONE;
    }

}
