package ai.dwell.runtime.rank;

/** A ranked document: which index it is in, its local id and its relevance. */
record RankedHit(String documentType, int lid, double relevance) {
}
