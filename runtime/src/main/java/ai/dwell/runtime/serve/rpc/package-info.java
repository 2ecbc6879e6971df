/**
 * The server side of proton's search RPC protocol ({@code vespa.searchprotocol.ping}, {@code .search},
 * {@code .getDocsums}), so that the real Dispatcher in the container talks to our content engine, a
 * {@link ai.dwell.runtime.engine.SearchBackend}, exactly as it would to a content node:
 * {@link ai.dwell.runtime.serve.rpc.ProtonRpcServer}, with {@link ai.dwell.runtime.serve.rpc.SearchReplies} and
 * {@link ai.dwell.runtime.serve.rpc.DocsumSlime} to build replies.
 */
package ai.dwell.runtime.serve.rpc;
