package ai.dwell.runtime.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** A file channel that forwards to a real one: file layers for tests override what they change (writes, forces). */
public abstract class ForwardingFileChannel extends FileChannel {

    protected final FileChannel file;

    protected ForwardingFileChannel(FileChannel file) { this.file = file; }

    @Override public int write(ByteBuffer source) throws IOException { return file.write(source); }
    @Override public void force(boolean metaData) throws IOException { file.force(metaData); }
    @Override public int read(ByteBuffer target) throws IOException { return file.read(target); }
    @Override public long read(ByteBuffer[] targets, int offset, int length) throws IOException { return file.read(targets, offset, length); }
    @Override public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        long written = 0;
        for (int i = offset; i < offset + length; i++) written += write(sources[i]);
        return written;
    }
    @Override public long position() throws IOException { return file.position(); }
    @Override public FileChannel position(long position) throws IOException { file.position(position); return this; }
    @Override public long size() throws IOException { return file.size(); }
    @Override public FileChannel truncate(long size) throws IOException { file.truncate(size); return this; }
    @Override public long transferTo(long position, long count, WritableByteChannel target) throws IOException { return file.transferTo(position, count, target); }
    @Override public int read(ByteBuffer target, long position) throws IOException { return file.read(target, position); }
    // what the log never does: refused, so that a layer cannot be bypassed unnoticed
    @Override public long transferFrom(ReadableByteChannel source, long position, long count) { throw new UnsupportedOperationException(); }
    @Override public int write(ByteBuffer source, long position) { throw new UnsupportedOperationException(); }
    @Override public MappedByteBuffer map(MapMode mode, long position, long size) { throw new UnsupportedOperationException(); }
    @Override public FileLock lock(long position, long size, boolean shared) { throw new UnsupportedOperationException(); }
    @Override public FileLock tryLock(long position, long size, boolean shared) { throw new UnsupportedOperationException(); }
    @Override protected void implCloseChannel() throws IOException { file.close(); }

}
