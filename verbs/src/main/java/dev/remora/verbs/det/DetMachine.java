package dev.remora.verbs.det;

import dev.remora.verbs.det.DetProgram.Kind;
import dev.remora.verbs.det.DetProgram.Op;
import dev.remora.verbs.det.DetProgram.Wr;

import java.util.Arrays;

/**
 * One state of the deterministic RDMA machine running a {@link DetProgram}, and its steps. The state and every step
 * mirror {@code spec/rdma/Verbs.tla} and {@code RDMA.tla} one for one, so that the machine and TLC agree on every
 * litmus test:
 * <ul>
 *   <li>CPU steps of each thread: store (into the TSO store buffer), load (store-buffer forwarding), mfence and
 *       locked add (only with an empty store buffer), post (the doorbell enters the store buffer: R2), poll, wait;</li>
 *   <li>{@code Drain(t)}: the oldest store-buffer entry reaches memory, or its doorbell reaches the NIC;</li>
 *   <li>NIC sub-actions of each work request: put source read, put remote write of each word, get remote read, get
 *       local write, atomic read phase, atomic write phase, atomic local write, completion; enabled as R6–R10,
 *       R13–R16, R18 and the knobs say.</li>
 * </ul>
 * A step is an {@code int}: {@code kind << 24 | index << 8 | sub}. States are mutable; {@link #copy()} clones.
 */
public final class DetMachine {
    // step kinds
    static final int THREAD = 1;
    static final int DRAIN = 2;
    static final int PUT_READ = 3;
    static final int PUT_WRITE = 4;
    static final int GET_READ = 5;
    static final int GET_LOCAL_WRITE = 6;
    static final int ATOMIC_READ = 7;
    static final int ATOMIC_WRITE = 8;
    static final int ATOMIC_LOCAL_WRITE = 9;
    static final int COMPLETE = 10;

    private static final byte IDLE = 0;
    private static final byte DOORBELL = 1;
    private static final byte NIC = 2;

    private final DetProgram program;
    private final DetKnobs knobs;

    final long[] mem;
    final int[] pc;
    final long[] reg;
    /** Store buffers: per thread, entries {@code (word, value)}; a doorbell is {@code (-1 - wr, 0)}. */
    private final long[][] sb;
    private final int[] sbLength;
    private final byte[] st;
    private final boolean[] rd;
    private final boolean[] aw;
    private final boolean[] lw;
    private final boolean[] cpl;
    private final boolean[] ret;
    private final long[][] data;
    private final long[] placed;

    /**
     * The initial state of a program.
     *
     * @param program the program
     * @param knobs the memory-model knobs
     */
    public DetMachine(DetProgram program, DetKnobs knobs) {
        this.program = program;
        this.knobs = knobs;
        int threads = program.threads();
        int wrs = program.wrs().size();
        mem = program.initial().clone();
        pc = new int[threads];
        reg = new long[program.registerNames().size()];
        sb = new long[threads][];
        sbLength = new int[threads];
        for (int t = 0; t < threads; t++) {
            sb[t] = new long[2 * Math.max(1, program.threadOps().get(t).size() * 2)];
        }
        st = new byte[wrs];
        rd = new boolean[wrs];
        aw = new boolean[wrs];
        lw = new boolean[wrs];
        cpl = new boolean[wrs];
        ret = new boolean[wrs];
        data = new long[wrs][];
        placed = new long[wrs];
    }

    private DetMachine(DetMachine o) {
        program = o.program;
        knobs = o.knobs;
        mem = o.mem.clone();
        pc = o.pc.clone();
        reg = o.reg.clone();
        sb = new long[o.sb.length][];
        for (int t = 0; t < sb.length; t++) {
            sb[t] = o.sb[t].clone();
        }
        sbLength = o.sbLength.clone();
        st = o.st.clone();
        rd = o.rd.clone();
        aw = o.aw.clone();
        lw = o.lw.clone();
        cpl = o.cpl.clone();
        ret = o.ret.clone();
        data = o.data.clone();
        placed = o.placed.clone();
    }

    /** @return an independent copy of this state */
    public DetMachine copy() {
        return new DetMachine(this);
    }

