package ai.dwell.test.linguistics;

import com.yahoo.language.Linguistics;
import com.yahoo.language.opennlp.OpenNlpLinguistics;
import com.yahoo.language.process.Segmenter;
import com.yahoo.language.process.SegmenterImpl;
import com.yahoo.language.process.Stemmer;
import com.yahoo.language.process.StemmerImpl;
import com.yahoo.language.process.Tokenizer;

/**
 * Vespa's OpenNLP linguistics with each word indexed and searched as its letters in order ("listen" and "silent" as
 * "eilnst"), so that anagrams match: a Linguistics of this package's own code, which the container injects where
 * Vespa uses linguistics (indexing, query parsing, stemming), as vespa-chinese-linguistics' JiebaLinguistics is.
 */
public class AnagramLinguistics extends OpenNlpLinguistics {

    private final Tokenizer tokenizer;

    public AnagramLinguistics() {
        this.tokenizer = new AnagramTokenizer(super.getTokenizer());
    }

    @Override
    public Tokenizer getTokenizer() { return tokenizer; }

    @Override
    public Stemmer getStemmer() { return new StemmerImpl(tokenizer); }

    @Override
    public Segmenter getSegmenter() { return new SegmenterImpl(tokenizer); }

    @Override
    public boolean equals(Linguistics other) { return other instanceof AnagramLinguistics; }

}
