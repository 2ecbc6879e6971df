package ai.dwell.runtime.storage;

import java.io.IOException;

/** A write that failed because the disk had no room for it: nothing of it was kept, and later writes may succeed. */
public final class StorageFullException extends IOException {

    StorageFullException(String message, IOException cause) { super(message, cause); }

    /** Whether the exception is the operating system's "no space left on device" (ENOSPC; or EDQUOT, over a disk quota). */
    static boolean isNoSpace(IOException e) {
        String message = e.getMessage();
        return message != null && (message.contains("No space left on device") || message.contains("Disk quota exceeded"));
    }

}
