package dev.remora.locks;

/**
 * The memory layout of a {@link TicketLock}: two 8-byte words in the home node's registered memory.
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |   next: the next ticket to hand out (remote FETCH_ADD and CAS  |  offset 0
 *  |   only: R14)                                                  |
 *  +---------------------------------------------------------------+
 *  |   serving: the ticket that holds the lock (READ; WRITE by the |  offset 8
 *  |   holder only, never an atomic, so no WRITE races an atomic)  |
 *  +---------------------------------------------------------------+
 *   region access: REMOTE_ATOMIC, REMOTE_READ, REMOTE_WRITE; tickets wrap as 64-bit words do, and are compared by
 *   their signed difference
 * </pre>
 */
public final class TicketLockDescriptor {
    /** Offset of the next-ticket word. */
    public static final int NEXT_OFFSET = 0;
    /** Offset of the now-serving word. */
    public static final int SERVING_OFFSET = 8;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 16;

    private TicketLockDescriptor() {
    }

    /**
     * Whether {@code serving} has gone past {@code ticket} (an operator reset skipped it), with wrap-around.
     *
     * @param serving the now-serving word
     * @param ticket a ticket
     * @return whether the ticket will never be served
     */
    public static boolean skipped(long serving, long ticket) {
        return serving - ticket > 0;
    }
}
