package ai.dwell.runtime.serve.documentapi;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.DocumentId;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.vdslib.DocumentSummary;
import com.yahoo.vdslib.SearchResult;
import com.yahoo.vespa.objects.BufferSerializer;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A content node's answer to a streaming query in the binary formats of the search visitor's query result message
 * (big-endian): vdslib's SearchResult (total hits, the hits' document ids and ranks, sort blobs, groupings by id,
 * then, flagged, match features and errors) and DocumentSummary (each hit's document id and summary). Written here,
 * read back with vdslib's own classes, as the container reads them.
 */
final class QueryResultFormat {

    private static final int EXTENSION_FLAGS_PRESENT = -1;
    private static final int MATCH_FEATURES = 1;
    private static final int ERRORS = 2;

    private QueryResultFormat() {}

    static SearchResult searchResult(long totalHits, List<SearchProtocol.Hit> hits, List<DocumentId> ids, byte[] groupingBlob,
                                     List<String> featureNames, List<String> errors) {
        Writer out = new Writer();
        out.putInt((int) Math.min(Integer.MAX_VALUE, totalHits));
        int flags = (featureNames.isEmpty() || hits.isEmpty() ? 0 : MATCH_FEATURES) | (errors.isEmpty() ? 0 : ERRORS);
        if (flags != 0) {
            out.putInt(EXTENSION_FLAGS_PRESENT);
            out.putInt(flags);
        }
        out.putInt(hits.size());
        if ( ! hits.isEmpty()) {
            Writer names = new Writer();
            for (DocumentId id : ids) names.putCString(id.toString());
            byte[] block = names.bytes();
            out.putInt(block.length);
            out.put(block);
            for (SearchProtocol.Hit hit : hits) out.putDouble(hit.getRelevance());
        }
        out.putInt(0); // sort blobs: sorting is refused in streaming search
        out.putInt(0); // aggregators (legacy)
        List<Grouping> groupings = groupings(groupingBlob);
        out.putInt(groupings.size());
        for (Grouping grouping : groupings) {
            BufferSerializer serialized = new BufferSerializer(new GrowableByteBuffer());
            grouping.serialize(serialized);
            serialized.flip();
            byte[] bytes = serialized.getBytes(null, serialized.getBuf().limit());
            out.putInt(grouping.getId());
            out.putInt(bytes.length);
            out.put(bytes);
        }
        if ((flags & MATCH_FEATURES) != 0) {
            out.putInt(featureNames.size());
            for (String name : featureNames) {
                byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
                out.putInt(utf8.length + 1);
                out.put(utf8);
                out.put(new byte[] {0});
            }
            for (SearchProtocol.Hit hit : hits)
                for (SearchProtocol.Feature feature : hit.getMatchFeaturesList()) {
                    if (feature.getTensor().isEmpty()) {
                        out.put(new byte[] {0});
                        out.putDouble(feature.getNumber());
                    }
                    else {
                        out.put(new byte[] {1});
                        out.putInt(feature.getTensor().size());
                        out.put(feature.getTensor().toByteArray());
                    }
                }
        }
        if ((flags & ERRORS) != 0) {
            out.putInt(errors.size());
            for (String error : errors) {
                byte[] utf8 = error.getBytes(StandardCharsets.UTF_8);
                out.putInt(utf8.length);
                out.put(utf8);
            }
        }
        return new SearchResult(new BufferSerializer(new GrowableByteBuffer(ByteBuffer.wrap(out.bytes()))));
    }

    static DocumentSummary documentSummary(List<DocumentId> ids, List<byte[]> summaries) {
        Writer out = new Writer();
        out.putInt(0); // legacy
        out.putInt(summaries.size());
        if ( ! summaries.isEmpty()) {
            Writer block = new Writer();
            for (int i = 0; i < summaries.size(); i++) {
                block.putCString(ids.get(i).toString());
                block.put(summaries.get(i));
            }
            byte[] bytes = block.bytes();
            out.putInt(bytes.length);
            out.put(bytes);
            for (byte[] summary : summaries) out.putInt(summary.length);
        }
        return new DocumentSummary(new BufferSerializer(new GrowableByteBuffer(ByteBuffer.wrap(out.bytes()))));
    }

    /** The groupings of a reply's grouping blob (their count, then each serialized), each to be sent apart, by its id. */
    static List<Grouping> groupings(byte[] blob) {
        List<Grouping> groupings = new ArrayList<>();
        if (blob.length == 0) return groupings;
        BufferSerializer in = new BufferSerializer(new GrowableByteBuffer(ByteBuffer.wrap(blob)));
        int count = in.getInt(null);
        for (int i = 0; i < count; i++) {
            Grouping grouping = new Grouping();
            grouping.deserialize(in);
            groupings.add(grouping);
        }
        return groupings;
    }

    /** Big-endian output, as DataOutputStream writes. */
    private static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);

        void putInt(int value) { try { out.writeInt(value); } catch (IOException e) { throw new UncheckedIOException(e); } }
        void putDouble(double value) { try { out.writeDouble(value); } catch (IOException e) { throw new UncheckedIOException(e); } }
        void put(byte[] value) { try { out.write(value); } catch (IOException e) { throw new UncheckedIOException(e); } }
        void putCString(String value) { put(value.getBytes(StandardCharsets.UTF_8)); put(new byte[] {0}); }
        byte[] bytes() { return bytes.toByteArray(); }
    }

}
