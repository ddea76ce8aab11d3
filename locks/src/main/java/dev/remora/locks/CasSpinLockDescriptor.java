package dev.remora.locks;

/**
 * The memory layout of a {@link CasSpinLock}: one 8-byte word in the home node's registered memory.
 *
 * <pre>
 *   63                                          24 23                    0
 *  +----------------------------------------------+-----------------------+
 *  |  owner id of the holder (1 .. 2^39 - 1)      |  acquisition stamp    |  offset 0, 8-byte aligned
 *  +----------------------------------------------+-----------------------+
 *   0 = free. Changed only by remote CAS (acquire: 0 → stamp, release: stamp → 0), never by a CPU store or a WRITE,
 *   so no update can fall between an atomic's read and write phases (R14).
 *   region access: REMOTE_ATOMIC (acquire, release), REMOTE_READ (flushes, inspection)
 * </pre>
 *
 * <p>The stamp is 1 to 2^24 - 1 and changes with every acquire attempt of a handle, so a request of an earlier
 * attempt that lands late (after its queue pair failed, docs/memory-model.md §5) can never be mistaken for the current
 * one: a late release CAS(old stamp → 0) finds another value and changes nothing, and a late acquire CAS(0 → old
 * stamp) is recognised by its own handle.
 */
public final class CasSpinLockDescriptor {
    /** Offset of the lock word. */
    public static final int WORD_OFFSET = 0;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 8;
    /** Bits of the acquisition stamp. */
    public static final int STAMP_BITS = 24;
    /** Largest stamp; stamps wrap from it to 1. */
    public static final long MAX_STAMP = (1L << STAMP_BITS) - 1;
    /** Largest owner id. */
    public static final long MAX_OWNER = (1L << (63 - STAMP_BITS)) - 1;
    /** The value of a free lock. */
    public static final long FREE = 0;

    private CasSpinLockDescriptor() {
    }

    /**
     * @param owner an owner id, 1 to {@link #MAX_OWNER}
     * @param stamp an acquisition stamp, 1 to {@link #MAX_STAMP}
     * @return the lock word of that owner's acquisition
     */
    public static long word(long owner, long stamp) {
        return owner << STAMP_BITS | stamp;
    }

    /**
     * @param word a lock word
     * @return the holder's owner id, 0 if free
     */
    public static long owner(long word) {
        return word >>> STAMP_BITS;
    }

    /**
     * @param word a lock word
     * @return its acquisition stamp
     */
    public static long stamp(long word) {
        return word & MAX_STAMP;
    }

    /**
     * @param stamp a stamp
     * @return the next one, wrapping from {@link #MAX_STAMP} to 1
     */
    public static long nextStamp(long stamp) {
        return stamp == MAX_STAMP ? 1 : stamp + 1;
    }
}
