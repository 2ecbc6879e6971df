/**
 * Metrics as Vespa's metrics proxy serves them to the container's /metrics/v2/values and /prometheus/v1/values:
 * the container's own, and the content nodes' under proton's names.
 */
package ai.dwell.runtime.serve.metrics;
