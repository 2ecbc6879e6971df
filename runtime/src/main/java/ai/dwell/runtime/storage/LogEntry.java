package ai.dwell.runtime.storage;

/**
 * One entry of a transaction log segment or a snapshot.
 *
 * @param serial the serial number of the entry in the log (in a snapshot: the serial number the snapshot covers)
 * @param timestamp the write timestamp of the document, in microseconds
 * @param kind what the payload holds
 * @param payload the serialized document, document id, or snapshot trailer
 */
record LogEntry(long serial, long timestamp, EntryKind kind, byte[] payload) { }
