package ai.dwell.docprocs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Features of a comment's text that ranking uses: length, words, links and shouting.
 *
 * @param length         the number of characters (Unicode code points)
 * @param words          the number of whitespace-separated words
 * @param links          the number of URLs (http://, https:// or www.)
 * @param uppercaseRatio upper-case letters among all letters, 0 when there are no letters
 */
public record TextFeatures(int length, int words, int links, float uppercaseRatio) {

    private static final Pattern LINK = Pattern.compile("(?i)\\b(?:https?://|www\\.)\\S+");
    private static final Pattern WORD = Pattern.compile("\\S+");

    public static TextFeatures of(String text) {
        int letters = 0, upper = 0;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            if (Character.isLetter(c)) {
                letters++;
                if (Character.isUpperCase(c)) upper++;
            }
            i += Character.charCount(c);
        }
        return new TextFeatures(text.codePointCount(0, text.length()),
                                count(WORD.matcher(text)),
                                count(LINK.matcher(text)),
                                letters == 0 ? 0f : (float) upper / letters);
    }

    private static int count(Matcher matcher) {
        int n = 0;
        while (matcher.find()) n++;
        return n;
    }

}
