/**
 * The durable document store of the local runtime: every document of every type, in memory,
 * made durable by a group-committed transaction log with periodic snapshots, standing in for
 * proton's document store and transaction log server.
 *
 * <p>{@link ai.dwell.runtime.storage.DocumentStore} is the entry point.
 */
package ai.dwell.runtime.storage;
