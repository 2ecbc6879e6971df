package ai.dwell.runtime.engine.group;

import com.ibm.icu.text.Collator;
import com.ibm.icu.util.ULocale;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/** The grouping functions whose value is bytes (proton's RawResultNode): cat, md5 and uca. */
final class BytesValues {

    private BytesValues() {}

    /** How one argument of cat or md5 is written as bytes. */
    interface Part {

        void write(int lid, double rank, ByteArrayOutputStream out);

        static Part string(GroupValue value) {
            return (lid, rank, out) -> out.writeBytes(value.string(lid, rank).getBytes(StandardCharsets.UTF_8));
        }

        static Part raw(GroupValue value) {
            return (lid, rank, out) -> out.writeBytes(value.raw(lid, rank));
        }

        /** The integer's lowest width bytes, big-endian (network order, as proton's nbostream). */
        static Part integer(GroupValue value, int width) {
            return (lid, rank, out) -> {
                long v = value.integer(lid, rank);
                for (int shift = 8 * (width - 1); shift >= 0; shift -= 8) out.write((int) (v >>> shift));
            };
        }
    }

    /** cat(a, b, ...): the arguments' bytes one after the other. */
    static final class Concatenation extends GroupValue {
        private final Part[] parts;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        Concatenation(List<Part> parts) { super(Type.RAW); this.parts = parts.toArray(Part[]::new); }
        @Override public byte[] raw(int lid, double rank) {
            out.reset();
            for (Part part : parts) part.write(lid, rank, out);
            return out.toByteArray();
        }
    }

    /** md5(a, bits): the first (bits + 7) / 8 bytes (at most 16) of the MD5 digest of the argument's bytes. */
    static final class Md5 extends GroupValue {
        private final Part argument;
        private final int bytes;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final MessageDigest digest;
        Md5(Part argument, int bytes) {
            super(Type.RAW);
            this.argument = argument;
            this.bytes = Math.min(16, bytes);
            try {
                digest = MessageDigest.getInstance("MD5");
            }
            catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        @Override public byte[] raw(int lid, double rank) {
            out.reset();
            argument.write(lid, rank, out);
            byte[] sum = digest.digest(out.toByteArray());
            return bytes == sum.length ? sum : Arrays.copyOf(sum, bytes);
        }
    }


    /**
     * uca(a, locale, strength): the ICU collation sort key of the string (its bytes with ICU's terminating 0), as
     * proton's UcaConverter gets it from ICU4C's Collator::getSortKey; here from ICU4J's Collator (the ICU
     * implementation the container's own uca sorting uses), for the locale and strength (PRIMARY when empty).
     */
    static final class CollationKey extends GroupValue {
        private final GroupValue argument;
        private final Collator collator;
        CollationKey(GroupValue argument, String locale, String strength) {
            super(Type.RAW);
            this.argument = argument;
            collator = Collator.getInstance(new ULocale(locale));
            collator.setStrength(switch (strength) {
                case "", "PRIMARY" -> Collator.PRIMARY;
                case "SECONDARY" -> Collator.SECONDARY;
                case "TERTIARY" -> Collator.TERTIARY;
                case "QUATERNARY" -> Collator.QUATERNARY;
                case "IDENTICAL" -> Collator.IDENTICAL;
                default -> throw new IllegalArgumentException("Illegal uca collation strength : " + strength);
            });
            collator.freeze();
        }
        @Override public byte[] raw(int lid, double rank) {
            return collator.getCollationKey(argument.string(lid, rank)).toByteArray();
        }
    }

}
