package ai.dwell.runtime.engine.teaser;

/**
 * How juniper writes a summary (juniper/SummaryConfig.h, appender.cpp): the highlight marks, the continuation mark
 * ("dots"), the bytes left out (separators), whether it escapes markup characters, and whether it keeps white space
 * (else runs of white space become one space). {@link #PROTON} is what proton's JuniperProperties configures.
 */
record SummaryFormat(String highlightOn, String highlightOff, String dots, String separators, boolean escapeMarkup, boolean preserveWhiteSpace) {

    static final SummaryFormat PROTON = new SummaryFormat("\u001F", "\u001F", "\u001E", "\u001F\u001D", false, true);

    /** Appends the bytes as juniper's Appender: returns the characters appended (its char_size count). */
    int append(java.io.ByteArrayOutputStream out, byte[] bytes, int from, int length, boolean[] lastWasSpace) {
        int chars = 0;
        for (int i = from; i < from + length; i++) {
            byte c = bytes[i];
            if (c > 0 && separators.indexOf((char) c) >= 0) continue;
            if ( ! preserveWhiteSpace) {
                if (c == ' ' || (c >= 9 && c <= 13)) { // isspace in the C locale
                    if (lastWasSpace[0]) continue;
                    lastWasSpace[0] = true;
                    c = ' ';
                }
                else {
                    lastWasSpace[0] = false;
                }
            }
            String escaped = escapeMarkup ? escape(c) : null;
            if (escaped != null) {
                out.writeBytes(escaped.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                chars++;
            }
            else {
                out.write(c);
                if ((c & 0x80) == 0 || (c & 0x40) != 0) chars++;
            }
        }
        return chars;
    }

    private static String escape(byte c) {
        return switch (c) {
            case '<' -> "&lt;";
            case '>' -> "&gt;";
            case '"' -> "&quot;";
            case '&' -> "&amp;";
            case '\'' -> "&#39;";
            default -> null;
        };
    }

}
