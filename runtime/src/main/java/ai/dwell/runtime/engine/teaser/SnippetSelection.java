package ai.dwell.runtime.engine.teaser;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Juniper's snippet selection for an input longer than it shows whole (juniper/sumdesc.cpp, SummaryDesc): the best
 * matches that do not overlap, until there are max_matches of them and their estimated length reaches min_length;
 * a context around each keyword occurrence of them, of surround_max bytes, or less where the estimate exceeds the
 * length (recompute_estimate); the other keyword occurrences within the chosen text marked too
 * (locate_accidential_matches); then the text, with each cut moved to a word boundary (complete_word), continuation
 * marks where text is left out, highlight marks around the keywords. Lengths and positions are bytes of the UTF-8
 * input, as juniper counts them. Juniper's quirks are kept: the overlap test compares a byte position with a word
 * number, and the connector characters never extend a cut (complete_extended_token returns after one word).
 */
final class SnippetSelection {

    /** juniper's MIN_CONTINUATION, MIN_SURROUND_LEN and MAX_SCAN_WORD (sumdesc.h). */
    static final int MIN_CONTINUATION = 8, MIN_SURROUND_LEN = 10, MAX_SCAN_WORD = 0x40;

    /** A piece of the summary: its byte range in the input, and whether it is highlighted (highlight_desc). */
    private static final class Desc {
        int pos, len;
        final boolean highlight;
        Desc prev, next;
        Desc(int pos, int len, boolean highlight) { this.pos = pos; this.len = len; this.highlight = highlight; }
    }

    /** juniper's print list: a std::list of descs, with end as a sentinel. */
    private final Desc end = new Desc(0, 0, false);

    private final SnippetMatcher matcher;
    private final List<SnippetMatcher.Occurrence> occurrences;
    private final int documentLength;
    private final int length, minLength, maxMatches;
    private int surroundLen;
    private int estLen, hitLen, matchElems;
    private final List<SnippetMatcher.Candidate> chosen = new ArrayList<>(); // _clist, by start word
    private int charSize;

    SnippetSelection(SnippetMatcher matcher, int documentLength, int length, int minLength, int maxMatches, int surroundLen) {
        end.prev = end.next = end;
        this.matcher = matcher;
        this.occurrences = matcher.occurrences();
        this.documentLength = documentLength;
        this.length = length;
        this.minLength = minLength;
        this.maxMatches = maxMatches;
        this.surroundLen = Math.max(surroundLen, MIN_SURROUND_LEN);
        if (length + MIN_CONTINUATION * 4 > documentLength)
            throw new IllegalArgumentException("An input of " + documentLength + " bytes is shown whole");
        matchElems = findMatches();
        buildHighlightDescs();
        locateAccidentalMatches();
    }

    private Desc insertBefore(Desc at, Desc d) {
        d.next = at;
        d.prev = at.prev;
        at.prev.next = d;
        at.prev = d;
        return d;
    }

    private Desc erase(Desc d) {
        d.prev.next = d.next;
        d.next.prev = d.prev;
        return d.next;
    }

    private void addDesc(int pos, int len, boolean highlight) {
        if (len == 0) return;
        if (len < 0) throw new IllegalStateException("juniper's summary description got a negative length");
        insertBefore(end, new Desc(pos, len, highlight));
    }

    private boolean overlap(SnippetMatcher.Candidate m) {
        for (SnippetMatcher.Candidate cand : chosen) {
            SnippetMatcher.Candidate m1, m2;
            if (cand.startToken < m.startToken) { m1 = cand; m2 = m; }
            else { m2 = cand; m1 = m; }
            if (m1.endPos() > m2.startToken) return true; // bytes against words, as juniper
        }
        return false;
    }

