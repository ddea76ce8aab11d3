package dev.remora.verbs.sim;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

/**
 * A send-queue entry: a copy of a posted {@link WorkRequest} plus its progress. Entries are preallocated in each
 * queue pair's ring and reused.
 */
final class Wqe {
    Opcode opcode;
    long wrId;
    int flags;
    long localAddress;
    int length;
    int lkey;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    /** Inline payload, copied at post time (grown on demand, then reused). */
    byte[] inline = new byte[0];

    /** Fabric time at or after which the request may execute. */
    long executeAtNs;
    /** Fabric time at or after which its completion may be delivered. */
    long completeAtNs;
    /** Fabric time after which a SEND without a RECV at the peer fails; 0 until the first retry. */
    long rnrDeadlineNs;
    WcStatus status;
    int byteLength;

    void copyFrom(WorkRequest wr) {
        opcode = wr.opcode();
        wrId = wr.wrId();
        flags = wr.flags();
        localAddress = wr.localAddress();
        length = wr.length();
        lkey = wr.lkey();
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        rnrDeadlineNs = 0;
        status = null;
        byteLength = 0;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
