package dev.remora.verbs.det.machine;

/**
 * The encoding of a machine step as a {@code long}: which action of Verbs.tla or RDMA.tla it is, which thread, work
 * request or fault it belongs to, and which word of a multi-word transfer it moves.
 *
 * <pre>
 *  63      56 55      40 39      32 31                                0
 * +----------+----------+----------+----------------------------------+
 * |   kind   |   word   | (unused) |   index: thread, request, fault  |
 * +----------+----------+----------+----------------------------------+
 * </pre>
 */
public final class Steps {
    /** RDMA.tla {@code Thread(t)}: thread {@code index} performs its next operation. */
    public static final int THREAD = 1;
    /** Verbs.tla {@code Drain(t)}: the oldest entry of thread {@code index}'s store buffer leaves it. */
    public static final int DRAIN = 2;
    /** {@code PutSourceRead(k, i)}. */
    public static final int PUT_SOURCE_READ = 3;
    /** {@code PutRemoteWrite(k, i)}. */
    public static final int PUT_REMOTE_WRITE = 4;
    /** {@code GetRemoteRead(k, i)}. */
    public static final int GET_REMOTE_READ = 5;
    /** {@code GetLocalWrite(k, i)}. */
    public static final int GET_LOCAL_WRITE = 6;
    /** {@code AtomicRead(k)}. */
    public static final int ATOMIC_READ = 7;
    /** {@code AtomicWrite(k)}. */
    public static final int ATOMIC_WRITE = 8;
    /** {@code AtomicLocalWrite(k)}. */
    public static final int ATOMIC_LOCAL_WRITE = 9;
    /** {@code Fail(k)}. */
    public static final int FAIL = 10;
    /** {@code Complete(k)}. */
    public static final int COMPLETE = 11;
    /** {@code Abandon(k)}. */
    public static final int ABANDON = 12;
    /** {@code Fault(f)}: fault {@code index} of the program happens. */
    public static final int FAULT = 13;

    private Steps() {
    }

    /**
     * Encodes a step.
     *
     * @param kind one of the constants
     * @param index the thread, work request or fault
     * @param word the word of a multi-word transfer, else 0
     * @return the step
     */
    public static long of(int kind, int index, int word) {
        return (long) kind << 56 | (long) word << 40 | (index & 0xFFFF_FFFFL);
    }

    /**
     * @param step a step
     * @return its kind
     */
    public static int kind(long step) {
        return (int) (step >>> 56);
    }

    /**
     * @param step a step
     * @return its thread, work request or fault
     */
    public static int index(long step) {
        return (int) step;
    }

    /**
     * @param step a step
     * @return the word it moves
     */
    public static int word(long step) {
        return (int) (step >>> 40) & 0xFFFF;
    }

    /**
     * @param step a step
     * @return whether it is a thread's own operation (not a drain, a NIC action or a fault)
     */
    public static boolean isThreadStep(long step) {
        return kind(step) == THREAD;
    }
}