    /** @return the program */
    public DetProgram program() {
        return program;
    }

    // ------------------------------------------------------------------ helpers

    static int step(int kind, int index, int sub) {
        return kind << 24 | index << 8 | sub;
    }

    static int kindOf(int step) {
        return step >>> 24;
    }

    static int indexOf(int step) {
        return (step >>> 8) & 0xFFFF;
    }

    static int subOf(int step) {
        return step & 0xFF;
    }

    private Wr wr(int k) {
        return program.wrs().get(k);
    }

    private boolean running(int t) {
        return pc[t] < program.threadOps().get(t).size();
    }

    private Op op(int t) {
        return program.threadOps().get(t).get(pc[t]);
    }

    private boolean earlier(int j, int k) {
        Wr a = wr(j);
        Wr b = wr(k);
        return j < k && a.thread() == b.thread() && a.node() == b.node();
    }

    private boolean placedAll(int k) {
        int n = wr(k).dst().length;
        return placed[k] == (n == 64 ? -1L : (1L << n) - 1);
    }

    private boolean atomicDone(int k) {
        return rd[k] && aw[k];
    }

    private boolean inAtomicWindow(int k) {
        return wr(k).isAtomic() && rd[k] && !aw[k];
    }

    private long cpuLoad(int t, int word) {
        for (int i = sbLength[t] - 1; i >= 0; i--) {
            if (sb[t][2 * i] == word) {
                return sb[t][2 * i + 1];
            }
        }
        return mem[word];
    }

    private void sbAppend(int t, long loc, long value) {
        int n = sbLength[t];
        if (2 * n + 2 > sb[t].length) {
            sb[t] = Arrays.copyOf(sb[t], sb[t].length * 2);
        }
        sb[t][2 * n] = loc;
        sb[t][2 * n + 1] = value;
        sbLength[t] = n + 1;
    }

    private static long atomicNew(Wr w, long old) {
        return w.kind() == Kind.CAS ? w.val() : old + w.val();
    }

    private static boolean atomicWrites(Wr w, long old) {
        return w.kind() == Kind.FAA || old == w.cmp(); // R16: a failed CAS writes nothing
    }

    // ------------------------------------------------------------------ enabling conditions (Verbs.tla)

    /** R13: a fenced WR starts only once every earlier read and atomic completed. */
    private boolean fenceOk(int k) {
        if (!wr(k).fence()) {
            return true;
        }
        for (int j = 0; j < k; j++) {
            if (earlier(j, k) && wr(j).kind() != Kind.PUT && !cpl[j]) {
                return false;
            }
        }
        return true;
    }

    /** A put's source read follows earlier puts' source reads only (R8: not earlier local writes). */
    private boolean putReadOrdered(int k) {
        for (int j = 0; j < k; j++) {
            if (earlier(j, k) && wr(j).kind() == Kind.PUT && !rd[j]) {
                return false;
            }
        }
        return true;
    }

