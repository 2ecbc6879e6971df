/** Who may use the runtime's APIs: loopback by default, a bearer token for writes from other machines. */
package ai.dwell.runtime.serve.access;
