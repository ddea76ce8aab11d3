package dev.remora.locks;

/**
 * Layout of a {@link LeaseLock} in its home node's registered memory, and the packing of its lease word.
 *
 * <pre>
 *   63                              32 31                               0
 *  +----------------------------------+----------------------------------+
 *  |  generation g                    |  beat b                          |  offset 0: the lease word
 *  |  even = free, odd = held; the    |  the holder's renewals of g,     |  changed only by remote CAS,
 *  |  holder's fencing token is its g |  0 when g is installed           |  each expecting the whole word
 *  +----------------------------------+----------------------------------+
 *  |  lease length: ns of the fabric's clock, positive                   |  offset 8: written once by
 *  +---------------------------------------------------------------------+  LeaseLock.create, before the
 *  |  margin: ns, positive and shorter than the lease                    |  offset 16: address is handed out;
 *  +---------------------------------------------------------------------+  only READ after that
 *   24 bytes, 8-byte aligned (remote atomics need it: R17)
 * </pre>
 *
 * <p>Transitions of the lease word, each one remote CAS that expects the whole word its poster last saw (so a change
 * of either half makes it fail, and a failed CAS writes nothing: R16):
 * <table>
 *   <caption>Lease word transitions</caption>
 *   <tr><th>who</th><th>from</th><th>to</th></tr>
 *   <tr><td>acquire (free lock)</td><td>(g even, 0)</td><td>(g + 1, 0)</td></tr>
 *   <tr><td>renew (the holder of g)</td><td>(g, b)</td><td>(g, b + 1 mod 2<sup>32</sup>)</td></tr>
 *   <tr><td>release (the holder of g)</td><td>(g, b)</td><td>(g + 1, 0)</td></tr>
 *   <tr><td>take over (a waiter that saw (g, b) unchanged for a lease)</td><td>(g, b)</td><td>(g + 2, 0)</td></tr>
 * </table>
 * Generation and beat share one word so that a renewal and a takeover race on one CAS: whichever lands first makes
 * the other fail. Generations only grow, so a generation is never reused; a beat repeats only after 2<sup>32</sup>
 * renewals of one holding (each a round trip), and a waiter is fooled only if it read the same beat on both sides of
 * such a wrap. Tokens fit the 32 bits of {@link FencedRegister}'s token; the last one handed out is
 * {@link #LAST_TOKEN} (about 2<sup>31</sup> acquisitions per lock), after which acquiring throws.
 *
 * <p>The region needs {@code REMOTE_ATOMIC}, {@code REMOTE_READ} and {@code LOCAL_WRITE}. The lease word is never
 * touched by a CPU or a remote WRITE (R14); the two parameter words are never touched by an atomic.
 */
public final class LeaseLockDescriptor {
    /** Offset of the lease word (generation and beat). */
    public static final int LEASE_WORD_OFFSET = 0;
    /** Offset of the lease length, in nanoseconds of the fabric's clock. */
    public static final int LEASE_NS_OFFSET = 8;
    /** Offset of the margin, in nanoseconds. */
    public static final int MARGIN_NS_OFFSET = 16;
    /** Bytes a lease lock occupies. */
    public static final int LENGTH = 24;
    /** Required alignment of the lock. */
    public static final int ALIGNMENT = 8;
    /** The largest generation a CAS may install: its release (+1) and takeover (+2) must still fit in 32 bits. */
    public static final long LAST_TOKEN = 0xFFFF_FFFDL;

    private static final int BEAT_BITS = 32;
    private static final long BEAT_MASK = 0xFFFF_FFFFL;

    private LeaseLockDescriptor() {
    }

    /**
     * @param generation the generation, 0..2^32-1
     * @param beat the beat, 0..2^32-1
     * @return the lease word
     */
    public static long word(long generation, long beat) {
        if ((generation & ~BEAT_MASK) != 0 || (beat & ~BEAT_MASK) != 0) {
            throw new IllegalArgumentException("generation and beat are 32-bit: " + generation + ", " + beat);
        }
        return generation << BEAT_BITS | beat;
    }

    /**
     * @param word a lease word
     * @return its generation
     */
    public static long generation(long word) {
        return word >>> BEAT_BITS;
    }

    /**
     * @param word a lease word
     * @return its beat
     */
    public static long beat(long word) {
        return word & BEAT_MASK;
    }

    /**
     * @param word a lease word
     * @return whether the lock is held (its generation is odd)
     */
    public static boolean isHeld(long word) {
        return (generation(word) & 1) == 1;
    }

    /** @return the word an acquisition of the free lock {@code word} installs */
    static long acquired(long word) {
        return word(generation(word) + 1, 0);
    }

    /** @return the word a renewal of {@code word} installs: the beat advances, wrapping within its 32 bits */
    static long renewed(long word) {
        return word(generation(word), (beat(word) + 1) & BEAT_MASK);
    }

    /** @return the word the release of {@code word} installs */
    static long released(long word) {
        return word(generation(word) + 1, 0);
    }

    /** @return the word a takeover of {@code word} installs (still odd: held) */
    static long takenOver(long word) {
        return word(generation(word) + 2, 0);
    }
}