    /** R6 (unless relaxed), R9, R8 (unless reads may be passed). */
    private boolean putWriteOrdered(int k) {
        for (int j = 0; j < k; j++) {
            if (!earlier(j, k)) {
                continue;
            }
            boolean ok = switch (wr(j).kind()) {
                case PUT -> knobs.relaxedOrdering() || placedAll(j);
                case GET -> knobs.readPassableByWrite() || rd[j];
                default -> atomicDone(j);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** R7 (the read flush) and R9; earlier gets do not order a read. */
    private boolean readOrdered(int k) {
        for (int j = 0; j < k; j++) {
            if (!earlier(j, k)) {
                continue;
            }
            boolean ok = switch (wr(j).kind()) {
                case PUT -> placedAll(j);
                case GET -> true;
                default -> atomicDone(j);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** rao: remote atomics at one node are mutually exclusive (R14). */
    private boolean noAtomicWindowAt(int node) {
        for (int j = 0; j < st.length; j++) {
            if (wr(j).node() == node && inAtomicWindow(j)) {
                return false;
            }
        }
        return true;
    }

    /** R11: in order per queue pair; a put once acked (or placed), a get or atomic once its local write is done. */
    private boolean canComplete(int k) {
        if (st[k] != NIC || cpl[k]) {
            return false;
        }
        for (int j = 0; j < k; j++) {
            if (earlier(j, k) && !cpl[j]) {
                return false;
            }
        }
        Wr w = wr(k);
        if (w.kind() == Kind.PUT) {
            return rd[k] && (knobs.putCompletion() != DetKnobs.PutCompletion.ON_PLACEMENT || placedAll(k));
        }
        return lw[k] && (!w.isAtomic() || aw[k]);
    }

    private int oldestUnretired(int t, int node) {
        for (int k = 0; k < st.length; k++) {
            Wr w = wr(k);
            if (w.thread() == t && w.node() == node && st[k] != IDLE && !ret[k]) {
                return k;
            }
        }
        return -1;
    }

    private boolean threadEnabled(int t) {
        if (!running(t)) {
            return false;
        }
        Op o = op(t);
        if (o instanceof DetProgram.MFence || o instanceof DetProgram.LockedAdd) {
            return sbLength[t] == 0;
        }
        if (o instanceof DetProgram.Poll p) {
            int k = oldestUnretired(t, p.node());
            return k >= 0 && cpl[k];
        }
        if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < st.length; k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && st[k] != IDLE && !cpl[k]) {
                    return false;
                }
            }
            return true;
        }
        return true;
    }

    /**
     * The steps enabled in this state, in a fixed order.
     *
     * @param out receives the steps
     * @return the number of steps
     */
    public int enabled(int[] out) {
        int n = 0;
        int threads = pc.length;
        for (int t = 0; t < threads; t++) {
            if (threadEnabled(t)) {
                out[n++] = step(THREAD, t, 0);
            }
        }
        for (int t = 0; t < threads; t++) {
            if (sbLength[t] > 0) {
                out[n++] = step(DRAIN, t, 0);
            }
        }
        for (int k = 0; k < st.length; k++) {
            if (st[k] != NIC) {
                continue;
            }
            Wr w = wr(k);
            switch (w.kind()) {
                case PUT -> {
                    if (!rd[k] && fenceOk(k) && putReadOrdered(k)) {
                        out[n++] = step(PUT_READ, k, 0);
                    }
                    if (rd[k] && fenceOk(k) && putWriteOrdered(k)) {
                        for (int i = 0; i < w.dst().length; i++) {
                            if ((placed[k] & (1L << i)) != 0) {
                                continue;
                            }
                            if (knobs.dataInOrder() && Long.numberOfTrailingZeros(~placed[k]) < i) {
                                continue;
                            }
                            out[n++] = step(PUT_WRITE, k, i);
                        }
                    }
                }
                case GET -> {
                    if (!rd[k] && fenceOk(k) && readOrdered(k)) {
                        out[n++] = step(GET_READ, k, 0);
                    }
                    if (rd[k] && !lw[k]) {
                        out[n++] = step(GET_LOCAL_WRITE, k, 0);
                    }
                }
                default -> {
                    if (!rd[k] && fenceOk(k) && readOrdered(k) && noAtomicWindowAt(w.node())) {
                        out[n++] = step(ATOMIC_READ, k, 0);
                    }
                    if (inAtomicWindow(k)) {
                        out[n++] = step(ATOMIC_WRITE, k, 0);
                    }
                    if (atomicDone(k) && !lw[k]) {
                        out[n++] = step(ATOMIC_LOCAL_WRITE, k, 0);
                    }
                }
            }
            if (canComplete(k)) {
                out[n++] = step(COMPLETE, k, 0);
            }
        }
        return n;
    }

    /** @return an upper bound on the number of enabled steps, for sizing {@link #enabled(int[])}'s array */
    public int maxSteps() {
        int words = 0;
        for (Wr w : program.wrs()) {
            words += w.dst().length + 2;
        }
        return 2 * pc.length + words + 8;
    }

    /** @return an upper bound on the length of any execution: every step makes progress, so executions end */
    public int maxDepth() {
        int d = 16;
        for (java.util.List<Op> ops : program.threadOps()) {
            d += 2 * ops.size();
        }
        for (Wr w : program.wrs()) {
            d += w.dst().length + 6;
        }
        return d;
    }

    // ------------------------------------------------------------------ steps

    /**
     * Performs an enabled step.
     *
     * @param step a step returned by {@link #enabled(int[])}
     */
    public void apply(int step) {
        int i = indexOf(step);
        switch (kindOf(step)) {
            case THREAD -> threadStep(i);
            case DRAIN -> drain(i);
            case PUT_READ, GET_READ -> {
                Wr w = wr(i);
                long[] d = new long[w.src().length];
                for (int x = 0; x < d.length; x++) {
                    d[x] = mem[w.src()[x]];
                }
                data[i] = d;
                rd[i] = true;
            }
            case PUT_WRITE -> {
                int word = subOf(step);
                mem[wr(i).dst()[word]] = data[i][word];
                placed[i] |= 1L << word;
            }
            case GET_LOCAL_WRITE -> {
                Wr w = wr(i);
                for (int x = 0; x < w.dst().length; x++) {
                    mem[w.dst()[x]] = data[i][x];
                }
                lw[i] = true;
            }
            case ATOMIC_READ -> {
                Wr w = wr(i);
                int l = w.dst()[0];
                long old = mem[l];
                boolean writes = atomicWrites(w, old);
                boolean fused = knobs.atomicCap() == DetKnobs.AtomicCap.GLOB;
                rd[i] = true;
                data[i] = new long[] {old};
                aw[i] = !writes || fused;
                if (writes && fused) {
                    mem[l] = atomicNew(w, old);
                }
            }
            case ATOMIC_WRITE -> {
                Wr w = wr(i);
                mem[w.dst()[0]] = atomicNew(w, data[i][0]);
                aw[i] = true;
            }
            case ATOMIC_LOCAL_WRITE -> {
                mem[wr(i).res()] = data[i][0];
                lw[i] = true;
            }
            case COMPLETE -> cpl[i] = true;
            default -> throw new IllegalArgumentException("not a step: " + step);
        }
    }

    private void threadStep(int t) {
        Op o = op(t);
        if (o instanceof DetProgram.Store s) {
            if (knobs.scMode()) {
                mem[s.word()] = s.value();
            } else {
                sbAppend(t, s.word(), s.value());
            }
        } else if (o instanceof DetProgram.Load l) {
            reg[l.register()] = cpuLoad(t, l.word());
        } else if (o instanceof DetProgram.LockedAdd a) {
            long old = mem[a.word()];
            mem[a.word()] = old + a.addend();
            if (a.register() >= 0) {
                reg[a.register()] = old;
            }
        } else if (o instanceof DetProgram.Post p) {
            issue(t, p.wr());
        } else if (o instanceof DetProgram.Poll p) {
            ret[oldestUnretired(t, p.node())] = true;
        } else if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < st.length; k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && st[k] != IDLE) {
                    ret[k] = true;
                }
            }
        } else if (!(o instanceof DetProgram.MFence)) {
            throw new IllegalStateException("unknown operation " + o);
        }
        pc[t]++;
    }

