package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.rank.UnsupportedFeatureException;

/**
 * One key of a sort spec as proton parses it (searchlib common/sortspec): the attribute, or [rank] or [docid],
 * the order, whether strings are lowercased (lowercase(x)), and the policy for documents without a value
 * (missing(x,first|last|as,value)). The container sends one such serial form per protobuf SortField
 * (see ai.dwell.runtime.engine.query.ProtobufRequests#sorting).
 */
public record SortField(String attribute, boolean ascending, boolean lowercase, MissingPolicy missingPolicy, String missingValue) {

    /** What to sort documents without a value as. */
    public enum MissingPolicy { DEFAULT, FIRST, LAST, AS }

    static final String RANK = "[rank]";
    static final String DOCID = "[docid]";

    /** Parses the serial form of one sort field, as container-search's Sorting.FieldOrder.toSerialForm(false) writes it. */
    public static SortField parse(String spec, boolean ascending) {
        Tokenizer tokenizer = new Tokenizer(spec);
        String function = tokenizer.token();
        boolean inMissing = false;
        if (tokenizer.peek() == '(' && function.equals("missing")) {
            inMissing = true;
            tokenizer.step();
            function = tokenizer.token();
        }
        String attribute;
        boolean lowercase = false;
        if (tokenizer.peek() == '(') {
            tokenizer.step();
            if ( ! function.equals("lowercase"))
                throw new UnsupportedFeatureException("Sort function '" + function + "' in '" + spec + "' is not supported by this content engine");
            attribute = tokenizer.token();
            tokenizer.expect(')');
            lowercase = true;
        }
        else {
            attribute = function;
        }
        MissingPolicy policy = MissingPolicy.DEFAULT;
        String missingValue = "";
        if (inMissing) {
            tokenizer.expect(',');
            String name = tokenizer.token();
            policy = switch (name) {
                case "first" -> MissingPolicy.FIRST;
                case "last" -> MissingPolicy.LAST;
                case "as" -> MissingPolicy.AS;
                default -> throw new IllegalArgumentException("Unknown missing policy '" + name + "' in sort spec '" + spec + "'");
            };
            if (policy == MissingPolicy.AS) {
                tokenizer.expect(',');
                missingValue = tokenizer.peek() == '"' ? tokenizer.dequote() : tokenizer.token();
            }
            tokenizer.expect(')');
        }
        if (tokenizer.valid()) throw new IllegalArgumentException("Unexpected '" + tokenizer.rest() + "' in sort spec '" + spec + "'");
        if (attribute.isEmpty()) throw new IllegalArgumentException("No attribute in sort spec '" + spec + "'");
        return new SortField(attribute, ascending, lowercase, policy, missingValue);
    }

    /** Splits a sort spec at proton's delimiters. */
    private static final class Tokenizer {

        private static final String DELIMITERS = ",()\\\" ";
        private final String spec;
        private int position = 0;

        Tokenizer(String spec) { this.spec = spec; }

        boolean valid() { return position < spec.length(); }
        char peek() { return valid() ? spec.charAt(position) : '\0'; }
        void step() { if (valid()) position++; }
        String rest() { return spec.substring(position); }

        String token() {
            int start = position;
            while (valid() && DELIMITERS.indexOf(spec.charAt(position)) < 0) position++;
            return spec.substring(start, position);
        }

        void expect(char wanted) {
            if (peek() != wanted)
                throw new IllegalArgumentException("Expected '" + wanted + "' at position " + position + " of sort spec '" + spec + "'");
            step();
        }

        String dequote() {
            StringBuilder result = new StringBuilder();
            expect('"');
            while (valid() && peek() != '"') {
                result.append(token());
                if ( ! valid()) break;
                char c = peek();
                if (c == '\\') {
                    step();
                    c = peek();
                    if (c != '\\' && c != '"') throw new IllegalArgumentException("Bad escape in sort spec '" + spec + "'");
                    result.append(c);
                    step();
                }
                else if (c != '"') {
                    result.append(c);
                    step();
                }
            }
            expect('"');
            return result.toString();
        }

    }

}
