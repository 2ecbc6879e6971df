package ai.dwell.runtime.rank;

/**
 * A node that remembers its value for the last document it computed, so that expressions sharing it compute it once
 * per document. What it remembers holds within one query only: a program is reused by later queries, in which the
 * document's attributes or the clock's second may differ. The compiler registers every such node of a program and has
 * each forget at the start of a query.
 */
interface Memo {

    /** Forgets the remembered document, so that the next one asked for is computed. */
    void forget();

}
