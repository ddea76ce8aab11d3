package dev.remora.objects;

/**
 * Layout of a {@link SingleWriterVersionedRegister} and of a {@link MultiWriterVersionedRegister} (they share it) in
 * their home node's registered memory, for values of at most {@code maxLength} bytes, fixed at creation.
 *
 * <pre>
 *   0                              31 32                            63
 *  +---------------------------------------------------------------+
 *  |          control: int64 (multi-writer only, CAS only)         |  offset 0   CONTROL_OFFSET
 *  +-------------------------------+-------------------------------+
 *  |        length: uint32         |          tag: uint32          |  offset 8   HEADER_OFFSET (data word 0)
 *  +-------------------------------+-------------------------------+
 *  |   value bytes 0..3            |          tag: uint32          |  offset 16  (data word 1)
 *  +-------------------------------+-------------------------------+
 *  |   ...                         |          tag                  |
 *  +-------------------------------+-------------------------------+
 *  |   value bytes 4(k-1)..4k-1    |          tag: uint32          |  data word k = ceil(maxLength / 4)
 *  +-------------------------------+-------------------------------+
 *   every word 8-byte aligned; low half = bits 0..31 of the int64, high half = bits 32..63 (the tag)
 * </pre>
 *
 * <p><b>Control word</b> (multi-writer): the version. Even {@code v}: idle, and {@code v - 1} tagged the last write;
 * odd {@code v}: a write tagged {@code v} is in progress. Writers change it only by CAS (R14: never a WRITE on an
 * atomic word). A single-writer register leaves it zero.
 *
 * <p><b>Data words</b> carry one value: word 0 its length, words 1..k four bytes each (zero past the length). Every
 * data word carries the 32-bit tag of the write that produced it, and each write uses one tag for all its words and a
 * tag no other write of the register has used (a counter that only grows; it wraps after 2^32 writes).
 *
 * <h2>Why a tag in every word, and not a version at both ends</h2>
 * A reader fetches all data words with <em>one</em> READ. A multi-word READ is not a snapshot: it reads its words one
 * at a time in any order (R18, litmus L20, L20a), so nothing orders the reads of the first and last word against the
 * reads of the words between. The classic seqlock — WRITE version odd, WRITE data, WRITE version even, and a reader
 * that compares a version at the front with a copy at the back — relies on the reader reading the front version
 * first and the back one last. With one READ in any word order it fails: the reader can read the front version
 * {@code v} (old), then the writer places version {@code v+1} and the first half of the new data, the reader reads
 * the new first half, the old second half and the back copy {@code v} (still old), and only then the writer places
 * the rest: both versions say {@code v} around a mix of two values. (Ordering several READs with FENCE would repair it,
 * at the price of one network round trip per READ in sequence.) R6 does not help the reader: it orders the writer's
 * WRITEs as they land, not the reader's reads.
 *
 * <p>With a tag per word the order of the reads does not matter. An aligned 8-byte word never tears (R18), so each
 * word read is one write's word, tag and bytes together. If every word read carries tag {@code t}, each came from the
 * one write tagged {@code t}: the reader holds exactly that write's value, whatever order the words were read in and
 * whenever the writes landed. Anything else (two tags) is a torn snapshot, and the reader retries. The writer needs no
 * odd phase for the readers' sake; the multi-writer control word is odd only to exclude other writers.
 *
 * <p>Linearizability also needs the words of successive writes to land in order, so that a word's tag only moves
 * forward: the single writer posts every write on one queue pair, and R6 places a WRITE only after the earlier WRITE
 * of that queue pair is placed; multi-writers hand over through the control word, whose release CAS executes only
 * after the writer's data WRITE is placed (R7). And a write must be placed before it returns (a completed WRITE is
 * only acknowledged, R11): the single writer's flush READ and the multi-writer's release CAS execute after the WRITE
 * is placed (R7), so when either completes the value is in memory.
 *
 * <p>Wrap-around: a reader could confuse two writes whose tags are equal mod 2^32 only if its one READ stayed
 * outstanding for 2^32 writes; every write takes at least two round trips, and a READ that does not complete within
 * the endpoint's operation timeout is abandoned, its data unused.
 *
 * <p>The region needs {@code REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC} (multi-writer) and
 * {@code LOCAL_WRITE}.
 */
public final class VersionedRegisterDescriptor {
    /** Offset of the control word. */
    public static final int CONTROL_OFFSET = 0;
    /** Offset of data word 0, the header (length and tag). */
    public static final int HEADER_OFFSET = 8;
    /** Value bytes per data word after the header. */
    public static final int BYTES_PER_WORD = 4;
    /** The largest {@code maxLength} a register may be created with. */
    public static final int MAX_LENGTH_LIMIT = 4096;
    /** Required alignment of the region. */
    public static final int ALIGNMENT = 8;

    private VersionedRegisterDescriptor() {
    }

    /**
     * @param maxLength the largest value, in bytes
     * @return the number of data words (header included)
     */
    public static int dataWords(int maxLength) {
        return 1 + (maxLength + BYTES_PER_WORD - 1) / BYTES_PER_WORD;
    }

    /**
     * @param maxLength the largest value, in bytes
     * @return the bytes a register occupies
     */
    public static int length(int maxLength) {
        return HEADER_OFFSET + 8 * dataWords(maxLength);
    }

    static void checkMaxLength(int maxLength) {
        if (maxLength < 0 || maxLength > MAX_LENGTH_LIMIT) {
            throw new IllegalArgumentException("maxLength must be in 0.." + MAX_LENGTH_LIMIT + ": " + maxLength);
        }
    }

    /** @return the tag of a data word */
    static int tagOf(long word) {
        return (int) (word >>> 32);
    }

    /** @return a data word of {@code tag} carrying {@code low} */
    static long word(int tag, int low) {
        return ((long) tag << 32) | (low & 0xFFFF_FFFFL);
    }

    /**
     * Encodes a value into {@code dataWords(maxLength)} words tagged {@code tag}.
     *
     * @param value at most {@code maxLength} bytes
     * @param tag the write's tag
     * @param out the words, of length {@code dataWords(maxLength)}
     */
    static void encode(byte[] value, int tag, long[] out) {
        out[0] = word(tag, value.length);
        for (int w = 1; w < out.length; w++) {
            int low = 0;
            for (int b = 0; b < BYTES_PER_WORD; b++) {
                int i = (w - 1) * BYTES_PER_WORD + b;
                if (i < value.length) {
                    low |= (value[i] & 0xFF) << (8 * b);
                }
            }
            out[w] = word(tag, low);
        }
    }

    /**
     * Decodes a snapshot of the data words if it is one write's.
     *
     * @param words the data words as read
     * @param maxLength the largest value
     * @return the value, or {@code null} if the words carry more than one tag (torn) or a bad length
     */
    static byte[] decode(long[] words, int maxLength) {
        int tag = tagOf(words[0]);
        for (int w = 1; w < words.length; w++) {
            if (tagOf(words[w]) != tag) {
                return null; // words of two writes: a torn snapshot (R18)
            }
        }
        return decodeUnchecked(words, maxLength);
    }

    /** Decodes without checking the tags (tests use it to show that the check is needed). */
    static byte[] decodeUnchecked(long[] words, int maxLength) {
        int length = (int) words[0];
        if (length < 0 || length > maxLength) {
            return null;
        }
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            int low = (int) words[1 + i / BYTES_PER_WORD];
            value[i] = (byte) (low >>> (8 * (i % BYTES_PER_WORD)));
        }
        return value;
    }
}
