/** A small HTTP server on one daemon thread, for the runtime's state APIs and metrics proxy. */
package ai.dwell.runtime.serve.http;
