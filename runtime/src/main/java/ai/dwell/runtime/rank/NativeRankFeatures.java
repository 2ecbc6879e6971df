package ai.dwell.runtime.rank;

import ai.dwell.runtime.match.RankTerm;
import ai.dwell.runtime.match.TermFieldMatchData;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The native rank features of one query, computed as searchlib computes them (see {@link NativeRankSetup} for their
 * settings):
 * <ul>
 *   <li>nativeFieldMatch: for each query term and index field it searches, a first occurrence table value (at
 *       position·(size−1)/(max(minFieldLength, length)−1)) and an occurrence count table value (at
 *       occurrences·(size−1)/max(minFieldLength, length)), mixed by the first occurrence importance, times the
 *       field's weight over its largest table sum; summed over fields, times the term's significance and weight;
 *       summed over terms and divided by the sum over terms of significance·weight·(their fields' weights);
 *   <li>nativeProximity: per index field, the pairs of the terms searching it that are at most slidingWindowSize−1 apart
 *       in the query, each weighted by (significance·weight of both)·connectedness/(distance in the query); a pair
 *       scores the proximity table at its shortest forward distance in the document and the reverse table at its
 *       shortest reverse distance (past the end of the tables when they do not both occur), mixed by the proximity
 *       importance; a field's pairs are normalized by their weights and the fields by their weights;
 *   <li>nativeAttributeMatch: per query term and attribute it searches, the weight table (symmetric about 0) at the
 *       weight it matched with, times the field's and the term's weights over the largest table value, divided by the
 *       sum of the field and term weight products;
 *   <li>nativeRank: (fieldMatch·fieldMatchWeight + proximity·proximityWeight + attributeMatch·attributeMatchWeight) /
 *       (the sum of the three weights).
 * </ul>
 * Term significance is as proton's "legacy" significance: from the document frequency the request gives
 * (vespa.term.&lt;id&gt;.docfreq), else the significance it gives (vespa.term.&lt;id&gt;.significance), else from the
 * term's document frequency on this content node. Everything that depends on the query only is computed when the
 * features are compiled; a document reads each term's matches in each field once, into reused arrays.
 */
final class NativeRankFeatures {

    /** Searchlib's term distance when two terms do not both occur. */
    static final long UNDEFINED_DISTANCE = 1_000_000;

    private NativeRankFeatures() {}

    /**
     * The query's rank terms in one rank program: their significance, and what each matched in each field of the
     * document last asked for (each term and field read once per document, however many features use it).
     */
    static final class Terms {

        private final List<RankTerm> terms;
        private final QueryProperties query;
        private final Slot[][] slots;
        private final double[] significance;
        private final Set<String> filterFields;

        Terms(List<RankTerm> terms, QueryProperties query) { this(terms, query, Set.of()); }

        /**
         * The terms of a query, where the index fields the profile makes filters (vespa.isfilterfield.field: rank:
         * filter) hold no occurrences, only whether a term matched: proton searches them with bit vectors.
         */
        Terms(List<RankTerm> terms, QueryProperties query, Set<String> filterFields) {
            this.terms = terms;
            this.query = query;
            this.filterFields = filterFields;
            this.slots = new Slot[terms.size()][];
            this.significance = new double[terms.size()];
            for (int t = 0; t < terms.size(); t++) {
                slots[t] = new Slot[terms.get(t).fields().size()];
                significance[t] = NativeRankFeatures.significance(terms.get(t), query);
            }
        }

        int size() { return terms.size(); }
        RankTerm term(int t) { return terms.get(t); }
        double significance(int t) { return significance[t]; }

        /** The matches of term t in its f-th field (its reader made when first asked for). */
        Slot slot(int t, int f) {
            if (slots[t][f] == null) {
                RankTerm.Field field = terms.get(t).fields().get(f);
                RankTerm.Unpacker unpacker = field.unpacker().get();
                slots[t][f] = new Slot( ! field.attribute() && filterFields.contains(field.name())
                                        ? (lid, data) -> {
                                              if ( ! unpacker.unpack(lid, data)) return false;
                                              data.dropOccurrences();
                                              return true;
                                          }
                                        : unpacker);
            }
            return slots[t][f];
        }

        /**
         * The connectedness the request gives between a term and the term before it (vespa.term.&lt;id&gt;.connexity:
         * the previous term's id and the connectedness), else the fallback.
         */
        double connectedness(int uniqueId, int previousUniqueId, double fallback) {
            List<String> values = query.values("vespa.term." + uniqueId + ".connexity");
            if (values.size() == 2 && unsigned(values.get(0)) == previousUniqueId) return number(values.get(1));
            return fallback;
        }

    }

    /** What a term matched in a field of the document last read. */
    static final class Slot {

        private final RankTerm.Unpacker unpacker;
        private final TermFieldMatchData data = new TermFieldMatchData();
        private int lid = -1;
        private boolean matched;

        Slot(RankTerm.Unpacker unpacker) { this.unpacker = unpacker; }

        /** Whether the term matched the document in this field; {@link #data} then holds its occurrences. */
        boolean unpack(int lid) {
            if (lid != this.lid) {
                matched = unpacker.unpack(lid, data);
                this.lid = lid;
            }
            return matched;
        }

        TermFieldMatchData data() { return data; }

    }

    /** A term's significance as proton's features read it (util::get_legacy_significance). */
    static double significance(RankTerm term, QueryProperties query) {
        int id = term.uniqueId();
        if (id != 0) {
            List<String> frequency = query.values("vespa.term." + id + ".docfreq");
            if (frequency.size() == 2) return legacySignificance(unsigned(frequency.get(0)), unsigned(frequency.get(1)));
        }
        double fallback = term.fields().isEmpty() ? legacySignificance(0, 0) : legacySignificance(term.matchingDocuments(), term.totalDocuments());
        Optional<String> given = query.string("vespa.term." + id + ".significance");
        return given.isPresent() ? number(given.get()) : fallback;
    }

    /**
     * The significance of a term matching frequency of count documents: its inverse document frequency in a corpus of a
     * million documents, normalized to [0, 1] and then to [0.5, 1]; 0.5 for no documents.
     */
    static double legacySignificance(double frequency, double count) {
        if (count == 0) return 0.5;
        double n = 1_000_000.0;
        frequency = Math.min(Math.max(1.0, frequency * n / count), n);
        count = n;
        double logCount = Math.log(count);
        double logFrequency = Math.log(frequency);
        double idf = logCount - logFrequency;
        double normalized = idf / logCount;
        return 0.5 + 0.5 * normalized;
    }

    private static long unsigned(String value) {
        try {
            return Long.parseLong(value.trim());
        }
        catch (NumberFormatException e) {
            return 0; // as proton's parsing gives
        }
    }

    private static double number(String value) {
        try {
            return Double.parseDouble(value.trim());
        }
        catch (NumberFormatException e) {
            return 0; // as proton's parsing gives
        }
    }

    /** nativeFieldMatch over the given index fields. */
    static final class FieldMatch extends ScalarNode {

        private final double[] queryWeights; // by kept term
        private final Slot[][] slots; // by kept term, then field
        private final NativeRankSetup.FieldMatchParam[][] params;
        private final double[][] fieldScales;
        private final double scoreScale;
        private final long minFieldLength;

        FieldMatch(NativeRankSetup setup, List<String> fields, Terms terms) {
            this.minFieldLength = setup.minFieldLength();
            List<Double> weights = new ArrayList<>();
            List<Slot[]> termSlots = new ArrayList<>();
            List<NativeRankSetup.FieldMatchParam[]> termParams = new ArrayList<>();
            List<double[]> termScales = new ArrayList<>();
            double divisor = 0;
            for (int t = 0; t < terms.size(); t++) {
                RankTerm term = terms.term(t);
                if (term.weight() == 0) continue; // no contribution
                double queryWeight = terms.significance(t) * term.weight();
                long totalFieldWeight = 0;
                List<Slot> mySlots = new ArrayList<>();
                List<NativeRankSetup.FieldMatchParam> myParams = new ArrayList<>();
                List<Double> myScales = new ArrayList<>();
                for (int f = 0; f < term.fields().size(); f++) {
                    RankTerm.Field field = term.fields().get(f);
                    if (field.attribute() || ! fields.contains(field.name())) continue;
                    NativeRankSetup.FieldMatchParam param = setup.fieldMatch(field.name());
                    if (param.fieldWeight() == 0 || param.filter()) continue;
                    totalFieldWeight = (totalFieldWeight + param.fieldWeight()) & 0xFFFFFFFFL;
                    mySlots.add(terms.slot(t, f));
                    myParams.add(param);
                    myScales.add(param.fieldWeight() / param.maxTableSum());
                }
                if (mySlots.isEmpty()) continue;
                weights.add(queryWeight);
                termSlots.add(mySlots.toArray(Slot[]::new));
                termParams.add(myParams.toArray(NativeRankSetup.FieldMatchParam[]::new));
                termScales.add(myScales.stream().mapToDouble(Double::doubleValue).toArray());
                divisor += queryWeight * totalFieldWeight;
            }
            this.queryWeights = weights.stream().mapToDouble(Double::doubleValue).toArray();
            this.slots = termSlots.toArray(Slot[][]::new);
            this.params = termParams.toArray(NativeRankSetup.FieldMatchParam[][]::new);
            this.fieldScales = termScales.toArray(double[][]::new);
            this.scoreScale = divisor > 0 ? 1.0 / divisor : 1.0;
        }

        @Override
        double number(int lid) {
            double score = 0;
            for (int t = 0; t < slots.length; t++) {
                double termScore = 0;
                for (int f = 0; f < slots[t].length; f++) {
                    if ( ! slots[t][f].unpack(lid)) continue;
                    TermFieldMatchData data = slots[t][f].data();
                    if (data.size() == 0) continue;
                    NativeRankSetup.FieldMatchParam param = params[t][f];
                    long length = param.averageFieldLength().isPresent() ? param.averageFieldLength().getAsLong() : data.fieldLength();
                    double importance = param.firstOccurrenceImportance();
                    termScore += (firstOccurrenceBoost(param.firstOccurrence(), data.position(0), length) * importance
                                  + occurrenceCountBoost(param.occurrenceCount(), data.size(), length) * (1 - importance)) * fieldScales[t][f];
                }
                score += termScore * queryWeights[t];
            }
            return score * scoreScale;
        }

        private double firstOccurrenceBoost(FunctionTable table, long position, long fieldLength) {
            return table.get((position * (table.size() - 1)) / (Math.max(minFieldLength, fieldLength) - 1));
        }

        private double occurrenceCountBoost(FunctionTable table, long occurrences, long fieldLength) {
            return table.get((occurrences * (table.size() - 1)) / Math.max(minFieldLength, fieldLength));
        }

    }

    /** nativeProximity over the given index fields. */
    static final class Proximity extends ScalarNode {

        /** Two terms searching a field, near each other in the query, with what their distances in the document score. */
        private record Pair(Slot first, Slot second, int firstPhraseLength, int secondPhraseLength, double forwardScale, double reverseScale) {}

        /** A field with its pairs. */
        private record FieldPairs(NativeRankSetup.ProximityParam param, Pair[] pairs, double fieldScale) {}

        private final FieldPairs[] fields;
        private final double totalFieldScale;

        Proximity(NativeRankSetup setup, List<String> considered, Terms terms) {
            Map<String, List<int[]>> termsOf = new LinkedHashMap<>(); // by field, in the fields' order: (term, its field) in query order
            for (String field : setup.indexFields()) {
                if ( ! considered.contains(field)) continue;
                NativeRankSetup.ProximityParam param = setup.proximity(field);
                if (param.fieldWeight() == 0 || param.filter()) continue;
                termsOf.put(field, new ArrayList<>());
            }
            for (int t = 0; t < terms.size(); t++)
                for (int f = 0; f < terms.term(t).fields().size(); f++) {
                    RankTerm.Field field = terms.term(t).fields().get(f);
                    if ( ! field.attribute() && termsOf.containsKey(field.name())) termsOf.get(field.name()).add(new int[] { t, f });
                }
            List<FieldPairs> setups = new ArrayList<>();
            long totalFieldWeight = 0;
            for (var entry : termsOf.entrySet()) {
                List<int[]> fieldTerms = entry.getValue();
                if (fieldTerms.size() < 2) continue;
                NativeRankSetup.ProximityParam param = setup.proximity(entry.getKey());
                List<double[]> pairWeights = new ArrayList<>(); // (i, j, pair weight)
                double divisor = 0;
                for (int i = 0; i < fieldTerms.size(); i++) {
                    for (int j = i + 1; j < i + setup.slidingWindow() && j < fieldTerms.size(); j++) {
                        double connectedness = 1;
                        for (int k = j; k > i; k--)
                            connectedness = Math.min(terms.connectedness(terms.term(fieldTerms.get(k)[0]).uniqueId(),
                                                                         terms.term(fieldTerms.get(k - 1)[0]).uniqueId(), 0.1),
                                                     connectedness);
                        connectedness /= (j - i);
                        int first = fieldTerms.get(i)[0], second = fieldTerms.get(j)[0];
                        if (terms.term(first).weight() == 0 && terms.term(second).weight() == 0) continue; // no contribution
                        double pairWeight = (terms.significance(first) * terms.term(first).weight()
                                             + terms.significance(second) * terms.term(second).weight()) * connectedness;
                        pairWeights.add(new double[] { i, j, pairWeight });
                        divisor += pairWeight;
                    }
                }
                if (pairWeights.isEmpty()) continue;
                Pair[] pairs = new Pair[pairWeights.size()];
                for (int p = 0; p < pairs.length; p++) {
                    int[] first = fieldTerms.get((int) pairWeights.get(p)[0]), second = fieldTerms.get((int) pairWeights.get(p)[1]);
                    double pairWeight = pairWeights.get(p)[2];
                    pairs[p] = new Pair(terms.slot(first[0], first[1]), terms.slot(second[0], second[1]),
                                        terms.term(first[0]).phraseLength(), terms.term(second[0]).phraseLength(),
                                        pairWeight * param.proximityImportance() / param.maxTableSum(),
                                        pairWeight * (1 - param.proximityImportance()) / param.maxTableSum());
                }
                double fieldScale = divisor > 0 ? (double) param.fieldWeight() / divisor : (double) param.fieldWeight();
                setups.add(new FieldPairs(param, pairs, fieldScale));
                totalFieldWeight = (totalFieldWeight + param.fieldWeight()) & 0xFFFFFFFFL;
            }
            this.fields = setups.toArray(FieldPairs[]::new);
            this.totalFieldScale = totalFieldWeight > 0 ? 1.0 / totalFieldWeight : 1.0;
        }

        @Override
        double number(int lid) {
            double score = 0;
            for (FieldPairs field : fields) {
                double fieldScore = 0;
                for (Pair pair : field.pairs()) fieldScore += score(pair, field.param(), lid);
                score += fieldScore * field.fieldScale();
            }
            return score * totalFieldScale;
        }

        private static double score(Pair pair, NativeRankSetup.ProximityParam param, int lid) {
            long forward = UNDEFINED_DISTANCE, reverse = UNDEFINED_DISTANCE;
            if (pair.first().unpack(lid) && pair.second().unpack(lid)) {
                forward = shortestDistance(pair.first().data(), pair.second().data(), param, pair.firstPhraseLength());
                reverse = shortestDistance(pair.second().data(), pair.first().data(), param, pair.secondPhraseLength());
            }
            long forwardIndex = forward > 0 ? forward - 1 : 0, reverseIndex = reverse > 0 ? reverse - 1 : 0;
            return param.proximity().get(forwardIndex) * pair.forwardScale() + param.reverseProximity().get(reverseIndex) * pair.reverseScale();
        }

    }

    /**
     * The shortest distance from an occurrence of x (the end of it, for a phrase of several words) forward to one of y,
     * in the same element, or, with an element gap, in the next element (the rest of x's element and the gap between);
     * {@link #UNDEFINED_DISTANCE} when there is none nearer (searchlib's TermDistanceCalculator).
     */
    static long shortestDistance(TermFieldMatchData x, TermFieldMatchData y, NativeRankSetup.ProximityParam param, int phraseLengthOfX) {
        long best = UNDEFINED_DISTANCE;
        long addX = phraseLengthOfX - 1;
        boolean gapped = param.elementGap().isPresent();
        long gap = gapped ? param.elementGap().getAsLong() : 0;
        int a = 0, b = 0;
        while (a < x.size() && b < y.size()) {
            long elementOfY = y.element(b), elementOfX = x.element(a);
            if (elementOfX > elementOfY || (elementOfX == elementOfY && x.position(a) + addX >= y.position(b))) {
                b++;
            }
            else if (elementOfX + (gapped ? 1 : 0) < elementOfY) {
                a++;
            }
            else {
                long from = (x.position(a) + addX) & 0xFFFFFFFFL;
                long to = (y.position(b) + (elementOfX == elementOfY ? 0 : x.elementLength(a) + gap)) & 0xFFFFFFFFL;
                long distance = (to - from) & 0xFFFFFFFFL;
                if (distance < best) best = distance;
                a++;
            }
        }
        return best;
    }

    /** nativeAttributeMatch over the given attributes. */
    static final class AttributeMatch extends ScalarNode {

        private final Slot[] slots;
        private final FunctionTable[] tables;
        private final double[] scales;
        private final double divisor;

        AttributeMatch(NativeRankSetup setup, List<String> fields, Terms terms) {
            List<Slot> slots = new ArrayList<>();
            List<FunctionTable> tables = new ArrayList<>();
            List<Double> scales = new ArrayList<>();
            double divisor = 0;
            for (int t = 0; t < terms.size(); t++) {
                RankTerm term = terms.term(t);
                if (term.weight() == 0) continue; // no contribution
                for (int f = 0; f < term.fields().size(); f++) {
                    RankTerm.Field field = term.fields().get(f);
                    if ( ! field.attribute() || ! fields.contains(field.name())) continue;
                    NativeRankSetup.AttributeParam param = setup.attributeMatch(field.name());
                    if (param == null || param.fieldWeight() == 0) continue;
                    long product = (param.fieldWeight() * (term.weight() & 0xFFFFFFFFL)) & 0xFFFFFFFFL; // proton multiplies as unsigned 32-bit
                    slots.add(terms.slot(t, f));
                    tables.add(param.weights());
                    scales.add(product / param.maxTableSum());
                    divisor += product;
                }
            }
            this.slots = slots.toArray(Slot[]::new);
            this.tables = tables.toArray(FunctionTable[]::new);
            this.scales = scales.stream().mapToDouble(Double::doubleValue).toArray();
            if (this.slots.length == 1) this.scales[0] /= divisor; // as proton's executor for a single term
            this.divisor = divisor;
        }

        @Override
        double number(int lid) {
            if (slots.length == 0) return 0;
            if (slots.length == 1)
                return slots[0].unpack(lid) ? tables[0].symmetric(slots[0].data().weight()) * scales[0] : 0;
            double score = 0;
            for (int i = 0; i < slots.length; i++)
                if (slots[i].unpack(lid)) score += tables[i].symmetric(slots[i].data().weight()) * scales[i];
            return score / divisor;
        }

    }

    /** nativeRank: the weighted mean of its three parts. */
    static final class NativeRank extends ScalarNode {

        private final Node fieldMatch, proximity, attributeMatch;
        private final double fieldMatchWeight, proximityWeight, attributeMatchWeight, divisor;

        NativeRank(Node fieldMatch, Node proximity, Node attributeMatch, NativeRankSetup setup) {
            this.fieldMatch = fieldMatch;
            this.proximity = proximity;
            this.attributeMatch = attributeMatch;
            this.fieldMatchWeight = setup.fieldMatchWeight();
            this.proximityWeight = setup.proximityWeight();
            this.attributeMatchWeight = setup.attributeMatchWeight();
            double sum = 0;
            sum += fieldMatchWeight;
            sum += attributeMatchWeight;
            sum += proximityWeight;
            this.divisor = sum;
        }

        @Override
        double number(int lid) {
            if ( ! (proximityWeight + fieldMatchWeight + attributeMatchWeight > 0)) return 0;
            return (fieldMatch.number(lid) * fieldMatchWeight + proximity.number(lid) * proximityWeight
                    + attributeMatch.number(lid) * attributeMatchWeight) / divisor;
        }

    }

}
