package dev.remora.verbs.spi;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.WorkRequest;

import java.util.Objects;

/** Checks every provider makes on work requests, and on its queue pair, before posting them. */
public final class WorkRequestChecks {
    private WorkRequestChecks() {
    }

    /**
     * Checks that this request can be posted on a send queue, as every provider does before posting anything.
     *
     * @param wr the request
     * @param index the request's position in its list, for messages
     * @param maxInlineBytes the provider's {@code max_inline_data}
     * @throws IllegalArgumentException for no opcode, a RECV, a CAS or FETCH_ADD whose local result address is not
     *     8-byte aligned, or a bad INLINE request
     */
    public static void checkSendable(WorkRequest wr, int index, int maxInlineBytes) {
        if (wr.opcode() == null) {
            throw new IllegalArgumentException("work request " + index + " has no opcode: set it with read(), "
                + "write(), cas(), faa() or send()");
        }
        if (wr.opcode() == Opcode.RECV) {
            throw new IllegalArgumentException("work request " + index + " is a RECV: post it with postRecv()");
        }
        if (wr.opcode().isAtomic() && (wr.localAddress() & 7) != 0) {
            // Rejected before posting: the NIC would apply the atomic remotely and only then fail to store its result.
            throw new IllegalArgumentException("work request " + index + ": " + wr.opcode() + " result address 0x"
                + Long.toHexString(wr.localAddress()) + " is not 8-byte aligned (an atomic's 8-byte result is "
                + "written to an 8-byte-aligned local address)");
        }
        if ((wr.flags() & WorkRequest.INLINE) != 0) {
            if (wr.opcode() != Opcode.WRITE && wr.opcode() != Opcode.SEND) {
                throw new IllegalArgumentException("work request " + index + ": INLINE applies to WRITE and SEND, not "
                    + wr.opcode());
            }
            if (wr.length() > maxInlineBytes) {
                throw new IllegalArgumentException("work request " + index + ": INLINE payload of " + wr.length()
                    + " bytes exceeds maxInlineBytes " + maxInlineBytes);
            }
        }
    }

    /**
     * Checks the arguments of {@link dev.remora.verbs.QueuePair#post(WorkRequest[], int)}.
     *
     * @param wrs the requests
     * @param count how many of them to post
     * @throws NullPointerException if {@code wrs} is null
     * @throws IllegalArgumentException if {@code count} is outside 1..{@code wrs.length}
     */
    public static void checkList(WorkRequest[] wrs, int count) {
        Objects.requireNonNull(wrs, "work requests");
        if (count < 1 || count > wrs.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + wrs.length);
        }
    }

    /**
     * {@link #checkSendable}, for a request that may be null and a provider that limits SENDs.
     *
     * @param wr the request
     * @param index its position in its list, for messages
     * @param maxInlineBytes the provider's {@code max_inline_data}
     * @param maxSendBytes the largest SEND the provider carries
     * @throws NullPointerException if the request is null
     * @throws IllegalArgumentException as {@link #checkSendable}, or for a SEND longer than {@code maxSendBytes}
     */
    public static void checkSendable(WorkRequest wr, int index, int maxInlineBytes, int maxSendBytes) {
        if (wr == null) {
            throw new NullPointerException("work request " + index + " is null");
        }
        checkSendable(wr, index, maxInlineBytes);
        if (wr.opcode() == Opcode.SEND && wr.length() > maxSendBytes) {
            throw new IllegalArgumentException("work request " + index + ": SEND of " + wr.length() + " bytes exceeds "
                + "maxSendBytes " + maxSendBytes);
        }
    }

    /**
     * Checks that a queue pair in this state takes requests: a queue pair in RESET is not connected yet, a closed one
     * takes none (one in ERROR takes them, and completes them {@code WR_FLUSH_ERR}: R17).
     *
     * @param state the queue pair's state
     * @param qpn its number, for messages
     * @param node its node's name, for messages
     * @throws IllegalStateException in RESET or CLOSED
     */
    public static void checkPostable(QpState state, int qpn, String node) {
        if (state == QpState.RESET) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node + " is not connected (RESET)");
        }
        if (state == QpState.CLOSED) {
            throw new IllegalStateException("queue pair " + qpn + " of " + node + " is closed");
        }
    }
}