    /** Issue(k): the doorbell enters the store buffer (R2); an inline put copies its source now (R3). */
    private void issue(int t, int k) {
        Wr w = wr(k);
        if (knobs.scMode()) {
            scExecute(k);
            return;
        }
        sbAppend(t, -1 - k, 0);
        st[k] = DOORBELL;
        if (w.inline()) {
            long[] d = new long[w.src().length];
            for (int x = 0; x < d.length; x++) {
                d[x] = cpuLoad(t, w.src()[x]);
            }
            data[k] = d;
            rd[k] = true;
        }
    }

    /** The whole effect of a work request as one step (SC_MODE). */
    private void scExecute(int k) {
        Wr w = wr(k);
        switch (w.kind()) {
            case PUT, GET -> {
                long[] d = new long[w.src().length];
                for (int x = 0; x < d.length; x++) {
                    d[x] = mem[w.src()[x]];
                }
                for (int x = 0; x < d.length; x++) {
                    mem[w.dst()[x]] = d[x];
                }
            }
            default -> {
                long old = mem[w.dst()[0]];
                if (atomicWrites(w, old)) {
                    mem[w.dst()[0]] = atomicNew(w, old);
                }
                mem[w.res()] = old;
            }
        }
        st[k] = NIC;
        rd[k] = aw[k] = lw[k] = cpl[k] = true;
        placed[k] = w.dst().length == 64 ? -1L : (1L << w.dst().length) - 1;
    }

