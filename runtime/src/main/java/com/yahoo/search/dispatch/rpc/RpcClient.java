package com.yahoo.search.dispatch.rpc;

import ai.dwell.runtime.format.BixCodec;
import ai.dwell.runtime.serve.rpc.InProcessNodes;
import ai.dwell.runtime.serve.rpc.ProtonRpcServer;
import com.yahoo.compress.CompressionType;

/**
 * The runtime's own class in the place of the container's dispatch client of the same name (earlier on the class path,
 * as LocalFileDb; written for the runtime, with the constructor, nested connection class and methods the container's
 * RpcResourcePool calls). Every content node the runtime's container dispatches to listens in the same JVM, so a
 * connection hands each request, as the bix values it would have sent over jrt, to the node given its host name and port
 * ({@link ProtonRpcServer#serveInProcess}), and the node's reply, the same bytes, back to the dispatcher: no socket,
 * no framing, no transport thread on either side: on the medium corpus these cost 0.34 ms of CPU per view (three
 * searches and up to three summary requests over loopback; bench/results/performance.md). A host and port no node of this JVM listens on answer
 * as a connection that cannot be made does.
 */
public class RpcClient implements Client {

    public RpcClient(String name, int transportThreads) { }

    @Override
    public void close() { }

    @Override
    public NodeConnection createConnection(String hostname, int port) {
        return new RpcNodeConnection(hostname, port);
    }

    /** A connection to the content node listening on a port of this JVM; found at each request by host name and port, as nodes come and go with deployments. */
    static class RpcNodeConnection implements NodeConnection {

        private final String hostname;
        private final int port;
        private final String description;

        RpcNodeConnection(String hostname, int port) {
            this.hostname = hostname;
            this.port = port;
            this.description = "in-process node connection to " + hostname + ":" + port;
        }

        public String getHostname() { return hostname; }

        public int getPort() { return port; }

        @Override
        public void request(String rpcMethod, CompressionType compression, int uncompressedLength, byte[] compressedPayload,
                            ResponseReceiver responseReceiver, double timeoutSeconds) {
            ProtonRpcServer node = InProcessNodes.listeningOn(hostname, port).orElse(null);
            if (node == null) {
                responseReceiver.receive(ResponseOrError.fromError("Error response from " + this + ": Connection error"));
                return;
            }
            node.serveInProcess(rpcMethod, compression.getCode(), uncompressedLength, compressedPayload, new ProtonRpcServer.InProcessReceiver() {
                @Override public void reply(BixCodec.Encoded reply) {
                    responseReceiver.receive(ResponseOrError.fromResponse(new ProtobufResponse(reply.compression(), reply.uncompressedSize(), reply.data())));
                }
                @Override public void error(String message) {
                    responseReceiver.receive(ResponseOrError.fromError("Error response from " + RpcNodeConnection.this + ": " + message));
                }
            });
        }

        @Override
        public void close() { }

        @Override
        public String toString() { return description; }

    }

}
