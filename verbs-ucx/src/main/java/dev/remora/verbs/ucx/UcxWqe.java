package dev.remora.verbs.ucx;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.lang.foreign.MemorySegment;

/**
 * A send-queue entry of the UCX fabric: a copy of a posted request plus its UCX requests and state. Reused by its
 * queue pair once completed; an entry failed while UCX still holds its requests is handed to the node's orphans
 * instead, so that the native memory UCX may still write stays alive.
 *
 * <p>Its native slot ({@link #slot}), allocated once per entry in its node's arena:
 * <pre>
 *   0      8      16              32
 *   +------+------+---------------+
 *   | r    | op   | AM header     |   r: an atomic's reply (CAS: the swap value in, the old value out)
 *   +------+------+---------------+   op: an atomic's operand (CAS: the compare value; FETCH_ADD: the addend)
 *                                     AM header of a SEND: dst qpn, src node, src qpn, seq (4 x int32)
 * </pre>
 */
final class UcxWqe {
    static final int SLOT_BYTES = 32;
    static final long REPLY = 0;
    static final long OPERAND = 8;
    static final long AM_HEADER = 16;
    static final int AM_HEADER_BYTES = 16;

    static final int WAITING = 0;
    static final int ISSUED = 1;
    static final int DONE = 2;

    /** Which in-flight count of its queue pair an issued entry holds (the issue rules of {@link UcxQueuePair}). */
    static final int HOLDS_NONE = 0;
    static final int HOLDS_READ = 1;
    static final int HOLDS_OTHER = 2;

    Opcode opcode;
    long wrId;
    int flags;
    int length;
    long localAddress;
    int lkey;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    long postedNs;
    /** SEND: when it was last sent (the retry timeout runs from there). */
    long sentNs;
    int seq;

    /** The local region (null for INLINE) and a local error found at post time. */
    UcxRegion local;
    WcStatus localError;
    /** INLINE payload, copied at post time (R3 does not apply). */
    MemorySegment inline;
    MemorySegment slot;

    int state;
    WcStatus status;
    int holds;
    /** The UCX request of the operation, or null when none is outstanding. */
    MemorySegment req;
    /** The flush whose completion makes a WRITE's completion mean placement, or null. */
    MemorySegment flushReq;
    /** UCX may still write this entry's slot: it belongs to the node's orphans and is never reused. */
    boolean orphaned;
    /** SEND: the receiver's answer (a {@link WcStatus} ordinal), -1 until it came. */
    int ack = -1;
    /** SEND refused for want of a receive: when to send it again, 0 if not waiting. */
    long retryAtNs;

    void copyFrom(WorkRequest wr) {
        opcode = wr.opcode();
        wrId = wr.wrId();
        flags = wr.flags();
        length = wr.length();
        localAddress = wr.localAddress();
        lkey = wr.lkey();
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        local = null;
        localError = null;
        state = WAITING;
        status = null;
        holds = HOLDS_NONE;
        req = null;
        flushReq = null;
        ack = -1;
        retryAtNs = 0;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** @return whether UCX still holds a request of this entry */
    boolean ucxBusy() {
        return req != null || flushReq != null;
    }

    @Override
    public String toString() {
        return "UcxWqe{" + opcode + " wrId=" + wrId + " seq=" + seq + " state=" + state + " status=" + status + '}';
    }
}
