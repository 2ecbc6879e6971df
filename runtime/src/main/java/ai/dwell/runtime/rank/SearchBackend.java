package ai.dwell.runtime.rank;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;

/**
 * One content node (shard) as the search protocol sees it. Implemented by the content engine.
 *
 * <p>This is the contract of proton's search RPC protocol ({@code vespa.searchprotocol.*}): the container's
 * Dispatcher sends these messages to the node, and {@code ai.dwell.runtime.serve.rpc.ProtonRpcServer} hands
 * them to this. Methods are called concurrently, from worker threads; pings on a thread of their own,
 * so that a slow search does not take the node out of service.
 * An exception thrown from {@link #search} or {@link #getDocsums} reaches the query as an error;
 * one thrown from {@link #ping} makes the dispatcher take the node out of service.
 */
public interface SearchBackend {

    /**
     * The node's state for pings: distribution key, active docs etc.
     *
     * <p>The reply must carry {@code distribution_key} equal to this node's key in the model
     * ({@code DispatchNodesConfig}); a different key, or {@code online=false}, takes the node out of service.
     * {@code active_docs} and {@code target_active_docs} are the searchable and the expected number of documents;
     * {@code is_blocking_writes} is true when the node is full.
     */
    SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request);

    /**
     * Matches and ranks; hits carry 12-byte global ids.
     *
     * <p>The request names the {@code document_type}, {@code rank_profile}, {@code rank_properties}, the
     * {@code feature_overrides} and {@code tensor_feature_overrides} (query tensors, in
     * {@code TypedBinaryFormat}), {@code sorting}, {@code grouping_blob}, {@code trace_level} and the structured
     * {@code query_tree}. Return the hits at [{@code offset}, {@code offset + hits}) of this node's ranked list,
     * best first, each with its global id ({@code new DocumentId(id).getGlobalId()}), its relevance
     * and, when sorting, its {@code sort_data}.
     * Set {@code total_hit_count}, and coverage as {@code coverage_docs} (documents searched),
     * {@code active_docs} and {@code target_active_docs}; coverage is full when all three are equal.
     * Match features go in {@code match_feature_names} once, and then in each hit's {@code match_features},
     * one per name in that order: a {@code number}, or a {@code tensor} in {@code TypedBinaryFormat}.
     * Problems go in {@code errors}; they reach the query result as errors.
     * {@code ai.dwell.runtime.serve.rpc.SearchReplies} builds hits and features.
     */
    SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request);

    /**
     * Summaries for the requested global ids, in request order: slime_summaries is binary Slime
     * {docsums:[{docsum:{...}}], errors:[...]}.
     *
     * <p>The request names the {@code summary_class} (the container sends {@code default} unless the query asks for
     * another), the {@code global_ids}, and, when the query selects fields (YQL {@code select title from ...}), the
     * only {@code fields} wanted; without {@code documentid} among them the hit's id is made from its global id.
     * When the summary needs the query (dynamic fields, summary features) the request also carries the query tree
     * and rank properties, as in a search request.
     * The reply's {@code slime_summaries} must be {@link com.yahoo.slime.BinaryFormat binary Slime} of this shape:
     * <pre>
     * {
     *   "docsums": [                       one entry per requested global id, in request order
     *     { "docsum": { field: value, ... } },
     *     { },                             a document not on this node: an entry without "docsum"
     *     ...
     *   ],
     *   "errors": [ { "type": "timeout", "message": "..." } ]      optional; another type is a plain error
     * }
     * </pre>
     * Field names are those of the summary class, and the container converts each value by the field's
     * summary type (as the config model derives it: string fields are {@code longstring}, int {@code integer},
     * long {@code int64}); fields not in that class, or not asked for, are dropped. Values are:
     * <ul>
     *   <li>{@code string}, {@code longstring} (as {@code documentid}, the full document id string)
     *       and {@code xmlstring}: a Slime string;</li>
     *   <li>{@code byte}, {@code short}, {@code integer}, {@code int64}: a Slime long;</li>
     *   <li>{@code float}, {@code double}, {@code float16}: a Slime double;</li>
     *   <li>{@code bool}: a Slime bool;</li>
     *   <li>{@code raw}, {@code data}, {@code longdata}: Slime data;</li>
     *   <li>{@code tensor}: Slime data holding the tensor in {@code TypedBinaryFormat};</li>
     *   <li>{@code jsonstring} (arrays, weighted sets, maps, structs, positions): the structure itself as Slime
     *       arrays and objects (a weighted set is an array of {@code {item, weight}}, a map an array of
     *       {@code {key, value}}), or a string holding JSON;</li>
     *   <li>{@code featuredata} ({@code summaryfeatures}, {@code rankfeatures}): an object from feature name to
     *       a double, or to data holding a tensor in {@code TypedBinaryFormat}.</li>
     * </ul>
     * Match features are not summary fields: they come with the search reply and reach the hit as
     * {@code matchfeatures}. {@code ai.dwell.runtime.serve.rpc.DocsumSlime} builds this Slime.
     * Problems may also go in the reply's protobuf {@code errors}.
     */
    SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request);

}
