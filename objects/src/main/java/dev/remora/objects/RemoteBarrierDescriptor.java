package dev.remora.objects;

/**
 * Layout of a {@link RemoteBarrier} in its home node's registered memory: two words on separate cache lines (the
 * arrivals' FETCH_ADDs and the waiters' READs do not share a line).
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  | arrivals: int64, every await's FETCH_ADD(+1); never reset     |  offset 0
 *  +---------------------------------------------------------------+
 *  | padding (56 bytes)                                            |  offset 8 .. 63
 *  +-+-------------------------------------------------------------+
 *  |B|  generation: 63 bits, rounds released so far               |  offset 64  (state)
 *  +-+-------------------------------------------------------------+
 *   B (bit 63) = broken: set, with the generation left at the broken round's number, by the CAS of a waiter whose
 *   timeout passed; never cleared
 *
 *  an arrival with ticket t (the FETCH_ADD's old value) belongs to round t / parties, arrival index t % parties
 *  round r is released by CAS(state: r -> r + 1) of its last arrival (index parties - 1)
 *  round r is broken   by CAS(state: r -> B | r) of a waiter whose timeout passed
 *  the two CASes expect the same value, so exactly one of them succeeds (rao)
 * </pre>
 *
 * Both words are changed only by remote atomics. The region needs {@code REMOTE_ATOMIC}, {@code REMOTE_READ} and
 * {@code LOCAL_WRITE}.
 */
public final class RemoteBarrierDescriptor {
    /** Offset of the arrival count. */
    public static final int ARRIVALS_OFFSET = 0;
    /** Offset of the state word (generation and broken bit). */
    public static final int STATE_OFFSET = 64;
    /** Bytes a barrier occupies. */
    public static final int LENGTH = 72;
    /** Required alignment of the base (remote atomics need 8-byte-aligned words: R17). */
    public static final int ALIGNMENT = 8;
    /** The broken bit of the state word. */
    public static final long BROKEN = 1L << 63;

    private RemoteBarrierDescriptor() {
    }

    /**
     * @param state a state word
     * @return whether the barrier is broken
     */
    public static boolean isBroken(long state) {
        return (state & BROKEN) != 0;
    }

    /**
     * @param state a state word
     * @return the rounds released so far (for a broken barrier: the number of the broken round)
     */
    public static long generation(long state) {
        return state & ~BROKEN;
    }
}
