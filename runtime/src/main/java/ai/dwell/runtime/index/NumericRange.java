package ai.dwell.runtime.index;

/**
 * A numeric range in the term syntax the container sends for range and comparison items:
 * "[low;high]" (inclusive, either end may be empty), "&lt;x", "&gt;x". A hit limit ("[low;high;limit]")
 * is refused.
 */
public record NumericRange(double low, boolean lowInclusive, double high, boolean highInclusive) {

    /** Whether a number is in this range. */
    public boolean contains(double value) {
        return (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high);
    }

    /** Parses the term, or returns null if it is not a range. */
    public static NumericRange parse(String term) {
        try {
            if (term.startsWith("<")) return new NumericRange(Double.NEGATIVE_INFINITY, true, Double.parseDouble(term.substring(1)), false);
            if (term.startsWith(">")) return new NumericRange(Double.parseDouble(term.substring(1)), false, Double.POSITIVE_INFINITY, true);
            if (term.startsWith("[") && term.endsWith("]")) {
                String[] parts = term.substring(1, term.length() - 1).split(";", -1);
                if (parts.length < 2) return null;
                if (parts.length > 2 && ! parts[2].isEmpty())
                    throw new IllegalArgumentException("Range '" + term + "': hit limits (and diversity) in ranges are not supported by this content engine");
                double low = parts[0].isEmpty() ? Double.NEGATIVE_INFINITY : Double.parseDouble(parts[0]);
                double high = parts[1].isEmpty() ? Double.POSITIVE_INFINITY : Double.parseDouble(parts[1]);
                return new NumericRange(low, true, high, true);
            }
            return null;
        }
        catch (NumberFormatException e) {
            return null;
        }
    }

}
