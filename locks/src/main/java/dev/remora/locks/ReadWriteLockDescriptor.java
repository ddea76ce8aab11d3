package dev.remora.locks;

/**
 * The memory layout of a {@link RemoteReadWriteLock}: one 8-byte word in the home node's registered memory.
 *
 * <pre>
 *   63   62                         33  32  31                              0
 *  +----+-----------------------------+---+--------------------------------+
 *  | 0  |  waiting writers             | W |  active readers                |  offset 0
 *  +----+-----------------------------+---+--------------------------------+
 *   W = a writer holds the lock; changed only by remote FETCH_ADD and CAS (R14)
 *   region access: REMOTE_ATOMIC, REMOTE_READ
 * </pre>
 */
public final class ReadWriteLockDescriptor {
    /** Offset of the lock word. */
    public static final int WORD_OFFSET = 0;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 8;
    /** One reader. */
    public static final long READER = 1;
    /** The writer-active bit. */
    public static final long WRITER = 1L << 32;
    /** One waiting writer. */
    public static final long WAITING = 1L << 33;
    /** The active-readers field. */
    public static final long READERS_MASK = WRITER - 1;

    private ReadWriteLockDescriptor() {
    }
}