    private int findMatches() {
        int matchLen = 0, matchCount = 0, elems = 0, adjustLen = 0;
        estLen = 0;
        for (SnippetMatcher.Candidate m : matcher.matches()) {
            if (overlap(m)) continue;
            m.keys();
            int at = 0; // a set by start word: an equal start is not added twice
            while (at < chosen.size() && chosen.get(at).startToken < m.startToken) at++;
            if (at == chosen.size() || chosen.get(at).startToken != m.startToken) chosen.add(at, m);
            int pre = m.startToken; // the context starts at 0
            if (pre < surroundLen) adjustLen += surroundLen - pre;
            matchLen += m.size();
            matchCount++;
            elems += m.elems;
            estLen = matchLen - adjustLen + (2 * surroundLen + MIN_CONTINUATION) * matchCount;
            if (estLen >= minLength && matchCount >= maxMatches) break;
        }
        hitLen = 5 * elems;
        return elems;
    }

    private int recomputeEstimate(int lenPerElem) {
        int newEst = 0, affected = 0;
        hitLen = 0;
        boolean prefix = true;
        SnippetMatcher.Candidate m = chosen.get(0);
        int prevPos = 0; // the context start
        for (SnippetMatcher.Candidate cand : chosen) {
            m = cand;
            for (SnippetMatcher.Occurrence k : cand.keys()) {
                int seglen = k.startPos - prevPos;
                if (seglen <= 0) continue;
                hitLen += k.length;
                if (prefix) {
                    if (lenPerElem < seglen) {
                        affected++;
                        seglen = lenPerElem;
                    }
                    prefix = false;
                }
                else if ((lenPerElem << 1) < seglen) {
                    affected += 2;
                    seglen = lenPerElem * 2 + MIN_CONTINUATION;
                }
                newEst += seglen;
                prevPos = k.startPos + k.length;
            }
        }
        int xlen = documentLength - m.endPos();
        if (xlen < lenPerElem) newEst += xlen;
        else {
            affected++;
            newEst += lenPerElem;
        }
        estLen = newEst;
        lenPerElem = Math.max(MIN_SURROUND_LEN, (length - hitLen) / (matchElems * 2));
        if (affected > 0 && length > estLen + MIN_SURROUND_LEN) {
            int adj = (length - hitLen - (estLen + MIN_SURROUND_LEN)) / affected;
            if (lenPerElem + adj < MIN_SURROUND_LEN) {
                adj = MIN_SURROUND_LEN - lenPerElem;
                lenPerElem = MIN_SURROUND_LEN;
            }
            else {
                lenPerElem += adj;
            }
            estLen += adj * affected;
        }
        return lenPerElem;
    }

    private void buildHighlightDescs() {
        int lenPerElem;
        if (estLen > length) {
            lenPerElem = Math.max(MIN_SURROUND_LEN, (length - hitLen) / (matchElems * 2));
            lenPerElem = recomputeEstimate(lenPerElem);
        }
        else {
            lenPerElem = surroundLen;
        }
        int middleLen = lenPerElem * 2 + MIN_CONTINUATION;
        int len = lenPerElem;
        int pos = 0;
        for (SnippetMatcher.Candidate cand : chosen) {
            for (SnippetMatcher.Occurrence k : cand.keys()) {
                int maxLen = k.startPos - pos;
                if (maxLen < 0) continue;
                if (pos == 0) {
                    if (len < maxLen) pos = maxLen - len;
                    else len = maxLen;
                    addDesc(pos, len, false);
                }
                else if (maxLen <= middleLen) {
                    len = maxLen;
                    addDesc(pos, len, false);
                }
                else {
                    len = maxLen;
                    addDesc(pos, lenPerElem, false);
                    addDesc(k.startPos - lenPerElem, lenPerElem, false);
                }
                addDesc(k.startPos, k.length, true);
                pos += k.length + len;
            }
        }
        if (pos > 0) addDesc(pos, Math.min(lenPerElem, documentLength - pos), false);
    }

