package dev.remora.verbs.det;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetProgram.Kind;
import dev.remora.verbs.det.DetProgram.Op;
import dev.remora.verbs.det.DetProgram.Wr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * One state of the deterministic RDMA machine, and its steps. The state and every step mirror
 * {@code spec/rdma/Verbs.tla} and {@code RDMA.tla} one for one, so that the machine and TLC agree on every litmus
 * test:
 * <ul>
 *   <li>CPU steps of each thread: store (into the TSO store buffer), load (store-buffer forwarding), mfence and
 *       locked read-modify-writes (only with an empty store buffer), post (the doorbell enters the store buffer:
 *       R2), poll, wait;</li>
 *   <li>{@code Drain(t)}: the oldest store-buffer entry reaches memory, or its doorbell reaches the NIC;</li>
 *   <li>NIC sub-actions of each work request: put source read, put remote write of each word, get remote read, get
 *       local write, atomic read phase, atomic write phase, atomic local write, completion; enabled as R6–R10,
 *       R13–R16, R18 and the knobs say.</li>
 * </ul>
 * Beyond the TLA+ model, for the deterministic fabric: memory and work requests can be added while running
 * ({@link #addWords}, {@link #addWr}); threads can be <em>external</em> (their next operation is set by a Java
 * thread through {@link #setPending}); a request can fail (a preset status such as {@code REM_ACCESS_ERR}, a crashed
 * target, a cut link, a queue pair forced to ERROR), in which case its first NIC step is a {@code FAIL} step that has
 * no memory effect, and every later request of its queue pair flushes (R17).
 *
 * <p>A step is an {@code int}: {@code kind << 24 | index << 8 | sub}. States are mutable; {@link #copy()} clones.
 */
public final class DetMachine {
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
    static final int FAIL = 11;

    private static final byte IDLE = 0;
    private static final byte DOORBELL = 1;
    private static final byte NIC = 2;

    /** Called when a request completes (the deterministic fabric delivers completions with it). */
    public interface CompletionListener {
        /**
         * @param machine the state
         * @param wr the request's index
         * @param status SUCCESS or the failure
         */
        void completed(DetMachine machine, int wr, WcStatus status);
    }

    private final DetProgram program;
    private final DetKnobs knobs;
    private CompletionListener listener;

    private long[] mem;
    private int words;
    private int[] pc;
    private long[] reg;
    private Op[] pending;
    private long[] result;
    private long[][] sb;
    private int[] sbLength;
    private int threads;

    private final ArrayList<Wr> wrs;
    private int wrCount;
    private byte[] st;
    private boolean[] rd;
    private boolean[] aw;
    private boolean[] lw;
    private boolean[] cpl;
    private boolean[] ret;
    private long[][] data;
    private long[] placed;
    private WcStatus[] status;
    private WcStatus[] preset;
    /**
     * Every request below this index is finished for good (completed, placed, written): it satisfies every ordering
     * condition, so the scans skip it. Long runs of the deterministic fabric post thousands of requests.
     */
    private int firstLive;

    /** Queue pairs in ERROR (a request failed, or a fault): every request not yet started flushes. */
    private BitSet failedQps = new BitSet();
    private BitSet downNodes = new BitSet();
    private BitSet cutLinks = new BitSet();

    /**
     * The initial state of a program.
     *
     * @param program the program (its threads are scripted)
     * @param knobs the memory-model knobs
     */
    public DetMachine(DetProgram program, DetKnobs knobs) {
        this.program = program;
        this.knobs = knobs;
        this.mem = program.initial().clone();
        this.words = mem.length;
        this.threads = program.threads();
        this.pc = new int[threads];
        this.reg = new long[program.registerNames().size()];
        this.pending = new Op[threads];
        this.result = new long[threads];
        this.sb = new long[threads][];
        this.sbLength = new int[threads];
        for (int t = 0; t < threads; t++) {
            sb[t] = new long[8];
        }
        this.wrs = new ArrayList<>(program.wrs());
        this.wrCount = wrs.size();
        int cap = Math.max(4, wrCount);
        st = new byte[cap];
        rd = new boolean[cap];
        aw = new boolean[cap];
        lw = new boolean[cap];
        cpl = new boolean[cap];
        ret = new boolean[cap];
        data = new long[cap][];
        placed = new long[cap];
        status = new WcStatus[cap];
        preset = new WcStatus[cap];
    }

    private DetMachine(DetMachine o) {
        program = o.program;
        knobs = o.knobs;
        listener = o.listener;
        mem = o.mem.clone();
        words = o.words;
        threads = o.threads;
        pc = o.pc.clone();
        reg = o.reg.clone();
        pending = o.pending.clone();
        result = o.result.clone();
        sb = new long[o.sb.length][];
        for (int t = 0; t < sb.length; t++) {
            sb[t] = o.sb[t].clone();
        }
        sbLength = o.sbLength.clone();
        wrs = new ArrayList<>(o.wrs);
        wrCount = o.wrCount;
        st = o.st.clone();
        rd = o.rd.clone();
        aw = o.aw.clone();
        lw = o.lw.clone();
        cpl = o.cpl.clone();
        ret = o.ret.clone();
        data = o.data.clone();
        placed = o.placed.clone();
        status = o.status.clone();
        preset = o.preset.clone();
        firstLive = o.firstLive;
        failedQps = (BitSet) o.failedQps.clone();
        downNodes = (BitSet) o.downNodes.clone();
        cutLinks = (BitSet) o.cutLinks.clone();
    }

    /** @return an independent copy of this state */
    public DetMachine copy() {
        return new DetMachine(this);
    }

    /** @return the program */
    public DetProgram program() {
        return program;
    }

    /** @return the knobs */
    public DetKnobs knobs() {
        return knobs;
    }

    /** @param l receives every completion */
    public void completionListener(CompletionListener l) {
        this.listener = l;
    }

    // ------------------------------------------------------------------ growth (the deterministic fabric)

    /**
     * Adds zeroed words.
     *
     * @param n how many
     * @return the index of the first
     */
    public int addWords(int n) {
        int first = words;
        if (words + n > mem.length) {
            mem = Arrays.copyOf(mem, Math.max(words + n, mem.length * 2 + 16));
        }
        words += n;
        return first;
    }

    /**
     * Adds an external thread, driven by {@link #setPending}.
     *
     * @return its index
     */
    public int addExternalThread() {
        int t = threads++;
        pc = Arrays.copyOf(pc, threads);
        pending = Arrays.copyOf(pending, threads);
        result = Arrays.copyOf(result, threads);
        sb = Arrays.copyOf(sb, threads);
        sb[t] = new long[8];
        sbLength = Arrays.copyOf(sbLength, threads);
        return t;
    }

    /**
     * Adds a work request (not yet posted).
     *
     * @param w the request
     * @param failure a status the request fails with when the NIC starts it (a bad key, bounds, alignment), or null
     * @return its index
     */
    public int addWr(Wr w, WcStatus failure) {
        int k = wrCount++;
        wrs.add(w);
        if (k >= st.length) {
            int cap = st.length * 2;
            st = Arrays.copyOf(st, cap);
            rd = Arrays.copyOf(rd, cap);
            aw = Arrays.copyOf(aw, cap);
            lw = Arrays.copyOf(lw, cap);
            cpl = Arrays.copyOf(cpl, cap);
            ret = Arrays.copyOf(ret, cap);
            data = Arrays.copyOf(data, cap);
            placed = Arrays.copyOf(placed, cap);
            status = Arrays.copyOf(status, cap);
            preset = Arrays.copyOf(preset, cap);
        }
        preset[k] = failure;
        return k;
    }

    /**
     * Sets the next operation of an external thread (replacing nothing: the previous one must have run).
     *
     * @param t the thread
     * @param op the operation
     */
    public void setPending(int t, Op op) {
        if (pending[t] != null) {
            throw new IllegalStateException("thread " + t + " already has a pending operation");
        }
        pending[t] = op;
    }

    /**
     * @param t a thread
     * @return the result of its last operation
     */
    public long result(int t) {
        return result[t];
    }

    /**
     * @param t a thread
     * @return whether an external thread has an operation waiting to be scheduled
     */
    public boolean hasPending(int t) {
        return pending[t] != null;
    }

    /**
     * @param t an external thread
     * @return its pending operation, or null
     */
    public Op pendingOp(int t) {
        return pending[t];
    }

    /**
     * Ends an external thread's pending operation without performing it, with the given result (a wait timing out).
     *
     * @param t the thread
     * @param value the result
     */
    public void completeExternally(int t, long value) {
        pending[t] = null;
        result[t] = value;
        pc[t]++;
    }

    /** Drops an external thread's pending operation (its Java thread died). */
    void clearPending(int t) {
        pending[t] = null;
    }

    /**
     * @param word a word index
     * @return its value in memory (not in any store buffer)
     */
    public long memory(int word) {
        return mem[word];
    }

    /**
     * Writes a word directly (initialisation outside any run).
     *
     * @param word the word
     * @param value the value
     */
    public void setMemory(int word, long value) {
        mem[word] = value;
    }

    /**
     * @param k a request
     * @return its status once failed or completed, else null
     */
    public WcStatus status(int k) {
        return status[k];
    }

    /**
     * @param k a request
     * @return its static description
     */
    public Wr wrAt(int k) {
        return wrs.get(k);
    }

    /**
     * @param k a request
     * @return the values its first read returned (source words of a put, remote words of a get, old value of an
     *     atomic)
     */
    public long[] dataOf(int k) {
        return data[k];
    }

    /**
     * Fault: a node crashes or becomes unreachable; requests to it that have not started fail with RETRY_EXC_ERR.
     *
     * @param node the node
     * @param loseMemory whether the node's words are zeroed
     * @param nodeWords the word ranges the node owns, as {@code [first, count]} pairs (used with loseMemory)
     */
    public void crashNode(int node, boolean loseMemory, int[][] nodeWords) {
        downNodes.set(node);
        for (int t = 0; t < threads; t++) {
            if (nodeOfThread(t) == node) {
                sbLength[t] = 0; // the CPU's store buffer dies with it
            }
        }
        if (loseMemory) {
            for (int[] range : nodeWords) {
                Arrays.fill(mem, range[0], range[0] + range[1], 0L);
            }
        }
    }

    /** @param node a node @return whether it crashed */
    public boolean isDown(int node) {
        return downNodes.get(node);
    }

    /**
     * Fault: requests from a to b (either way) that have not started fail with RETRY_EXC_ERR.
     *
     * @param a a node
     * @param b another node
     */
    public void cutLink(int a, int b) {
        cutLinks.set(linkBit(a, b));
    }

    private static int linkBit(int a, int b) {
        return Math.min(a, b) * 4096 + Math.max(a, b);
    }

    /**
     * Fault: a queue pair goes to ERROR; its requests that have not started flush.
     *
     * @param qp the queue pair
     */
    public void failQueuePair(int qp) {
        failedQps.set(qp);
    }

    /** @param qp a queue pair @return whether it is in ERROR */
    public boolean isQueuePairFailed(int qp) {
        return failedQps.get(qp);
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
        return wrs.get(k);
    }

    private boolean scripted(int t) {
        return t < program.threads();
    }

    private boolean running(int t) {
        return scripted(t) ? pc[t] < program.threadOps().get(t).size() : pending[t] != null;
    }

    private Op op(int t) {
        return scripted(t) ? program.threadOps().get(t).get(pc[t]) : pending[t];
    }

    private boolean earlier(int j, int k) {
        return j < k && wr(j).qp() == wr(k).qp();
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

    /**
     * What thread t reads at {@code word}: its newest buffered store to it, else memory (R1).
     *
     * @param t the thread
     * @param word the word
     * @return the value
     */
    public long cpuLoad(int t, int word) {
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

    /**
     * @param t a thread
     * @return whether its store buffer is empty
     */
    public boolean storeBufferEmpty(int t) {
        return sbLength[t] == 0;
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
        for (int j = firstLive; j < k; j++) {
            if (earlier(j, k) && wr(j).kind() != Kind.PUT && !cpl[j]) {
                return false;
            }
        }
        return true;
    }

    /** A put's source read follows earlier puts' source reads only (R8: not earlier local writes). */
    private boolean putReadOrdered(int k) {
        for (int j = firstLive; j < k; j++) {
            if (earlier(j, k) && wr(j).kind() == Kind.PUT && !rd[j]) {
                return false;
            }
        }
        return true;
    }

    /** R6 (unless relaxed), R9, R8 (unless reads may be passed). */
    private boolean putWriteOrdered(int k) {
        for (int j = firstLive; j < k; j++) {
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
        for (int j = firstLive; j < k; j++) {
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
        for (int j = firstLive; j < wrCount; j++) {
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
        for (int j = firstLive; j < k; j++) {
            if (earlier(j, k) && !cpl[j]) {
                return false;
            }
        }
        if (status[k] != null) {
            return true; // failed: nothing more to do
        }
        Wr w = wr(k);
        if (w.kind() == Kind.PUT) {
            return rd[k] && (knobs.putCompletion() != DetKnobs.PutCompletion.ON_PLACEMENT || placedAll(k));
        }
        return lw[k] && (!w.isAtomic() || aw[k]);
    }

    /** Whether k is done for good: nothing about it can change any more. */
    private boolean finished(int k) {
        if (st[k] != NIC || !cpl[k]) {
            return false;
        }
        Wr w = wr(k);
        return (w.kind() != Kind.PUT || placedAll(k)) && (!w.isAtomic() || (atomicDone(k) && lw[k]))
            && (w.kind() != Kind.GET || lw[k]);
    }

    /** Whether the NIC has started k (any sub-action after an inline put's post-time copy). */
    private boolean started(int k) {
        return status[k] != null || (rd[k] && !(wr(k).inline() && placed[k] == 0)) || placed[k] != 0;
    }

    /** The status a not-yet-started request fails with, or null if it runs normally. */
    private WcStatus doom(int k) {
        Wr w = wr(k);
        if (failedQps.get(w.qp())) {
            // R17: once a request of the queue pair failed (or a fault moved it to ERROR), what has not started flushes.
            return WcStatus.WR_FLUSH_ERR;
        }
        if (preset[k] != null) {
            return preset[k];
        }
        if (downNodes.get(w.node()) || (w.thread() < threads && cutLinks.get(linkBit(threadNode(w), w.node())))) {
            return WcStatus.RETRY_EXC_ERR;
        }
        return null;
    }

    private int threadNode(Wr w) {
        return nodeOfThread(w.thread());
    }

    private int nodeOfThread(int t) {
        return t < program.threads() ? program.threadNodes()[t] : nodeOfExternal(t);
    }

    /**
     * Whether a doomed request may take its FAIL step now: a flush may happen at once, but a request that fails on
     * its own (bad key, dead peer) fails when its first sub-action would happen, so it respects the same ordering.
     */
    private boolean failOrdered(int k, WcStatus failure) {
        if (failure == WcStatus.WR_FLUSH_ERR) {
            return true;
        }
        Wr w = wr(k);
        if (!fenceOk(k)) {
            return false;
        }
        return switch (w.kind()) {
            case PUT -> w.inline() ? putWriteOrdered(k) : putReadOrdered(k);
            default -> readOrdered(k);
        };
    }

    private int[] externalNodes = new int[0];

    /**
     * Records the node an external thread runs on (for cut links).
     *
     * @param t the thread
     * @param node its node
     */
    public void externalThreadNode(int t, int node) {
        if (t >= externalNodes.length) {
            externalNodes = Arrays.copyOf(externalNodes, Math.max(t + 1, externalNodes.length * 2));
        }
        externalNodes[t] = node;
    }

    private int nodeOfExternal(int t) {
        return t < externalNodes.length ? externalNodes[t] : -1;
    }

    private int oldestUnretired(int t, int node) {
        for (int k = 0; k < wrCount; k++) {
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
        if (o instanceof DetProgram.MFence || o instanceof DetProgram.LockedAdd || o instanceof DetProgram.LockedCas) {
            return sbLength[t] == 0;
        }
        if (o instanceof DetProgram.Poll p) {
            int k = oldestUnretired(t, p.node());
            return k >= 0 && cpl[k];
        }
        if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < wrCount; k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && st[k] != IDLE && !cpl[k]) {
                    return false;
                }
            }
            return true;
        }
        if (o instanceof DetProgram.External e) {
            return e.enabled(this);
        }
        return true;
    }

    /**
     * The steps enabled in this state, in a fixed order.
     *
     * @param out receives the steps; at least {@link #maxSteps()} long
     * @return the number of steps
     */
    public int enabled(int[] out) {
        int n = 0;
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
        while (firstLive < wrCount && finished(firstLive)) {
            firstLive++;
        }
        for (int k = firstLive; k < wrCount; k++) {
            if (st[k] != NIC) {
                continue;
            }
            if (!started(k)) {
                WcStatus failure = doom(k);
                if (failure != null) {
                    if (failOrdered(k, failure)) {
                        out[n++] = step(FAIL, k, 0);
                    }
                    continue;
                }
            }
            if (status[k] == null || status[k] == WcStatus.SUCCESS) {
                n = nicSteps(k, out, n); // a put completed on ack may still have words to place
            }
            if (canComplete(k)) {
                out[n++] = step(COMPLETE, k, 0);
            }
        }
        return n;
    }

    private int nicSteps(int k, int[] out, int n) {
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
        return n;
    }

    /** @return an upper bound on the number of steps enabled at once, for sizing {@link #enabled(int[])}'s array */
    public int maxSteps() {
        int n = 2 * threads + 8;
        for (int k = firstLive; k < wrCount; k++) {
            n += wr(k).dst().length + 2;
        }
        return n;
    }

    /** @return an upper bound on the length of an execution of the scripted program (every step makes progress) */
    public int maxDepth() {
        int d = 16;
        for (List<Op> ops : program.threadOps()) {
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
            case FAIL -> {
                // R17: no memory effect; the queue pair goes to ERROR and later requests flush.
                status[i] = doom(i);
                rd[i] = aw[i] = lw[i] = true;
                int n = wr(i).dst().length;
                placed[i] = n == 64 ? -1L : (1L << n) - 1;
                failedQps.set(wr(i).qp());
            }
            case COMPLETE -> {
                cpl[i] = true;
                if (status[i] == null) {
                    status[i] = WcStatus.SUCCESS;
                }
                if (listener != null) {
                    listener.completed(this, i, status[i]);
                }
            }
            default -> throw new IllegalArgumentException("not a step: " + step);
        }
    }

    private void threadStep(int t) {
        Op o = op(t);
        long r = 0;
        if (o instanceof DetProgram.Store s) {
            if (knobs.scMode()) {
                mem[s.word()] = s.value();
            } else {
                sbAppend(t, s.word(), s.value());
            }
        } else if (o instanceof DetProgram.Load l) {
            r = cpuLoad(t, l.word());
            if (l.register() >= 0) {
                reg[l.register()] = r;
            }
        } else if (o instanceof DetProgram.LockedAdd a) {
            r = mem[a.word()];
            mem[a.word()] = r + a.addend();
            if (a.register() >= 0) {
                reg[a.register()] = r;
            }
        } else if (o instanceof DetProgram.LockedCas c) {
            r = mem[c.word()];
            if (r == c.expected()) {
                mem[c.word()] = c.desired();
            }
        } else if (o instanceof DetProgram.Post p) {
            issue(t, p.wr());
        } else if (o instanceof DetProgram.PostAll p) {
            for (int k : p.wrs()) {
                issue(t, k);
            }
        } else if (o instanceof DetProgram.Poll p) {
            ret[oldestUnretired(t, p.node())] = true;
        } else if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < wrCount; k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && st[k] != IDLE) {
                    ret[k] = true;
                }
            }
        } else if (o instanceof DetProgram.External e) {
            r = e.apply(this);
        } else if (!(o instanceof DetProgram.MFence)) {
            throw new IllegalStateException("unknown operation " + o);
        }
        if (scripted(t)) {
            pc[t]++;
        } else {
            pending[t] = null;
            result[t] = r;
            pc[t]++;
        }
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

    /** The whole effect of a work request as one step (SC_MODE); failures still fail. */
    private void scExecute(int k) {
        Wr w = wr(k);
        st[k] = NIC;
        WcStatus failure = doom(k);
        if (failure != null) {
            apply(step(FAIL, k, 0));
            apply(step(COMPLETE, k, 0));
            return;
        }
        switch (w.kind()) {
            case PUT, GET -> {
                long[] d = new long[w.src().length];
                for (int x = 0; x < d.length; x++) {
                    d[x] = mem[w.src()[x]];
                }
                data[k] = d;
                for (int x = 0; x < d.length; x++) {
                    mem[w.dst()[x]] = d[x];
                }
            }
            default -> {
                long old = mem[w.dst()[0]];
                if (atomicWrites(w, old)) {
                    mem[w.dst()[0]] = atomicNew(w, old);
                }
                data[k] = new long[] {old};
                mem[w.res()] = old;
            }
        }
        rd[k] = aw[k] = lw[k] = true;
        placed[k] = w.dst().length == 64 ? -1L : (1L << w.dst().length) - 1;
        apply(step(COMPLETE, k, 0));
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
        for (int t = 0; t < threads; t++) {
            if (running(t) || sbLength[t] > 0) {
                return false;
            }
        }
        for (int k = 0; k < wrCount; k++) {
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

    /** @return the observable outcome of a scripted program: every word's value, then every register's */
    public long[] outcome() {
        long[] o = Arrays.copyOf(mem, words + reg.length);
        System.arraycopy(reg, 0, o, words, reg.length);
        return o;
    }

    /**
     * A 64-bit fingerprint of the whole state, for state hashing in the exhaustive search.
     *
     * @return the fingerprint
     */
    public long fingerprint() {
        long h = 0x9E3779B97F4A7C15L;
        for (int w = 0; w < words; w++) {
            h = mix(h, mem[w]);
        }
        for (long r : reg) {
            h = mix(h, r);
        }
        for (int t = 0; t < threads; t++) {
            h = mix(h, pc[t]);
            h = mix(h, sbLength[t]);
            for (int i = 0; i < 2 * sbLength[t]; i++) {
                h = mix(h, sb[t][i]);
            }
        }
        for (int k = 0; k < wrCount; k++) {
            int flags = st[k] | (rd[k] ? 4 : 0) | (aw[k] ? 8 : 0) | (lw[k] ? 16 : 0) | (cpl[k] ? 32 : 0)
                | (ret[k] ? 64 : 0) | (status[k] == null ? 0 : (status[k].ordinal() + 1) << 8);
            h = mix(h, flags);
            h = mix(h, placed[k]);
            if (data[k] != null) {
                for (long v : data[k]) {
                    h = mix(h, v);
                }
            }
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
     * Describes a step for traces, e.g. {@code T0:Store[word=1, value=1]} or {@code wr2.remoteWrite[0]}.
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
            case FAIL -> "wr" + i + ".fail";
            default -> "?" + step;
        };
    }

    /**
     * @param step a step
     * @return the node whose NIC performs it, or -1 for a CPU step (used to delay a NIC): the target's NIC places and
     *     reads remote data and performs atomics; the issuer's NIC reads sources, writes results and completes
     */
    public int nicNode(int step) {
        int kind = kindOf(step);
        if (kind == THREAD || kind == DRAIN) {
            return -1;
        }
        Wr w = wr(indexOf(step));
        return switch (kind) {
            case PUT_WRITE, GET_READ, ATOMIC_READ, ATOMIC_WRITE -> w.node();
            default -> nodeOfThread(w.thread());
        };
    }

    /**
     * @param step a step
     * @return the thread of a CPU step, else -1
     */
    public int threadOf(int step) {
        int kind = kindOf(step);
        return kind == THREAD || kind == DRAIN ? indexOf(step) : -1;
    }

    /**
     * @param step a step
     * @return whether it is a CPU step of a thread's own operation (not a drain, not a NIC action)
     */
    public static boolean isThreadStep(int step) {
        return kindOf(step) == THREAD;
    }

    /** @return the number of threads */
    public int threadCount() {
        return threads;
    }

    /** @return the number of work requests */
    public int wrCount() {
        return wrCount;
    }
}
