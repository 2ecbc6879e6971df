package ai.dwell.runtime.storage;

/** What a log or snapshot entry holds. */
enum EntryKind {

    /** The complete new content of a document: Vespa's binary document serialization. */
    PUT(1),
    /** The removal of a document: its id, as UTF-8. */
    REMOVE(2),
    /** The end of a snapshot: the number of documents in it, as a big-endian long. */
    END(3),
    /**
     * Serial numbers that were never written (their writes failed, as the disk was full): the first of them, as a
     * big-endian long; the entry's own serial number is the last of them.
     */
    SKIP(4);

    private final byte code;

    EntryKind(int code) {
        this.code = (byte) code;
    }

    byte code() { return code; }

    static EntryKind fromCode(byte code) {
        for (EntryKind kind : values())
            if (kind.code == code) return kind;
        throw new IllegalArgumentException("Unknown entry kind " + code);
    }

}
