package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.RankTerm;

import java.util.ArrayList;
import java.util.List;

/** bm25, over the ranked query terms that search one indexed field (the native rank features are in {@link NativeRankFeatures}). */
final class TextFeatures {

    private TextFeatures() {}

    /**
     * bm25(field), as proton's Bm25Executor: the sum over the ranked terms searching the field that matched the document
     * in it (with occurrences) of idf · tf·(k1+1) / (tf + k1·(1 − b + b·fieldLength/averageFieldLength)); k1 and b 1.2
     * and 0.75 unless the profile sets bm25(field).k1 and .b, averageFieldLength this node's (see
     * {@link IndexStatisticsFeatures}) unless it sets bm25(field).averageFieldLength, fieldLength the document's whole
     * field (an array's elements summed). A term's idf is log(1 + (N − n + 0.5)/(n + 0.5)) of the document frequency
     * the request gives it (vespa.term.&lt;id&gt;.docfreq: n and N), else the significance it gives
     * (vespa.term.&lt;id&gt;.significance) as the idf, else of the term's frequency on this node, which proton
     * propagates to every field the term searches: the documents its fields match, summed, over this node's documents
     * (so a term searching a fieldset has one idf in all its fields); n is at least 1 and at most N.
     */
    static final class Bm25 extends ScalarNode {
        private final TextIndex index;
        private final NativeRankFeatures.Slot[] slots;
        private final double[] idfTimesK1PlusOne;
        private final double k1TimesB, k1TimesOneMinusB, averageLength;

        Bm25(TextIndex index, NativeRankFeatures.Terms terms, QueryProperties query, double k1, double b, double averageFieldLength) {
            this.index = index;
            this.k1TimesB = k1 * b;
            this.k1TimesOneMinusB = k1 * (1 - b);
            this.averageLength = Math.max(1e-9, averageFieldLength);
            Bm25Terms bm25Terms = Bm25Terms.of(index, terms, query, k1);
            this.slots = bm25Terms.slots();
            this.idfTimesK1PlusOne = bm25Terms.idfTimesK1PlusOne();
        }

        @Override double number(int lid) {
            double score = 0;
            double norm = k1TimesOneMinusB + k1TimesB * index.fieldLength(lid) / averageLength;
            for (int i = 0; i < slots.length; i++) {
                if ( ! slots[i].unpack(lid)) continue;
                int tf = slots[i].data().size();
                if (tf == 0) continue; // matched without occurrences: proton reads such a term as a filter, without ranking data
                score += idfTimesK1PlusOne[i] * tf / (tf + norm);
            }
            return score;
        }
    }

    /**
     * The query terms bm25 of an index field scores (the match data slot of each term on the field) and each one's idf
     * times k1 + 1: what bm25(field) and elementwise(bm25(field),...) sum over.
     */
    record Bm25Terms(NativeRankFeatures.Slot[] slots, double[] idfTimesK1PlusOne) {
        static Bm25Terms of(TextIndex index, NativeRankFeatures.Terms terms, QueryProperties query, double k1) {
            List<NativeRankFeatures.Slot> slots = new ArrayList<>();
            List<Double> idf = new ArrayList<>();
            for (int t = 0; t < terms.size(); t++) {
                List<RankTerm.Field> fields = terms.term(t).fields();
                for (int f = 0; f < fields.size(); f++) {
                    if ( ! fields.get(f).name().equals(index.field()) || fields.get(f).attribute()) continue;
                    slots.add(terms.slot(t, f));
                    idf.add(inverseDocumentFrequency(terms.term(t), query) * (k1 + 1));
                }
            }
            return new Bm25Terms(slots.toArray(NativeRankFeatures.Slot[]::new), idf.stream().mapToDouble(Double::doubleValue).toArray());
        }
    }

    /** A term's idf as proton's Bm25Utils gives it (see {@link Bm25}). */
    static double inverseDocumentFrequency(RankTerm term, QueryProperties query) {
        int id = term.uniqueId();
        if (id != 0) {
            List<String> given = query.values("vespa.term." + id + ".docfreq");
            if (given.size() == 2) return inverseDocumentFrequency(number(given.get(0)), number(given.get(1)));
        }
        double fallback = inverseDocumentFrequency(term.matchingDocuments(), term.totalDocuments());
        return query.string("vespa.term." + id + ".significance").map(TextFeatures::number).orElse(fallback);
    }

    static double inverseDocumentFrequency(double frequency, double count) {
        count = Math.max(1, count);
        frequency = Math.min(Math.max(1, frequency), count);
        return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
    }

    private static double number(String value) {
        try {
            return Double.parseDouble(value.trim());
        }
        catch (NumberFormatException e) {
            return 0; // as proton's parsing gives
        }
    }

}
