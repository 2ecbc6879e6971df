package ai.dwell.test.linguistics;

import com.yahoo.language.Language;
import com.yahoo.language.process.LinguisticsParameters;
import com.yahoo.language.process.StemMode;
import com.yahoo.language.process.Token;
import com.yahoo.language.process.Tokenizer;
import com.yahoo.language.simple.SimpleToken;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The tokens of another tokenizer, each word's token string replaced by its characters in order (idempotent, so a
 * query term tokenized again when stemmed stays the same); the original text of each token is kept.
 */
public class AnagramTokenizer implements Tokenizer {

    private final Tokenizer delegate;

    public AnagramTokenizer(Tokenizer delegate) {
        this.delegate = delegate;
    }

    static String sorted(String word) {
        int[] codePoints = word.codePoints().toArray();
        Arrays.sort(codePoints);
        return new String(codePoints, 0, codePoints.length);
    }

    private static Iterable<Token> anagrams(Iterable<Token> tokens) {
        List<Token> out = new ArrayList<>();
        for (Token token : tokens) {
            String string = token.isIndexable() ? sorted(token.getTokenString()) : token.getTokenString();
            out.add(new SimpleToken(token.getOrig()).setOffset(token.getOffset()).setType(token.getType()).setTokenString(string));
        }
        return out;
    }

    @Override
    @SuppressWarnings("deprecation")
    public Iterable<Token> tokenize(String input, Language language, StemMode stemMode, boolean removeAccents) {
        return anagrams(delegate.tokenize(input, language, stemMode, removeAccents));
    }

    @Override
    public Iterable<Token> tokenize(String input, LinguisticsParameters parameters) {
        return anagrams(delegate.tokenize(input, parameters));
    }

}
