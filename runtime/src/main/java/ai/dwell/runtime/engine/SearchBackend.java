package ai.dwell.runtime.engine;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;

/** One content node (shard) as the search protocol sees it. Implemented by the content engine. */
public interface SearchBackend {
    /** The node's state for pings: distribution key, active docs etc. */
    SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request);
    /** Matches and ranks; hits carry 12-byte global ids. */
    SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request);
    /** Summaries for the requested global ids, in request order: slime_summaries is binary Slime {docsums:[{docsum:{...}}], errors:[...]}. */
    SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request);
}