    private void drain(int t) {
        long loc = sb[t][0];
        long value = sb[t][1];
        if (loc >= 0) {
            mem[(int) loc] = value;
        } else {
            st[(int) (-1 - loc)] = NIC;
        }
        int n = --sbLength[t];
        System.arraycopy(sb[t], 2, sb[t], 0, 2 * n);
    }

    // ------------------------------------------------------------------ observation

    /**
     * Whether everything has run: threads finished, store buffers drained, every issued request completed, placed
     * and, for atomics, written (the state in which a litmus outcome is read).
     *
     * @return true when quiescent
     */
    public boolean quiescent() {
        for (int t = 0; t < pc.length; t++) {
            if (running(t) || sbLength[t] > 0) {
                return false;
            }
        }
        for (int k = 0; k < st.length; k++) {
            if (st[k] == IDLE) {
                continue;
            }
            Wr w = wr(k);
            if (!cpl[k] || (w.kind() == Kind.PUT && !placedAll(k)) || (w.isAtomic() && !atomicDone(k))) {
                return false;
            }
        }
        return true;
    }

    /** @return the observable outcome: every word's value, then every register's */
    public long[] outcome() {
        long[] o = Arrays.copyOf(mem, mem.length + reg.length);
        System.arraycopy(reg, 0, o, mem.length, reg.length);
        return o;
    }

    /**
     * A 64-bit fingerprint of the whole state, for state hashing in the exhaustive search.
     *
     * @return the fingerprint
     */
    public long fingerprint() {
        long h = 0x9E3779B97F4A7C15L;
        h = mix(h, mem);
        h = mix(h, reg);
        for (int t = 0; t < pc.length; t++) {
            h = mix(h, pc[t]);
            h = mix(h, sbLength[t]);
            for (int i = 0; i < 2 * sbLength[t]; i++) {
                h = mix(h, sb[t][i]);
            }
        }
        for (int k = 0; k < st.length; k++) {
            int flags = st[k] | (rd[k] ? 4 : 0) | (aw[k] ? 8 : 0) | (lw[k] ? 16 : 0) | (cpl[k] ? 32 : 0)
                | (ret[k] ? 64 : 0);
            h = mix(h, flags);
            h = mix(h, placed[k]);
            if (data[k] != null) {
                h = mix(h, data[k]);
            }
        }
        return h;
    }

    private static long mix(long h, long[] values) {
        for (long v : values) {
            h = mix(h, v);
        }
        return h;
    }

    static long mix(long h, long v) {
        h ^= v;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    /**
     * Describes a step for traces, e.g. {@code T0:Store(x=1)} or {@code put#2.write[0]}.
     *
     * @param step the step
     * @return a readable description
     */
    public String describe(int step) {
        int i = indexOf(step);
        return switch (kindOf(step)) {
            case THREAD -> "T" + i + ":" + (running(i) ? op(i).toString() : "done");
            case DRAIN -> "T" + i + ":drain";
            case PUT_READ -> "wr" + i + ".sourceRead";
            case PUT_WRITE -> "wr" + i + ".remoteWrite[" + subOf(step) + "]";
            case GET_READ -> "wr" + i + ".remoteRead";
            case GET_LOCAL_WRITE -> "wr" + i + ".localWrite";
            case ATOMIC_READ -> "wr" + i + ".atomicRead";
            case ATOMIC_WRITE -> "wr" + i + ".atomicWrite";
            case ATOMIC_LOCAL_WRITE -> "wr" + i + ".atomicLocalWrite";
            case COMPLETE -> "wr" + i + ".complete";
            default -> "?" + step;
        };
    }
}
