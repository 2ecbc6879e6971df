package ai.dwell.runtime.engine.group;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** Numbers to and from text as proton's result nodes convert them (C's %g, and the leading number of a string). */
final class NumberText {

    private NumberText() {}

    /** As C's printf("%g"): 6 significant digits, trailing zeros removed, exponent form below 1e-4 and from 1e6. */
    static String g(double value) {
        if (Double.isNaN(value)) return value < 0 ? "-nan" : "nan";
        if (Double.isInfinite(value)) return value > 0 ? "inf" : "-inf";
        if (value == 0) return (1 / value < 0) ? "-0" : "0";
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            BigDecimal mantissa = rounded.movePointLeft(exponent).stripTrailingZeros();
            String digits = mantissa.scale() <= 0 ? mantissa.setScale(0).toPlainString() : mantissa.toPlainString();
            return digits + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        BigDecimal plain = rounded.stripTrailingZeros();
        return plain.scale() <= 0 ? plain.setScale(0).toPlainString() : plain.toPlainString();
    }

    /**
     * The integer a string starts with, 0 if none, as strtoll with base 0 (proton's StringResultNode::getInteger):
     * after blanks and a sign, 0x and hex digits, or 0 and octal digits, or decimal digits; saturating.
     */
    static long leadingInteger(String text) {
        int i = skipBlanks(text, 0);
        boolean negative = false;
        if (i < text.length() && (text.charAt(i) == '-' || text.charAt(i) == '+')) negative = text.charAt(i++) == '-';
        int radix = 10;
        if ((text.startsWith("0x", i) || text.startsWith("0X", i)) && i + 2 < text.length() && Character.digit(text.charAt(i + 2), 16) >= 0) {
            radix = 16;
            i += 2;
        }
        else if (i < text.length() && text.charAt(i) == '0') {
            radix = 8;
        }
        long value = 0;
        boolean overflow = false;
        for (; i < text.length(); i++) {
            int digit = text.charAt(i) < 128 ? Character.digit(text.charAt(i), radix) : -1;
            if (digit < 0) break;
            if (value > (Long.MAX_VALUE - digit) / radix) overflow = true;
            else value = value * radix + digit;
        }
        if (overflow) return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        return negative ? -value : value;
    }

    /** The decimal number a string starts with, 0 if none, as strtod. */
    static double leadingFloat(String text) {
        int i = skipBlanks(text, 0);
        int start = i;
        if (i < text.length() && (text.charAt(i) == '-' || text.charAt(i) == '+')) i++;
        int mantissa = i;
        while (i < text.length() && isDigit(text.charAt(i))) i++;
        if (i < text.length() && text.charAt(i) == '.') {
            i++;
            while (i < text.length() && isDigit(text.charAt(i))) i++;
        }
        if (i == mantissa || (i == mantissa + 1 && text.charAt(mantissa) == '.')) return 0;
        int end = i;
        if (i < text.length() && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < text.length() && (text.charAt(j) == '-' || text.charAt(j) == '+')) j++;
            int exponentDigits = j;
            while (j < text.length() && isDigit(text.charAt(j))) j++;
            if (j > exponentDigits) end = j;
        }
        return Double.parseDouble(text.substring(start, end));
    }

    private static boolean isDigit(char c) { return c >= '0' && c <= '9'; }

    private static int skipBlanks(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
        return i;
    }

}
