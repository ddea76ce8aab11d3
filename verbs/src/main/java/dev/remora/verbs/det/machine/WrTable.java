package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.machine.DetProgram.Wr;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * Every work request of a machine: its static description ({@code Wr[k]}) and its dynamic state ({@code wr[k]}), plus
 * what each queue pair remembers of its requests' failures, so that the ordering checks need not look behind the
 * first request still in progress ({@link #firstLive}).
 */
final class WrTable {
    static final byte IDLE = 0;
    static final byte DOORBELL = 1;
    static final byte NIC = 2;

    /**
     * The dynamic state of one request. Fields, copy and hash are kept together, so that a new field is copied and
     * hashed where it is declared.
     *
     * <pre>
     * Verbs.tla:  IdleWr(k) == [st |-> "idle", rd |-> {}, data |-> [i \in Words(k) |-> 0], placed |-> {},
     *                           aw |-> FALSE, lw |-> {}, cpl |-> FALSE, ret |-> FALSE, status |-> "",
     *                           inflight |-> FALSE, lost |-> FALSE]
     * </pre>
     * Word sets are bit masks over the request's words (at most 64).
     */
    static final class State {
        /** "idle", "db" (doorbell buffered) or "nic". */
        byte st;
        /** Words whose first NIC read is done: source reads, remote reads, {1} once an atomic's read phase ran. */
        long rd;
        /** The values read; 0 for a word not read yet. */
        final long[] data;
        /** Words of a put placed at the target. */
        long placed;
        /** The atomic's write phase is done, or not needed. */
        boolean aw;
        /** Words written locally: a get's destination, {1} once an atomic's result is written. */
        long lw;
        /** Completed. */
        boolean cpl;
        /** Retired by a poll or wait. */
        boolean ret;
        /** The error it completes with ("" in Verbs.tla: null here). */
        WcStatus status;
        /** It had reached the NIC when its queue pair broke. */
        boolean inflight;
        /** Its remaining effects were lost with its broken queue pair. */
        boolean lost;
        /** {@code Wr[k].fail}: the status the NIC refuses it with, or null (the fabric may refuse it until started). */
        WcStatus refusal;

        State(int words, WcStatus refusal) {
            this.data = new long[words];
            this.refusal = refusal;
        }

        private State(State o) {
            st = o.st;
            rd = o.rd;
            data = o.data.clone();
            placed = o.placed;
            aw = o.aw;
            lw = o.lw;
            cpl = o.cpl;
            ret = o.ret;
            status = o.status;
            inflight = o.inflight;
            lost = o.lost;
            refusal = o.refusal;
        }

        State copy() {
            return new State(this);
        }

        long hash(long h) {
            int flags = st | (aw ? 4 : 0) | (cpl ? 8 : 0) | (ret ? 16 : 0) | (inflight ? 32 : 0) | (lost ? 64 : 0)
                | (status == null ? 0 : (status.ordinal() + 1) << 8) | (refusal == null ? 0 : (refusal.ordinal() + 1) << 16);
            h = DetMachine.mix(h, flags);
            h = DetMachine.mix(h, rd);
            h = DetMachine.mix(h, placed);
            h = DetMachine.mix(h, lw);
            for (long v : data) {
                h = DetMachine.mix(h, v);
            }
            return h;
        }
    }

    private final ArrayList<Wr> desc;
    private final ArrayList<State> state;
    /** Per queue pair: {index of the first request with a status, index of the first refused request}. */
    private final Map<Integer, int[]> queuePairs;
    /** Every request below this index is finished for good: it satisfies every ordering condition of later ones. */
    int firstLive;

    WrTable() {
        desc = new ArrayList<>();
        state = new ArrayList<>();
        queuePairs = new HashMap<>();
    }

    private WrTable(WrTable o) {
        desc = new ArrayList<>(o.desc);
        state = new ArrayList<>(o.state.size());
        for (State s : o.state) {
            state.add(s.copy());
        }
        queuePairs = new HashMap<>();
        o.queuePairs.forEach((qp, v) -> queuePairs.put(qp, v.clone()));
        firstLive = o.firstLive;
    }

    WrTable copy() {
        return new WrTable(this);
    }

    int add(Wr w) {
        desc.add(w);
        state.add(new State(w.words(), w.refusal()));
        int k = desc.size() - 1;
        if (w.refusal() != null) {
            noteRefusal(k);
        }
        return k;
    }

    int size() {
        return desc.size();
    }

    Wr wr(int k) {
        return desc.get(k);
    }

    State s(int k) {
        return state.get(k);
    }

    private int[] qp(int k) {
        return queuePairs.computeIfAbsent(desc.get(k).qp(), q -> new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE});
    }

    /** Records that request k now has a status. */
    void noteStatus(int k) {
        int[] q = qp(k);
        q[0] = Math.min(q[0], k);
    }

    /** Records that request k is refused. */
    void noteRefusal(int k) {
        int[] q = qp(k);
        q[1] = Math.min(q[1], k);
    }

    /** {@code EarlierFailed(k)}. */
    boolean earlierFailed(int k) {
        int[] q = queuePairs.get(desc.get(k).qp());
        return q != null && q[0] < k;
    }

    /** {@code UnrefusedBefore(k)}. */
    boolean unrefusedBefore(int k) {
        int[] q = queuePairs.get(desc.get(k).qp());
        return q == null || q[1] >= k;
    }

    /** Whether some request of the queue pair has failed. */
    boolean anyFailed(int qp) {
        int[] q = queuePairs.get(qp);
        return q != null && q[0] != Integer.MAX_VALUE;
    }

    long hash(long h) {
        for (State s : state) {
            h = s.hash(h);
        }
        return h;
    }
}
