/**
 * Admission of queries: the search handler's thread pool bounds how many queries wait, and
 * {@link ai.dwell.runtime.serve.search.SearchWaitGuard} bounds how long each waits.
 */
package ai.dwell.runtime.serve.search;
