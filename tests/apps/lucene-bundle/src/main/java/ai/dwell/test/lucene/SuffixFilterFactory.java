package ai.dwell.test.lucene;

import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

import java.io.IOException;
import java.util.Map;

/**
 * A token filter of this package's own, found by Lucene's SPI under the name "dwellSuffix" (META-INF/services):
 * appends its "suffix" argument to every token, so a test can tell its tokens from any analyzer the runtime has.
 */
public class SuffixFilterFactory extends TokenFilterFactory {

    public static final String NAME = "dwellSuffix";

    private final String suffix;

    /** For Lucene's SPI, which requires it; never used. */
    public SuffixFilterFactory() {
        throw defaultCtorException();
    }

    public SuffixFilterFactory(Map<String, String> args) {
        super(args);
        suffix = require(args, "suffix");
        if ( ! args.isEmpty()) throw new IllegalArgumentException("Unknown parameters: " + args);
    }

    @Override
    public TokenStream create(TokenStream input) {
        return new TokenFilter(input) {
            private final CharTermAttribute term = addAttribute(CharTermAttribute.class);

            @Override
            public boolean incrementToken() throws IOException {
                if ( ! input.incrementToken()) return false;
                term.append(suffix);
                return true;
            }
        };
    }

}
