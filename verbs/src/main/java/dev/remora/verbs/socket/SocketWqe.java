package dev.remora.verbs.socket;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

/** A send-queue entry of the socket fabric: a copy of a posted request plus its progress on the wire. Reused. */
final class SocketWqe {
    Opcode opcode;
    long wrId;
    int flags;
    int length;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    /** The local buffer's region (null for INLINE) and its index in it. */
    SocketRegion local;
    int localIndex;
    /** INLINE payload, copied at post time. */
    byte[] inline = new byte[0];
    /** A local error found at post time, completed when the request reaches the head; null if none. */
    WcStatus localError;
    int seq;
    long postedNs;
    /** Payload bytes encoded so far (WRITE, SEND), and whether the whole request is on its way. */
    int sent;
    boolean onWire;
    /** READ payload bytes received so far. */
    int received;
    /** With injected latency: the completion's status and when it is due. */
    WcStatus status;
    long dueNs;

    void copyFrom(WorkRequest wr) {
        opcode = wr.opcode();
        wrId = wr.wrId();
        flags = wr.flags();
        length = wr.length();
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        local = null;
        localIndex = 0;
        localError = null;
        sent = 0;
        onWire = false;
        received = 0;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
