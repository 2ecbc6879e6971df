/** The content nodes' state API (/state/v1/health, /state/v1/metrics), where proton serves it. */
package ai.dwell.runtime.serve.state;
