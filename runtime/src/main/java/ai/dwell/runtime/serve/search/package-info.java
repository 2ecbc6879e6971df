/**
 * Admission of queries: the search handler's thread pool bounds how many queries wait, and
 * {@link ai.dwell.runtime.serve.search.SearchWaitGuard} decides, with its
 * {@link ai.dwell.runtime.serve.search.SearchQueue}, which runs next (oldest first, newest first
 * once backed up), how long one may wait, and how many run at once.
 */
package ai.dwell.runtime.serve.search;
