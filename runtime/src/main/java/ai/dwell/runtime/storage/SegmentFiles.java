package ai.dwell.runtime.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens the transaction log's segment files: the file system itself, or, in tests, a file layer that can fail. */
@FunctionalInterface
interface SegmentFiles {

    SegmentFiles FILE_SYSTEM = path -> FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                                        StandardOpenOption.TRUNCATE_EXISTING);

    /** Opens a new, empty segment file for writing, replacing any file there. */
    FileChannel create(Path path) throws IOException;

}
