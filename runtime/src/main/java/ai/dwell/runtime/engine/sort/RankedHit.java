package ai.dwell.runtime.engine.sort;

/** A ranked document as a search collects it: which index it is in, its local id, its relevance, and its sort blob when the query sorts (else null). */
public record RankedHit(String documentType, int lid, double relevance, byte[] sortData) {
}
