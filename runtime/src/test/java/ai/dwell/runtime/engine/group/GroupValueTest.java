package ai.dwell.runtime.engine.group;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-document values of grouping expressions against independent computations (java.time, C's printf). */
public class GroupValueTest {

    @Test
    void timePartsAreThoseOfUtcAsGmtimeGivesThem() {
        Random random = new Random(7);
        for (int i = 0; i < 20000; i++) {
            long seconds = (random.nextLong() % 20_000_000_000L); // about 1336 to 2603
            ZonedDateTime t = Instant.ofEpochSecond(seconds).atZone(ZoneOffset.UTC);
            assertEquals(t.getYear(), part(seconds, FunctionValues.TimePart.Part.YEAR), "year of " + seconds);
            assertEquals(t.getMonthValue(), part(seconds, FunctionValues.TimePart.Part.MONTH));
            assertEquals(t.getDayOfMonth(), part(seconds, FunctionValues.TimePart.Part.MONTH_DAY));
            assertEquals(t.getDayOfWeek().getValue() % 7, part(seconds, FunctionValues.TimePart.Part.WEEK_DAY));
            assertEquals(t.getHour(), part(seconds, FunctionValues.TimePart.Part.HOUR));
            assertEquals(t.getMinute(), part(seconds, FunctionValues.TimePart.Part.MINUTE));
            assertEquals(t.getSecond(), part(seconds, FunctionValues.TimePart.Part.SECOND));
            assertEquals(t.getDayOfYear() - 1, part(seconds, FunctionValues.TimePart.Part.YEAR_DAY), "day of year of " + t);
        }
        // 2006-09-06 07:00:00 UTC, the first purchase of the grouping guide: a Wednesday
        assertEquals(3, part(1157526000L, FunctionValues.TimePart.Part.WEEK_DAY));
        assertEquals(7, part(1157526000L, FunctionValues.TimePart.Part.HOUR));
    }

    @Test
    void groupIdHashesAreProtonsResultNodeHashes() {
        assertEquals(0x6e6e61L, GroupClassifier.hashOf("ann")); // the UTF-8 bytes as a little-endian word
        assertEquals(0x6867666564636261L ^ 0x69L, GroupClassifier.hashOf("abcdefghi")); // words xor-ed, the rest zero-filled
        assertEquals(0L, GroupClassifier.hashOf(""));
        assertEquals(0xa9c3L, GroupClassifier.hashOf("\u00e9")); // é is c3 a9
        assertEquals(-7L, GroupClassifier.hashOf(new com.yahoo.searchlib.expression.IntegerResultNode(-7)));
        assertEquals(0x3ff8000000000000L, GroupClassifier.hashOf(new com.yahoo.searchlib.expression.FloatResultNode(1.5)));
        assertEquals(1000L, GroupClassifier.hashOf(new com.yahoo.searchlib.expression.IntegerBucketResultNode(1000, 2000)));
    }

    @Test
    void ucaSortKeysOrderAsTheLocalesCollation() {
        // against the JDK's own collator (java.text, not ICU): Swedish puts ö after z, German before; PRIMARY ignores case
        List<String> words = List.of("zebra", "\u00f6l", "apple", "Apple", "\u00e5r", "ost");
        for (String locale : List.of("sv", "de", "en")) {
            java.text.Collator jdk = java.text.Collator.getInstance(java.util.Locale.forLanguageTag(locale));
            jdk.setStrength(java.text.Collator.TERTIARY);
            for (String a : words) for (String b : words) {
                int ours = java.util.Arrays.compareUnsigned(key(a, locale, "TERTIARY"), key(b, locale, "TERTIARY"));
                assertEquals(Integer.signum(jdk.compare(a, b)), Integer.signum(ours), a + " vs " + b + " in " + locale);
            }
        }
        assertEquals(java.util.Arrays.toString(key("Apple", "en", "PRIMARY")), java.util.Arrays.toString(key("apple", "en", "PRIMARY")));
        assertEquals(java.util.Arrays.toString(key("Apple", "en", "")), java.util.Arrays.toString(key("apple", "en", "")));
        assertTrue(java.util.Arrays.compareUnsigned(key("Apple", "en", "TERTIARY"), key("apple", "en", "TERTIARY")) != 0);
        byte[] key = key("a", "en", "TERTIARY");
        assertEquals(0, key[key.length - 1]); // ICU's terminating 0, as getSortKey writes it
    }

    private static byte[] key(String text, String locale, String strength) {
        return new BytesValues.CollationKey(new LeafValues.StringConstant(text), locale, strength).raw(0, 0);
    }

    @Test
    void floatsAsStringsAreCsPercentG() {
        // printf("%g") of each, written down from C
        List<double[]> cases = List.of(new double[] { 0.5 }, new double[] { 100 }, new double[] { 1e6 }, new double[] { 123456.7 },
                                       new double[] { 0.0001 }, new double[] { 0.00001234 }, new double[] { -2.5 }, new double[] { 1.0 / 3 });
        List<String> expected = List.of("0.5", "100", "1e+06", "123457", "0.0001", "1.234e-05", "-2.5", "0.333333");
        for (int i = 0; i < cases.size(); i++) assertEquals(expected.get(i), NumberText.g(cases.get(i)[0]));
        assertEquals(12, NumberText.leadingInteger(" 12abc"));
        assertEquals(0, NumberText.leadingInteger("Smith"));
        assertEquals(31, NumberText.leadingInteger("0x1fz")); // strtoll base 0: hex, octal
        assertEquals(8, NumberText.leadingInteger("010"));
        assertEquals(-7, NumberText.leadingInteger("-7.9"));
        assertEquals(Long.MAX_VALUE, NumberText.leadingInteger("99999999999999999999"));
        assertEquals(-1.5e3, NumberText.leadingFloat("-1.5e3x"));
        assertEquals(3, GroupValue.roundToLong(2.5));
        assertEquals(-3, GroupValue.roundToLong(-2.5)); // half away from zero, as C's round
    }

    @Test
    void arithmeticFoldsInTheArgumentsType() {
        GroupValue seven = new LeafValues.IntegerConstant(7), two = new LeafValues.IntegerConstant(2), half = new LeafValues.FloatConstant(0.5);
        assertEquals(3, new ArithmeticValue(ArithmeticValue.Operation.DIVIDE, List.of(seven, two)).integer(0, 0));
        assertEquals(0, new ArithmeticValue(ArithmeticValue.Operation.DIVIDE, List.of(seven, new LeafValues.IntegerConstant(0))).integer(0, 0));
        ArithmeticValue mixed = new ArithmeticValue(ArithmeticValue.Operation.DIVIDE, List.of(seven, half));
        assertEquals(GroupValue.Type.FLOAT, mixed.type());
        assertEquals(14.0, mixed.floating(0, 0));
        assertEquals(1, new ArithmeticValue(ArithmeticValue.Operation.MODULO, List.of(seven, two)).integer(0, 0));
        assertEquals(-5, new FunctionValues.Negate(new ArithmeticValue(ArithmeticValue.Operation.ADD, List.of(seven, new LeafValues.IntegerConstant(-2)))).integer(0, 0));
        assertEquals("2006-9-6", new FunctionValues.StringConcatenation(new GroupValue[] {
                new LeafValues.IntegerConstant(2006), new LeafValues.StringConstant("-"), new LeafValues.IntegerConstant(9),
                new LeafValues.StringConstant("-"), new LeafValues.IntegerConstant(6) }).string(0, 0));
    }

    private static long part(long seconds, FunctionValues.TimePart.Part part) {
        return new FunctionValues.TimePart(new LeafValues.IntegerConstant(seconds), part).integer(0, 0);
    }

}
