/**
 * The durable document store of the local runtime, standing in for proton's document store and
 * transaction log: every document of every type in memory, made durable by a group-committed
 * transaction log, with snapshots to bound recovery. {@link ai.dwell.runtime.storage.DocumentStore} is the entry point.
 *
 * <p>The data directory holds {@code log-<first serial>.seg} segments and {@code snapshot-<serial>.snap}
 * snapshots. Both are a 12-byte {@link ai.dwell.runtime.format.FileHeader} (magic, serial) followed by entries
 * framed as {@link ai.dwell.runtime.format.Records} (length, CRC32C, body) with the body of
 * {@link ai.dwell.runtime.storage.EntryFormat}: serial, timestamp, kind, payload. A log entry
 * holds the complete new document (Vespa's binary serialization) or the id of a removed document, so
 * replay is idempotent, or (SKIP) the first of serial numbers never written because the disk had no room for
 * their writes, which failed. In memory, documents are kept in that same serialization, and decoded when read.
 */
package ai.dwell.runtime.storage;
