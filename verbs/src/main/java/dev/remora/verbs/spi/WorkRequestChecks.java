package dev.remora.verbs.spi;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WorkRequest;

/** Checks every provider makes on work requests before posting them. */
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
}
