package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.machine.DetProgram.Wr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Every work request of a machine: its static description ({@code Wr[k]}) and its dynamic state ({@code wr[k]}), plus
 * derived bookkeeping that keeps long runs linear: what each queue pair remembers of its requests ({@link Qp}), and
 * the list of requests that may still take a step. Derived state is copied but not hashed.
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

    /**
     * What one queue pair remembers of its requests: the first failure and the first refusal (they affect every later
     * request), and its requests not yet finished for good, in posting order: the only ones its ordering conditions
     * need to look at (a finished request satisfies every ordering condition of a later one).
     */
    static final class Qp {
        int firstFailed = Integer.MAX_VALUE;
        int firstRefused = Integer.MAX_VALUE;
        int[] pending = new int[4];
        /** Entries before this one are finished (pruned from the front). */
        int head;
        int size;

        Qp copy() {
            Qp c = new Qp();
            c.firstFailed = firstFailed;
            c.firstRefused = firstRefused;
            c.pending = pending.clone();
            c.head = head;
            c.size = size;
            return c;
        }

        void append(int k) {
            if (size == pending.length) {
                if (head > 0) {
                    System.arraycopy(pending, head, pending, 0, size - head);
                    size -= head;
                    head = 0;
                } else {
                    pending = Arrays.copyOf(pending, pending.length * 2);
                }
            }
            pending[size++] = k;
        }
    }

    private final ArrayList<Wr> desc;
    private final ArrayList<State> state;
    private final Map<Integer, Qp> queuePairs;
    /** The requests that may still take a step, in posting order (compacted by {@link #prune}). */
    private int[] live;
    private int liveSize;

    WrTable() {
        desc = new ArrayList<>();
        state = new ArrayList<>();
        queuePairs = new HashMap<>();
        live = new int[16];
    }

    private WrTable(WrTable o) {
        desc = new ArrayList<>(o.desc);
        state = new ArrayList<>(o.state.size());
        for (State s : o.state) {
            state.add(s.copy());
        }
        queuePairs = new HashMap<>();
        o.queuePairs.forEach((qp, v) -> queuePairs.put(qp, v.copy()));
        live = o.live.clone();
        liveSize = o.liveSize;
    }

    WrTable copy() {
        return new WrTable(this);
    }

    int add(Wr w) {
        desc.add(w);
        state.add(new State(w.words(), w.refusal()));
        int k = desc.size() - 1;
        qpOf(k).append(k);
        if (liveSize == live.length) {
            live = Arrays.copyOf(live, live.length * 2);
        }
        live[liveSize++] = k;
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

    /** The bookkeeping of request k's queue pair. */
    Qp qpOf(int k) {
        return queuePairs.computeIfAbsent(desc.get(k).qp(), q -> new Qp());
    }

    /** @return the number of requests that may still take a step */
    int liveSize() {
        return liveSize;
    }

    /**
     * @param i a position in the live list
     * @return the request there
     */
    int live(int i) {
        return live[i];
    }

    /**
     * Drops dead requests from the live list and finished ones from the front of their queue pairs' lists.
     *
     * @param dead no step of the request can ever be enabled again
     * @param finished the request satisfies every ordering condition of later requests of its queue pair
     */
    void prune(IntPredicate dead, IntPredicate finished) {
        int kept = 0;
        for (int i = 0; i < liveSize; i++) {
            int k = live[i];
            Qp q = qpOf(k);
            while (q.head < q.size && finished.test(q.pending[q.head])) {
                q.head++;
            }
            if (!dead.test(k)) {
                live[kept++] = k;
            }
        }
        liveSize = kept;
    }

    /** Records that request k now has a status. */
    void noteStatus(int k) {
        Qp q = qpOf(k);
        q.firstFailed = Math.min(q.firstFailed, k);
    }

    /** Records that request k is refused. */
    void noteRefusal(int k) {
        Qp q = qpOf(k);
        q.firstRefused = Math.min(q.firstRefused, k);
    }

    /** {@code EarlierFailed(k)}. */
    boolean earlierFailed(int k) {
        return qpOf(k).firstFailed < k;
    }

    /** {@code UnrefusedBefore(k)}. */
    boolean unrefusedBefore(int k) {
        return qpOf(k).firstRefused >= k;
    }

    /**
     * @param qp a queue pair's number
     * @return whether some request of the queue pair has failed
     */
    boolean anyFailed(int qp) {
        Qp q = queuePairs.get(qp);
        return q != null && q.firstFailed != Integer.MAX_VALUE;
    }

    long hash(long h) {
        for (State s : state) {
            h = s.hash(h);
        }
        return h;
    }
}
