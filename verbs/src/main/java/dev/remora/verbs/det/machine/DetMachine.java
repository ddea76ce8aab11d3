package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.machine.DetProgram.Fault;
import dev.remora.verbs.det.machine.DetProgram.Kind;
import dev.remora.verbs.det.machine.DetProgram.Op;
import dev.remora.verbs.det.machine.DetProgram.Wr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One state of the deterministic RDMA machine, and its steps. State and steps are those of
 * {@code spec/rdma/Verbs.tla} and {@code RDMA.tla}, one Java method per TLA+ operator, in the same order, so that the
 * machine and TLC agree on every litmus test (the conformance tests check it, verdict for verdict and, for forbidden
 * outcomes, state count for state count):
 * <ul>
 *   <li>the state: memory ({@code mem}), the store buffers ({@link StoreBuffers}, {@code sb}), the work requests
 *       ({@link WrTable}, {@code wr}), the faults that happened ({@link FaultState}, {@code faulted}), and the
 *       threads' program counters and registers ({@link ThreadTable}, {@code pc}, {@code reg});</li>
 *   <li>CPU steps of each thread: store (into the store buffer), load (store-buffer forwarding), mfence and locked
 *       read-modify-writes (only with an empty store buffer), post (the doorbell enters the store buffer: R2), poll,
 *       wait; {@code Drain(t)};</li>
 *   <li>NIC sub-actions of each work request, one step per word of a multi-word transfer (R18): put source reads and
 *       remote writes, get remote reads and local writes, atomic read, write and local-write phases, {@code Fail},
 *       {@code Complete}, {@code Abandon}; enabled as R6–R20 and the knobs say;</li>
 *   <li>{@code Fault(f)} for each fault the program allows.</li>
 * </ul>
 * Beyond the TLA+ model, for the deterministic fabric: memory and work requests can be added while running
 * ({@link #addWords}, {@link #addWr}); threads can be <em>external</em> (their next operation is set by a Java
 * thread through {@link #setPending}); the fabric applies faults at chosen steps ({@link #applyFault}), may zero a
 * crashed node's memory, and may refuse a request the NIC has not taken yet ({@link #refuseIfUntaken}, a region
 * deregistered meanwhile); stores may cover part of a word (x86 stores are atomic at their width).
 *
 * <p>A step is a {@code long} ({@link Steps}). States are mutable; {@link #copy()} clones.
 */
public final class DetMachine {

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
    private final ThreadTable threads;
    private final StoreBuffers sb;
    private final WrTable wr;
    private final FaultState faulted;

    /**
     * The initial state of a program ({@code Init}).
     *
     * @param program the program (its threads are scripted)
     * @param knobs the memory-model knobs
     */
    public DetMachine(DetProgram program, DetKnobs knobs) {
        this.program = program;
        this.knobs = knobs;
        this.mem = program.initial().clone();
        this.words = mem.length;
        this.threads = new ThreadTable(program);
        this.sb = new StoreBuffers(threads.count);
        this.wr = new WrTable();
        for (Wr w : program.wrs()) {
            wr.add(w);
        }
        this.faulted = new FaultState();
    }

    private DetMachine(DetMachine o) {
        program = o.program;
        knobs = o.knobs;
        listener = o.listener;
        mem = o.mem.clone();
        words = o.words;
        threads = o.threads.copy();
        sb = o.sb.copy();
        wr = o.wr.copy();
        faulted = o.faulted.copy();
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
     * @param node the node it runs on
     * @return its index
     */
    public int addExternalThread(int node) {
        int t = threads.addExternal(node);
        sb.addThread();
        return t;
    }

    /**
     * Adds a work request (not yet posted).
     *
     * @param w the request; {@link Wr#refusal()} is the status it fails with when the NIC takes it (a bad key,
     *     bounds, alignment), or null
     * @return its index
     */
    public int addWr(Wr w) {
        return wr.add(w);
    }

    /**
     * Refuses a request, as if its key had been bad from the start, if the NIC has not taken it yet: neither it nor a
     * later request of its queue pair has started (the responder checks a queue pair's requests in posting order, so
     * a request passed by a later one was checked already). The deterministic fabric calls this when a region the
     * request names is deregistered.
     *
     * @param k the request
     * @param status REM_ACCESS_ERR (the remote region) or LOC_PROT_ERR (the local one)
     * @return whether the request is now refused
     */
    public boolean refuseIfUntaken(int k, WcStatus status) {
        WrTable.State s = wr.s(k);
        if (s.refusal != null) {
            return true;
        }
        if (s.st == WrTable.IDLE || s.cpl) {
            return false;
        }
        for (int j = k; j < wr.size(); j++) {
            if (j == k || earlier(k, j)) {
                if (started(j)) {
                    return false;
                }
            }
        }
        s.refusal = status;
        wr.noteRefusal(k);
        return true;
    }

    /**
     * @param k a request
     * @return whether its doorbell has reached the NIC ({@code Drain}): the sender's NIC has it
     */
    public boolean reachedNic(int k) {
        return wr.s(k).st == WrTable.NIC;
    }

    /** Whether the NIC has begun request k (any sub-action or status, other than an inline put's copy at post). */
    private boolean started(int k) {
        WrTable.State s = wr.s(k);
        return s.status != null || s.placed != 0 || s.lw != 0 || (s.rd != 0 && !wr(k).inline());
    }

    /**
     * Sets the next operation of an external thread (replacing nothing: the previous one must have run).
     *
     * @param t the thread
     * @param op the operation
     */
    public void setPending(int t, Op op) {
        if (threads.pending[t] != null) {
            throw new IllegalStateException("thread " + t + " already has a pending operation");
        }
        threads.pending[t] = op;
    }

    /**
     * @param t a thread
     * @return the result of its last operation
     */
    public long result(int t) {
        return threads.result[t];
    }

    /**
     * @param t a thread
     * @return whether an external thread has an operation waiting to be scheduled
     */
    public boolean hasPending(int t) {
        return threads.pending[t] != null;
    }

    /**
     * @param t an external thread
     * @return its pending operation, or null
     */
    public Op pendingOp(int t) {
        return threads.pending[t];
    }

    /**
     * Ends an external thread's pending operation without performing it, with the given result (a wait timing out).
     *
     * @param t the thread
     * @param value the result
     */
    public void completeExternally(int t, long value) {
        threads.advance(t, value);
    }

    /**
     * Drops an external thread's pending operation (its Java thread died).
     *
     * @param t the thread
     */
    public void clearPending(int t) {
        threads.pending[t] = null;
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
     * @return its error status, or null if it has none (yet)
     */
    public WcStatus status(int k) {
        return wr.s(k).status;
    }

    /**
     * @param k a request
     * @return its static description (with the refusal it has now)
     */
    public Wr wrAt(int k) {
        WrTable.State s = wr.s(k);
        Wr w = wr(k);
        return s.refusal == w.refusal() ? w : w.refused(s.refusal);
    }

    /**
     * @param k a request
     * @return the values its reads returned (source words of a put, remote words of a get, old value of an atomic)
     */
    public long[] dataOf(int k) {
        return wr.s(k).data.clone();
    }

    // ------------------------------------------------------------------ faults

    /**
     * A fault happens now ({@code Fault(f)}, as the fabric's fault plan schedules it).
     *
     * @param f the fault
     */
    public void applyFault(Fault f) {
        if (faulted.happened(f)) {
            return;
        }
        // The requests at the NIC whose queue pair this fault breaks become in flight.
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < wr.liveSize(); i++) {
            int k = wr.live(i);
            if (wr.s(k).st == WrTable.NIC && !broken(k) && !effectsSettled(k)) {
                candidates.add(k);
            }
        }
        faulted.add(f);
        for (int k : candidates) {
            if (broken(k)) {
                wr.s(k).inflight = true;
            }
        }
        if (f.kind() == DetProgram.FaultKind.CRASH) {
            for (int t = 0; t < threads.count; t++) {
                if (threads.node[t] == f.a()) {
                    sb.clear(t); // the CPU's store buffer dies with it
                }
            }
        }
    }

    /**
     * A crash of the fabric's fault plan: {@code Fault(crash(node))}, and, for a reboot, the node's words zeroed.
     *
     * @param node the node
     * @param loseMemory whether the node's words are zeroed
     * @param nodeWords the word ranges the node owns, as {@code [first, count]} pairs (used with loseMemory)
     */
    public void crashNode(int node, boolean loseMemory, int[][] nodeWords) {
        applyFault(new Fault(DetProgram.FaultKind.CRASH, node, 0));
        if (loseMemory) {
            for (int[] range : nodeWords) {
                Arrays.fill(mem, range[0], range[0] + range[1], 0L);
            }
        }
    }

    /**
     * @param node a node
     * @return whether it crashed
     */
    public boolean isDown(int node) {
        return faulted.down(node);
    }

    /**
     * @param qp a queue pair
     * @return whether it is in ERROR: one of its requests failed, or a fault forced it there
     */
    public boolean isQueuePairInError(int qp) {
        return wr.anyFailed(qp) || faulted.qpFailed(qp);
    }

    // ------------------------------------------------------------------ helpers (Verbs.tla "Helpers")

    private Wr wr(int k) {
        return wr.wr(k);
    }

    private static long full(Wr w) {
        return w.words() == 64 ? -1L : (1L << w.words()) - 1;
    }

    /**
     * {@code CpuLoad(t, l)}: what thread t reads at {@code word}: its buffered stores to it over memory (R1).
     *
     * @param t the thread
     * @param word the word
     * @return the value
     */
    public long cpuLoad(int t, int word) {
        return sb.load(t, word, mem[word]);
    }

    /**
     * @param t a thread
     * @return whether its store buffer is empty
     */
    public boolean storeBufferEmpty(int t) {
        return sb.isEmpty(t);
    }

    private boolean earlier(int j, int k) {
        return j < k && wr(j).qp() == wr(k).qp();
    }

    private boolean readAll(int k) {
        return wr.s(k).rd == full(wr(k));
    }

    private boolean placedAll(int k) {
        return wr.s(k).placed == full(wr(k));
    }

    private boolean localAll(int k) {
        return wr.s(k).lw == full(wr(k));
    }

    private boolean atomicDone(int k) {
        return wr.s(k).rd != 0 && wr.s(k).aw;
    }

    private boolean inAtomicWindow(int k) {
        return wr(k).isAtomic() && wr.s(k).rd != 0 && !wr.s(k).aw;
    }

    private static long atomicNew(Wr w, long old) {
        return w.kind() == Kind.CAS ? w.val() : old + w.val();
    }

    private static boolean atomicWrites(Wr w, long old) {
        return w.kind() == Kind.FAA || old == w.cmp(); // R16: a failed CAS writes nothing
    }

    /** {@code InOrder(i, done)}: under DATA_IN_ORDER a word is written only after the words before it. */
    private boolean inOrder(int i, long done) {
        long before = (1L << i) - 1;
        return !knobs.dataInOrder() || (done & before) == before;
    }

    // ------------------------------------------------------------------ errors and faults (Verbs.tla)

    private int sender(int k) {
        return threads.node[wr(k).thread()];
    }

    private boolean down(int node) {
        return faulted.down(node);
    }

    /** {@code Broken(k)}. */
    private boolean broken(int k) {
        return faulted.broken(sender(k), wr(k).node(), wr(k).qp());
    }

    private boolean failed(int k) {
        return wr.s(k).status != null;
    }

    /** {@code Unrefused(k)}: neither k nor an earlier request of its queue pair is refused (R17). */
    private boolean unrefused(int k) {
        return wr.s(k).refusal == null && wr.unrefusedBefore(k);
    }

    /** {@code RequesterOK(k)}. */
    private boolean requesterOk(int k) {
        return wr.s(k).st == WrTable.NIC && unrefused(k) && !broken(k);
    }

    /** {@code TargetOK(k)}: on a broken queue pair, only an in-flight request, not lost, to a live target. */
    private boolean targetOk(int k) {
        WrTable.State s = wr.s(k);
        return s.st == WrTable.NIC && unrefused(k) && (!broken(k) || (s.inflight && !s.lost && !down(wr(k).node())));
    }

    // ------------------------------------------------------------------ same-QP ordering (Verbs.tla, R6-R10, R13)

    /** {@code FenceOK(k)}, R13: a fenced request starts only once every earlier read and atomic completed. */
    private boolean fenceOk(int k) {
        if (!wr(k).fence()) {
            return true;
        }
        WrTable.Qp q = wr.qpOf(k);
        for (int x = q.head; x < q.size && q.pending[x] < k; x++) {
            int j = q.pending[x];
            if (wr(j).kind() != Kind.PUT && !wr.s(j).cpl) {
                return false;
            }
        }
        return true;
    }

    /** {@code PutReadOrdered(k)}: a put's source reads follow earlier puts' source reads only (R8). */
    private boolean putReadOrdered(int k) {
        WrTable.Qp q = wr.qpOf(k);
        for (int x = q.head; x < q.size && q.pending[x] < k; x++) {
            int j = q.pending[x];
            if (wr(j).kind() == Kind.PUT && !readAll(j)) {
                return false;
            }
        }
        return true;
    }

    /** {@code PutWriteOrdered(k)}: R6 (unless relaxed), R9 and R19, R8 (unless reads may be passed). */
    private boolean putWriteOrdered(int k) {
        WrTable.Qp q = wr.qpOf(k);
        for (int x = q.head; x < q.size && q.pending[x] < k; x++) {
            int j = q.pending[x];
            boolean ok = switch (wr(j).kind()) {
                case PUT -> knobs.relaxedOrdering() || placedAll(j);
                case GET -> knobs.readPassableByWrite() || readAll(j);
                default -> atomicDone(j);
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** {@code ReadOrdered(k)}: R7 (the read flush) and R9; earlier gets do not order a read. */
    private boolean readOrdered(int k) {
        WrTable.Qp q = wr.qpOf(k);
        for (int x = q.head; x < q.size && q.pending[x] < k; x++) {
            int j = q.pending[x];
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

    /** {@code NoAtomicWindowAt(n)}, rao: remote atomics at one node are mutually exclusive (R14). */
    private boolean noAtomicWindowAt(int node) {
        for (int i = 0; i < wr.liveSize(); i++) {
            int j = wr.live(i);
            if (wr(j).node() == node && inAtomicWindow(j)) {
                return false;
            }
        }
        return true;
    }

    /** {@code EarlierCompleted(k)}. */
    private boolean earlierCompleted(int k) {
        WrTable.Qp q = wr.qpOf(k);
        for (int x = q.head; x < q.size && q.pending[x] < k; x++) {
            if (!wr.s(q.pending[x]).cpl) {
                return false;
            }
        }
        return true;
    }

    /** {@code CanComplete(k)}: in order per queue pair (R11), by the sender's NIC. */
    private boolean canComplete(int k) {
        WrTable.State s = wr.s(k);
        if (s.st != WrTable.NIC || s.cpl || down(sender(k)) || !earlierCompleted(k)) {
            return false;
        }
        if (failed(k)) {
            return true;
        }
        if (!requesterOk(k)) {
            return false;
        }
        Wr w = wr(k);
        if (w.kind() == Kind.PUT) {
            return readAll(k) && (knobs.putCompletion() != DetKnobs.PutCompletion.ON_PLACEMENT || placedAll(k));
        }
        return localAll(k) && (!w.isAtomic() || s.aw);
    }

    /** {@code EffectsSettled(k)}: nothing about k's memory can change any more. */
    private boolean effectsSettled(int k) {
        if (!unrefused(k)) {
            return true;
        }
        WrTable.State s = wr.s(k);
        Wr w = wr(k);
        boolean broken = broken(k);
        return switch (w.kind()) {
            case PUT -> placedAll(k)
                || (broken && (s.lost || !s.inflight || down(w.node()) || (s.rd & ~s.placed) == 0));
            case GET -> (readAll(k) && localAll(k)) || broken;
            default -> (atomicDone(k) && localAll(k))
                || (broken && (atomicDone(k) || down(w.node()) || (s.rd == 0 && (s.lost || !s.inflight))));
        };
    }

    /** The status {@code Fail(k)} gives k now, or null if it is not enabled. */
    private WcStatus failStatus(int k) {
        WrTable.State s = wr.s(k);
        if (s.st != WrTable.NIC || s.status != null || s.cpl || down(sender(k))) {
            return null;
        }
        if (wr.earlierFailed(k)) {
            return WcStatus.WR_FLUSH_ERR;
        }
        if (s.refusal != null && !broken(k) && earlierCompleted(k)) {
            return s.refusal; // the responder answers in order: the refusal follows the earlier requests' answers
        }
        if (broken(k) && earlierCompleted(k)) {
            return faulted.breakStatus(sender(k), wr(k).node());
        }
        return null;
    }

    /**
     * {@code Abandon(k)}: an in-flight request of a broken queue pair loses its remaining effects (words of a put
     * not yet placed, an atomic whose read phase has not run).
     */
    private boolean canAbandon(int k) {
        WrTable.State s = wr.s(k);
        if (!broken(k) || !s.inflight || s.lost || down(wr(k).node()) || (s.cpl && s.status == null)) {
            return false; // a put acked with success is at the target's NIC: it still lands
        }
        return wr(k).kind() == Kind.PUT ? (s.rd & ~s.placed) != 0 : wr(k).isAtomic() && s.rd == 0;
    }

    /**
     * No step of k can ever be enabled again: its doorbell died with its sender, or it completed (or its sender
     * crashed) and its effects are settled. Faults only add to what is broken, so this never becomes false again.
     */
    private boolean dead(int k) {
        WrTable.State s = wr.s(k);
        if (s.st == WrTable.DOORBELL) {
            return down(sender(k));
        }
        return s.st == WrTable.NIC && (s.cpl || down(sender(k))) && effectsSettled(k);
    }

    /** Finished for good: completed, and every effect done or refused; it satisfies every later ordering condition. */
    private boolean finished(int k) {
        WrTable.State s = wr.s(k);
        if (s.st != WrTable.NIC || !s.cpl) {
            return false;
        }
        if (!unrefused(k)) {
            return true;
        }
        return switch (wr(k).kind()) {
            case PUT -> readAll(k) && placedAll(k);
            case GET -> readAll(k) && localAll(k);
            default -> atomicDone(k) && localAll(k);
        };
    }

    // ------------------------------------------------------------------ thread steps (RDMA.tla)

    /** The status code a poll stores in a register: {@code StatusCode} in RDMA.tla. */
    public static int statusCode(WcStatus status) {
        if (status == null || status == WcStatus.SUCCESS) {
            return 0;
        }
        return switch (status) {
            case WR_FLUSH_ERR -> 1;
            case REM_ACCESS_ERR -> 2;
            case REM_INV_REQ_ERR -> 3;
            case LOC_PROT_ERR -> 4;
            case RETRY_EXC_ERR -> 5;
            default -> throw new IllegalArgumentException("no litmus status code for " + status);
        };
    }

    /** {@code PollTarget(t, n)}: the oldest issued, unretired request of t to n, or -1. */
    private int pollTarget(int t, int node) {
        for (int k = 0; k < wr.size(); k++) {
            Wr w = wr(k);
            if (w.thread() == t && w.node() == node && wr.s(k).st != WrTable.IDLE && !wr.s(k).ret) {
                return k;
            }
        }
        return -1;
    }

    private boolean threadEnabled(int t) {
        if (!threads.running(t) || down(threads.node[t])) {
            return false;
        }
        Op o = threads.op(t);
        if (o instanceof DetProgram.MFence || o instanceof DetProgram.LockedAdd || o instanceof DetProgram.LockedCas) {
            return sb.isEmpty(t);
        }
        if (o instanceof DetProgram.Poll p) {
            int k = pollTarget(t, p.node());
            return k >= 0 && wr.s(k).cpl;
        }
        if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < wr.size(); k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && wr.s(k).st != WrTable.IDLE && !wr.s(k).cpl) {
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

    private void threadStep(int t) {
        Op o = threads.op(t);
        long r = 0;
        if (o instanceof DetProgram.Store s) {
            if (knobs.scMode()) {
                mem[s.word()] = (mem[s.word()] & ~s.mask()) | (s.value() & s.mask());
            } else {
                sb.appendStore(t, s.word(), s.value(), s.mask());
            }
        } else if (o instanceof DetProgram.Load l) {
            r = cpuLoad(t, l.word());
            if (l.register() >= 0) {
                threads.reg[l.register()] = r;
            }
        } else if (o instanceof DetProgram.LockedAdd a) {
            r = mem[a.word()];
            mem[a.word()] = r + a.addend();
            if (a.register() >= 0) {
                threads.reg[a.register()] = r;
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
            int k = pollTarget(t, p.node());
            wr.s(k).ret = true;
            r = statusCode(wr.s(k).status);
            if (p.register() >= 0) {
                threads.reg[p.register()] = r;
            }
        } else if (o instanceof DetProgram.Wait w) {
            for (int k = 0; k < wr.size(); k++) {
                if (wr(k).thread() == t && wr(k).tag() == w.tag() && wr.s(k).st != WrTable.IDLE) {
                    wr.s(k).ret = true;
                }
            }
        } else if (o instanceof DetProgram.External e) {
            r = e.apply(this);
        } else if (!(o instanceof DetProgram.MFence)) {
            throw new IllegalStateException("unknown operation " + o);
        }
        threads.advance(t, r);
    }

    /** {@code Issue(k)}: the doorbell enters the store buffer (R2); an inline put copies its source now (R3). */
    private void issue(int t, int k) {
        if (knobs.scMode()) {
            scExecute(k);
            return;
        }
        Wr w = wr(k);
        WrTable.State s = wr.s(k);
        sb.appendDoorbell(t, k);
        s.st = WrTable.DOORBELL;
        if (w.inline()) {
            for (int x = 0; x < w.words(); x++) {
                s.data[x] = cpuLoad(t, w.src()[x]);
            }
            s.rd = full(w);
        }
    }

    /** {@code ScStatus(k)} and {@code ScExecute(k)}: the whole effect of a request as one step (SC_MODE). */
    private void scExecute(int k) {
        Wr w = wr(k);
        WrTable.State s = wr.s(k);
        WcStatus status = wr.earlierFailed(k) ? WcStatus.WR_FLUSH_ERR
            : s.refusal != null ? s.refusal
            : broken(k) ? faulted.breakStatus(sender(k), w.node())
            : null;
        if (status == null) {
            switch (w.kind()) {
                case PUT, GET -> {
                    long[] d = new long[w.words()];
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
        }
        s.st = WrTable.NIC;
        s.rd = full(w);
        s.placed = full(w);
        s.aw = true;
        s.lw = full(w);
        if (status != null) {
            s.status = status;
            wr.noteStatus(k);
        }
        complete(k);
    }

    /** {@code Drain(t)}: the oldest store reaches memory, or the oldest doorbell reaches the NIC. */
    private void drain(int t) {
        long loc = sb.headLocation(t);
        if (loc >= 0) {
            mem[(int) loc] = sb.headMerged(t, mem[(int) loc]);
        } else {
            wr.s((int) (-1 - loc)).st = WrTable.NIC;
        }
        sb.pop(t);
    }

    // ------------------------------------------------------------------ enabled steps

    /**
     * The steps enabled in this state, in a fixed order: thread steps, drains, each request's NIC sub-actions in
     * Verbs.tla's order ({@code NicStep}), then faults.
     *
     * @param out receives the steps; at least {@link #maxSteps()} long
     * @return the number of steps
     */
    public int enabled(long[] out) {
        int n = 0;
        for (int t = 0; t < threads.count; t++) {
            if (threadEnabled(t)) {
                out[n++] = Steps.of(Steps.THREAD, t, 0);
            }
        }
        for (int t = 0; t < threads.count; t++) {
            if (!sb.isEmpty(t) && !down(threads.node[t])) {
                out[n++] = Steps.of(Steps.DRAIN, t, 0);
            }
        }
        wr.prune(this::dead, this::finished);
        for (int i = 0; i < wr.liveSize(); i++) {
            int k = wr.live(i);
            if (wr.s(k).st == WrTable.NIC) {
                n = nicSteps(k, out, n);
            }
        }
        List<Fault> possible = program.faults();
        for (int f = 0; f < possible.size(); f++) {
            if (!faulted.happened(possible.get(f))) {
                out[n++] = Steps.of(Steps.FAULT, f, 0);
            }
        }
        return n;
    }

    /** {@code NicStep(k)}. */
    private int nicSteps(int k, long[] out, int n) {
        Wr w = wr(k);
        WrTable.State s = wr.s(k);
        switch (w.kind()) {
            case PUT -> {
                // PutSourceRead(k, i)
                if (s.rd != full(w) && requesterOk(k) && fenceOk(k) && putReadOrdered(k)) {
                    for (int i = 0; i < w.words(); i++) {
                        if ((s.rd & (1L << i)) == 0) {
                            out[n++] = Steps.of(Steps.PUT_SOURCE_READ, k, i);
                        }
                    }
                }
                // PutRemoteWrite(k, i)
                if ((s.rd & ~s.placed) != 0 && targetOk(k) && fenceOk(k) && putWriteOrdered(k)) {
                    for (int i = 0; i < w.words(); i++) {
                        long bit = 1L << i;
                        if ((s.rd & bit) != 0 && (s.placed & bit) == 0 && inOrder(i, s.placed)) {
                            out[n++] = Steps.of(Steps.PUT_REMOTE_WRITE, k, i);
                        }
                    }
                }
            }
            case GET -> {
                // GetRemoteRead(k, i)
                if (s.rd != full(w) && targetOk(k) && !broken(k) && fenceOk(k) && readOrdered(k)) {
                    for (int i = 0; i < w.words(); i++) {
                        if ((s.rd & (1L << i)) == 0) {
                            out[n++] = Steps.of(Steps.GET_REMOTE_READ, k, i);
                        }
                    }
                }
                // GetLocalWrite(k, i)
                if ((s.rd & ~s.lw) != 0 && requesterOk(k)) {
                    for (int i = 0; i < w.words(); i++) {
                        long bit = 1L << i;
                        if ((s.rd & bit) != 0 && (s.lw & bit) == 0 && inOrder(i, s.lw)) {
                            out[n++] = Steps.of(Steps.GET_LOCAL_WRITE, k, i);
                        }
                    }
                }
            }
            default -> {
                if (s.rd == 0 && targetOk(k) && fenceOk(k) && readOrdered(k) && noAtomicWindowAt(w.node())) {
                    out[n++] = Steps.of(Steps.ATOMIC_READ, k, 0);
                }
                if (inAtomicWindow(k) && targetOk(k)) {
                    out[n++] = Steps.of(Steps.ATOMIC_WRITE, k, 0);
                }
                if (atomicDone(k) && s.lw == 0 && requesterOk(k)) {
                    out[n++] = Steps.of(Steps.ATOMIC_LOCAL_WRITE, k, 0);
                }
            }
        }
        if (failStatus(k) != null) {
            out[n++] = Steps.of(Steps.FAIL, k, 0);
        }
        if (canComplete(k)) {
            out[n++] = Steps.of(Steps.COMPLETE, k, 0);
        }
        if (canAbandon(k)) {
            out[n++] = Steps.of(Steps.ABANDON, k, 0);
        }
        return n;
    }

    /** @return an upper bound on the number of steps enabled at once, for sizing {@link #enabled(long[])}'s array */
    public int maxSteps() {
        int n = 2 * threads.count + program.faults().size() + 8;
        for (int i = 0; i < wr.liveSize(); i++) {
            n += 2 * wr(wr.live(i)).words() + 4;
        }
        return n;
    }

    /** @return an upper bound on the length of an execution of the scripted program (every step makes progress) */
    public int maxDepth() {
        int d = 16 + program.faults().size();
        for (List<Op> ops : program.threadOps()) {
            d += 2 * ops.size();
        }
        for (Wr w : program.wrs()) {
            d += 4 * w.words() + 8;
        }
        return d;
    }

    // ------------------------------------------------------------------ steps

    /**
     * Performs an enabled step.
     *
     * @param step a step returned by {@link #enabled(long[])}
     */
    public void apply(long step) {
        int i = Steps.index(step);
        int word = Steps.word(step);
        switch (Steps.kind(step)) {
            case Steps.THREAD -> threadStep(i);
            case Steps.DRAIN -> drain(i);
            case Steps.PUT_SOURCE_READ -> {
                WrTable.State s = wr.s(i);
                s.data[word] = mem[wr(i).src()[word]];
                s.rd |= 1L << word;
            }
            case Steps.PUT_REMOTE_WRITE -> {
                WrTable.State s = wr.s(i);
                mem[wr(i).dst()[word]] = s.data[word];
                s.placed |= 1L << word;
            }
            case Steps.GET_REMOTE_READ -> {
                WrTable.State s = wr.s(i);
                s.data[word] = mem[wr(i).src()[word]];
                s.rd |= 1L << word;
            }
            case Steps.GET_LOCAL_WRITE -> {
                WrTable.State s = wr.s(i);
                mem[wr(i).dst()[word]] = s.data[word];
                s.lw |= 1L << word;
            }
            case Steps.ATOMIC_READ -> {
                // The read phase. Under GLOB the write phase happens in the same step, so nothing can land in between.
                Wr w = wr(i);
                WrTable.State s = wr.s(i);
                int l = w.dst()[0];
                long old = mem[l];
                boolean writes = atomicWrites(w, old);
                boolean fused = knobs.atomicCap() == DetKnobs.AtomicCap.GLOB;
                s.rd = 1;
                s.data[0] = old;
                s.aw = !writes || fused;
                if (writes && fused) {
                    mem[l] = atomicNew(w, old);
                }
            }
            case Steps.ATOMIC_WRITE -> {
                WrTable.State s = wr.s(i);
                mem[wr(i).dst()[0]] = atomicNew(wr(i), s.data[0]);
                s.aw = true;
            }
            case Steps.ATOMIC_LOCAL_WRITE -> {
                WrTable.State s = wr.s(i);
                mem[wr(i).res()] = s.data[0];
                s.lw = 1;
            }
            case Steps.FAIL -> {
                // R17: no memory effect; the queue pair is in ERROR from now on.
                wr.s(i).status = failStatus(i);
                wr.noteStatus(i);
            }
            case Steps.COMPLETE -> complete(i);
            case Steps.ABANDON -> wr.s(i).lost = true;
            case Steps.FAULT -> applyFault(program.faults().get(i));
            default -> throw new IllegalArgumentException("not a step: " + Long.toHexString(step));
        }
    }

    private void complete(int k) {
        WrTable.State s = wr.s(k);
        s.cpl = true;
        if (listener != null) {
            listener.completed(this, k, s.status == null ? WcStatus.SUCCESS : s.status);
        }
    }

    // ------------------------------------------------------------------ observation

    /**
     * {@code Quiescent}: threads of live nodes finished, store buffers drained, every issued request completed
     * (unless its sender crashed) and its effects settled; the state in which a litmus outcome is read.
     *
     * @return true when quiescent
     */
    public boolean quiescent() {
        for (int t = 0; t < threads.count; t++) {
            if (!down(threads.node[t]) && (threads.running(t) || !sb.isEmpty(t))) {
                return false;
            }
        }
        for (int k = 0; k < wr.size(); k++) {
            WrTable.State s = wr.s(k);
            if (s.st == WrTable.DOORBELL && !down(sender(k))) {
                return false;
            }
            if (s.st == WrTable.NIC && (!(s.cpl || down(sender(k))) || !effectsSettled(k))) {
                return false;
            }
        }
        return true;
    }

    /** @return the observable outcome of a scripted program: every word's value, then every register's */
    public long[] outcome() {
        long[] o = Arrays.copyOf(mem, words + threads.reg.length);
        System.arraycopy(threads.reg, 0, o, words, threads.reg.length);
        return o;
    }

    /**
     * A 64-bit fingerprint of the whole state ({@code mem}, {@code sb}, {@code wr}, {@code faulted}, {@code pc},
     * {@code reg}), for state hashing in the exhaustive search.
     *
     * @return the fingerprint
     */
    public long fingerprint() {
        long h = 0x9E3779B97F4A7C15L;
        for (int w = 0; w < words; w++) {
            h = mix(h, mem[w]);
        }
        h = threads.hash(h);
        h = sb.hash(h, threads.count);
        h = wr.hash(h);
        return faulted.hash(h);
    }

    /**
     * Mixes a value into a hash (a 64-bit finaliser).
     *
     * @param h the hash so far
     * @param v the value
     * @return the new hash
     */
    public static long mix(long h, long v) {
        h ^= v;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    /**
     * Describes a step for traces, e.g. {@code T0:Store[word=1, value=1, mask=-1]} or {@code wr2.remoteWrite[0]}.
     *
     * @param step the step
     * @return a readable description
     */
    public String describe(long step) {
        int i = Steps.index(step);
        int word = Steps.word(step);
        return switch (Steps.kind(step)) {
            case Steps.THREAD -> "T" + i + ":" + (threads.running(i) ? threads.op(i).toString() : "done");
            case Steps.DRAIN -> "T" + i + ":drain";
            case Steps.PUT_SOURCE_READ -> "wr" + i + ".sourceRead[" + word + "]";
            case Steps.PUT_REMOTE_WRITE -> "wr" + i + ".remoteWrite[" + word + "]";
            case Steps.GET_REMOTE_READ -> "wr" + i + ".remoteRead[" + word + "]";
            case Steps.GET_LOCAL_WRITE -> "wr" + i + ".localWrite[" + word + "]";
            case Steps.ATOMIC_READ -> "wr" + i + ".atomicRead";
            case Steps.ATOMIC_WRITE -> "wr" + i + ".atomicWrite";
            case Steps.ATOMIC_LOCAL_WRITE -> "wr" + i + ".atomicLocalWrite";
            case Steps.FAIL -> "wr" + i + ".fail(" + failStatus(i) + ")";
            case Steps.COMPLETE -> "wr" + i + ".complete";
            case Steps.ABANDON -> "wr" + i + ".abandon";
            case Steps.FAULT -> "fault " + program.faults().get(i);
            default -> "?" + Long.toHexString(step);
        };
    }

    /**
     * @param step a step
     * @return the node whose NIC performs it, or -1 for a CPU step or a fault (used to delay a NIC): the target's NIC
     *     places and reads remote data and performs atomics; the sender's NIC reads sources, writes results, fails,
     *     completes and loses requests
     */
    public int nicNode(long step) {
        int kind = Steps.kind(step);
        if (kind == Steps.THREAD || kind == Steps.DRAIN || kind == Steps.FAULT) {
            return -1;
        }
        int k = Steps.index(step);
        return switch (kind) {
            case Steps.PUT_REMOTE_WRITE, Steps.GET_REMOTE_READ, Steps.ATOMIC_READ, Steps.ATOMIC_WRITE -> wr(k).node();
            default -> sender(k);
        };
    }

    /**
     * @param step a step
     * @return the thread of a CPU step, else -1
     */
    public int threadOf(long step) {
        int kind = Steps.kind(step);
        return kind == Steps.THREAD || kind == Steps.DRAIN ? Steps.index(step) : -1;
    }

    /** @return the number of threads */
    public int threadCount() {
        return threads.count;
    }

    /** @return the number of work requests */
    public int wrCount() {
        return wr.size();
    }
}
