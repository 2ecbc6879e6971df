package ai.dwell.runtime.serve.rpc;

import ai.dwell.runtime.format.TensorBytes;
import com.google.protobuf.ByteString;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Cursor;
import com.yahoo.slime.Slime;
import com.yahoo.tensor.Tensor;

/**
 * Builds the {@code slime_summaries} of a docsum reply, in the shape that
 * {@link ai.dwell.runtime.engine.SearchBackend#getDocsums} describes:
 * {@code {docsums:[{docsum:{...}}, ...], errors:[{type, message}]}}.
 * Add one entry per requested global id, in request order: a docsum, or {@link #addMissing()}.
 * Not thread safe.
 */
public final class DocsumSlime {

    private final Slime slime = new Slime();
    private final Cursor docsums;

    public DocsumSlime() {
        docsums = slime.setObject().setArray("docsums");
    }

    /** Adds the summary of the next requested document, and returns the object to set its fields in. */
    public Cursor addDocsum() {
        return docsums.addObject().setObject("docsum");
    }

    /** Adds an empty entry for a requested document which this node does not have. */
    public void addMissing() {
        docsums.addObject();
    }

    /** Adds an error; type "timeout" becomes a timeout error in the container, any other type a plain error. */
    public void addError(String type, String message) {
        Cursor root = slime.get();
        Cursor errors = root.field("errors").valid() ? root.field("errors") : root.setArray("errors");
        Cursor error = errors.addObject();
        error.setString("type", type);
        error.setString("message", message);
    }

    /** Returns this as binary Slime, for {@code DocsumReply.slime_summaries}. */
    public ByteString toByteString() {
        return ByteString.copyFrom(BinaryFormat.encode(slime));
    }

    /** Sets a tensor field, or a tensor in a summary features object, as data holding its typed binary format. */
    public static void setTensor(Cursor object, String name, Tensor tensor) {
        object.setData(name, TensorBytes.encode(tensor));
    }

}
