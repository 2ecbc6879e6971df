package ai.dwell.searchers;

import com.yahoo.data.access.Inspector;
import com.yahoo.search.result.FeatureData;

/**
 * The match features of a hit in the hot-article cache's window: Vespa's FeatureData, as every view renders it, that
 * also keeps its impression encoding ({@link ImpressionJson#features}) once one view has made it. Every view of the
 * window logs the same candidates with the same features, so the impression log encodes them once per window, not
 * once per view.
 */
final class WindowFeatures extends FeatureData {

    private volatile String impressionJson;

    WindowFeatures(Inspector values) {
        super(values);
    }

    /** These features as an impression writes them; made by the first view that asks (a race makes the same string twice). */
    String impressionJson() {
        String json = impressionJson;
        if (json == null) impressionJson = json = ImpressionJson.features(this);
        return json;
    }

}
