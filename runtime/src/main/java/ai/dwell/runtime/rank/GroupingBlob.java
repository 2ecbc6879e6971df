package ai.dwell.runtime.rank;

import com.google.protobuf.ByteString;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.vespa.objects.BufferSerializer;

import java.util.ArrayList;
import java.util.List;

/** The grouping_blob of search requests and replies: a count, then serialized searchlib Grouping objects. */
final class GroupingBlob {

    private GroupingBlob() {}

    static List<Grouping> read(ByteString blob) {
        BufferSerializer buffer = new BufferSerializer(new GrowableByteBuffer(blob.asReadOnlyByteBuffer()));
        int count = buffer.getInt(null);
        List<Grouping> groupings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Grouping grouping = new Grouping();
            grouping.deserialize(buffer);
            groupings.add(grouping);
        }
        return groupings;
    }

    static ByteString write(List<Grouping> groupings) {
        BufferSerializer buffer = new BufferSerializer(new GrowableByteBuffer());
        buffer.putInt(null, groupings.size());
        for (Grouping grouping : groupings) grouping.serialize(buffer);
        buffer.getBuf().flip();
        return ByteString.copyFrom(buffer.getBuf().getByteBuffer());
    }

}