    private void locateAccidentalMatches() {
        int kit = 0;
        int n = occurrences.size();
        for (Desc pit = end.next; pit != end; pit = pit.next) {
            Desc d = pit;
            Desc nit = pit.next;
            boolean more = nit != end;
            if (d.highlight) continue;
            while (kit < n && occurrences.get(kit).startPos + occurrences.get(kit).length <= d.pos) kit++;
            if (kit == n) return;
            if (occurrences.get(kit).startPos < d.pos) {
                int offset = d.pos - occurrences.get(kit).startPos;
                d.pos -= offset;
                d.len += offset;
            }
            for (; kit < n && occurrences.get(kit).startPos + occurrences.get(kit).length <= d.pos + d.len; kit++) {
                int kpos = occurrences.get(kit).startPos, klen = occurrences.get(kit).length;
                int startLen = kpos - d.pos;
                int endLen = (d.pos + d.len) - (kpos + klen);
                if (startLen > 0) insertBefore(pit, new Desc(d.pos, startLen, false));
                Desc kw = insertBefore(pit, new Desc(kpos, klen, true));
                if (endLen != 0) {
                    d.pos = kpos + klen;
                    d.len = endLen;
                }
                else {
                    pit = erase(pit);
                    d = kw;
                }
            }
            if (kit == n) return;
            int dEnd = d.pos + d.len;
            SnippetMatcher.Occurrence k = occurrences.get(kit);
            if (k.startPos < dEnd && k.startPos + k.length > dEnd) {
                int kpos = k.startPos, klen = k.length;
                int offset = (kpos + klen) - dEnd;
                if (more && nit.pos < kpos) {
                    nit.pos += offset;
                    nit.len -= offset;
                }
                d.len -= (klen - offset);
                pit = insertBefore(pit.next, new Desc(kpos, klen, true)); // insert(++pit, ...): the list is circular, as std::list
                kit++;
                if (kit == n) return;
            }
            if (pit == end) break;
        }
    }

    /** The summary of the input's bytes in this format (get_summary). */
    byte[] summary(byte[] buffer, SummaryFormat format) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        boolean[] lastWasSpace = { false };
        int chars = 0;
        int bytes = buffer.length;
        int prevEnd = 0;
        boolean startCont = false;
        Desc it = end.next;
        Desc nit = it;
        byte[] dots = utf8(format.dots()), on = utf8(format.highlightOn()), off = utf8(format.highlightOff());
        if (it != end && it.pos > 0) {
            startCont = true;
            s.writeBytes(dots);
        }
        for (; it != end; it = it.next) {
            if (nit != end) nit = nit.next;
            Desc d = it;
            int nextPos = nit == end ? 0x7fffffff : nit.pos;
            int len = d.len;
            int pos = d.pos;
            if (pos < prevEnd) {
                if (pos + len <= prevEnd) continue;
                int adj = prevEnd - pos;
                pos = prevEnd;
                len -= adj;
            }
            if (prevEnd > 0 && prevEnd < pos) {
                startCont = true;
                s.writeBytes(dots);
            }
            if (d.highlight) s.writeBytes(on);
            if ( ! d.highlight && startCont && prevEnd < pos) {
                int moved = Utf8Words.completeWord(buffer, bytes, pos, -1);
                pos -= moved;
                len += moved;
            }
            if ( ! d.highlight && nextPos > pos + len && pos + len < bytes) {
                int maxLen = Math.min(bytes, nextPos);
                int moved = Utf8Words.completeWord(buffer, maxLen, pos + len, +1);
                len += moved;
            }
            if (len < 0) len = 0;
            int addLen = Math.min(Math.min(bytes, len), bytes - pos); // juniper would read past its buffer; never seen here
            chars += format.append(s, buffer, pos, addLen, lastWasSpace);
            len -= addLen;
            pos += addLen;
            if (d.highlight) s.writeBytes(off);
            prevEnd = pos + len;
        }
        if (s.size() > 0 && prevEnd < documentLength) s.writeBytes(dots);
        charSize = chars;
        return s.toByteArray();
    }

    /** The characters of the input the last summary holds, without marks (juniper's char_size). */
    int charSize() { return charSize; }

    private static byte[] utf8(String s) { return s.getBytes(java.nio.charset.StandardCharsets.UTF_8); }

}
