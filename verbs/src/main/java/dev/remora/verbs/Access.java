package dev.remora.verbs;

/**
 * Access flags of a memory region, mirroring {@code enum ibv_access_flags} from {@code <infiniband/verbs.h>}.
 *
 * <pre>
 *   IBV_ACCESS_LOCAL_WRITE   = 1
 *   IBV_ACCESS_REMOTE_WRITE  = (1 &lt;&lt; 1)
 *   IBV_ACCESS_REMOTE_READ   = (1 &lt;&lt; 2)
 *   IBV_ACCESS_REMOTE_ATOMIC = (1 &lt;&lt; 3)
 * </pre>
 *
 * <p>As with {@code ibv_reg_mr(3)}, {@link #REMOTE_WRITE} or {@link #REMOTE_ATOMIC} without {@link #LOCAL_WRITE} is
 * rejected: a region the network may write must also be writable by the local NIC.
 */
public final class Access {
    /** The local NIC may write the region: the destination of a READ, the result of an atomic, a RECV buffer. */
    public static final int LOCAL_WRITE = 1;
    /** Remote peers may WRITE the region. Requires {@link #LOCAL_WRITE}. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** Remote peers may READ the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** Remote peers may CAS and FETCH_ADD 8-byte words of the region. Requires {@link #LOCAL_WRITE}. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Every flag: what a region holding a shared object usually needs. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private static final int KNOWN = ALL;

    private Access() {
    }

    /**
     * Checks a set of flags as {@code ibv_reg_mr} does.
     *
     * @param flags the flags to check
     * @return {@code flags}
     * @throws IllegalArgumentException for unknown bits, or remote write/atomic access without local write
     */
    public static int validate(int flags) {
        if ((flags & ~KNOWN) != 0) {
            throw new IllegalArgumentException("unknown access flag bits 0x" + Integer.toHexString(flags & ~KNOWN));
        }
        if ((flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException(
                "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (as ibv_reg_mr does): " + describe(flags));
        }
        return flags;
    }

    /**
     * Renders flags for messages, e.g. {@code LOCAL_WRITE|REMOTE_READ}.
     *
     * @param flags access flags
     * @return a readable form
     */
    public static String describe(int flags) {
        StringBuilder sb = new StringBuilder();
        if ((flags & LOCAL_WRITE) != 0) {
            sb.append("LOCAL_WRITE|");
        }
        if ((flags & REMOTE_WRITE) != 0) {
            sb.append("REMOTE_WRITE|");
        }
        if ((flags & REMOTE_READ) != 0) {
            sb.append("REMOTE_READ|");
        }
        if ((flags & REMOTE_ATOMIC) != 0) {
            sb.append("REMOTE_ATOMIC|");
        }
        return sb.length() == 0 ? "NONE" : sb.substring(0, sb.length() - 1);
    }
}
