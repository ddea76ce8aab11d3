package dev.remora.verbs.det;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.spi.Directory;
import dev.remora.verbs.spi.NodeTable;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.machine.DetMachine;
import dev.remora.verbs.det.machine.DetProgram;
import dev.remora.verbs.det.machine.Steps;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The software fabric's deterministic mode: application code runs unchanged on it, and every CPU access to
 * registered memory and every NIC sub-action is one step of a {@link DetMachine}, chosen by a seeded scheduler among
 * the steps the memory-model knobs allow. The same seed and program give the same execution.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * DetFabric f = DetFabric.open(new DetContext().seed(7));
 * Node home = f.addNode("home");  Node c = f.addNode("c");
 * RemoteAddress word = ...;                       // set up memory before the run
 * f.spawn(c, "client", () -> { ... Endpoint.open(c) ... });
 * DetFabric.Result r = f.run();                   // runs every spawned thread to the end, one step at a time
 * }</pre>
 * Spawned threads are real Java threads, but exactly one of them runs at a time: the one holding the baton, which also
 * runs the seeded scheduler and hands the baton to the thread whose step it chooses; code between steps must not
 * depend on real time or on other threads outside the fabric. Waits use the fabric's virtual clock
 * ({@link dev.remora.verbs.CompletionQueue#nanoTime()}).
 *
 * <h2>Time</h2>
 * Virtual time advances {@link DetContext#nanosPerStep()} per step, and jumps, when no step is enabled, to the earliest
 * moment at which one becomes enabled (the jump is recorded in the trace hash). A thread waiting on a completion queue
 * takes what is there as soon as a completion arrives; a timed wait may also return empty from its deadline on, as
 * one of the steps the seeded scheduler chooses among, even while its request is in flight and other threads step; a
 * non-blocking poll of an empty queue, which stands for a thread spinning on it, returns empty once
 * {@link DetContext#emptyPollNs()} has passed. A request that a waiter gave up on goes on: it may take effect after
 * the wait returned, and its completion is delivered to its completion queue like any other (unless its queue pair
 * was closed meanwhile), where a later poll finds it. Requests are instantaneous in time (a few steps) unless
 * {@link DetContext} sets a round-trip delay for their link: then each takes effect at a moment drawn from the seed
 * within its round trip, and completes, successfully or not, no earlier than the round trip after posting.
 *
 * <h2>Model</h2>
 * The machine of {@link dev.remora.verbs.det.machine.DetMachine}, which mirrors {@code spec/rdma/Verbs.tla}: memory is
 * 8-byte words; a thread's stores go through its TSO store buffer and posting a request puts its doorbell there (R2);
 * each request then proceeds by the NIC sub-actions of docs/memory-model.md §1, one step per word of a multi-word
 * transfer, under R6–R19 as set by {@link DetKnobs}. A request with a bad key, range, permission or alignment is
 * refused when the NIC takes it (keys are checked then, so deregistering a region refuses the requests the NIC has not
 * taken yet; a request with a round-trip delay has been taken by its sender's NIC, as far as its local key goes, once
 * its doorbell reached it): it completes with the status hardware reports, changes nothing, and every later request of
 * its queue pair flushes with no effect (R17). Faults ({@link FaultPlan}) crash nodes, cut links, fail queue pairs and
 * delay NICs at chosen steps; a request in flight when its queue pair breaks is indeterminate: it completes
 * RETRY_EXC_ERR or WR_FLUSH_ERR (no earlier than its round trip, if it has one), and its effects at the target may
 * still happen, even after that completion (R20).
 *
 * <h2>Limits</h2>
 * READ and WRITE move whole, 8-byte-aligned words, at most 64 per request; SEND/RECV is not modelled (posting one
 * throws {@link UnsupportedOperationException}); a sub-word CPU store ({@code putInt}, {@code putBytes}) stores just
 * its bytes of the containing word, atomically at its width as on x86.
 */
public final class DetFabric implements Fabric {
    private final DetContext context;
    final DetMachine machine;
    private final Directory directory = new Directory();
    private final NodeTable<DetNode> nodes = new NodeTable<>(1 << 12); // keys carry the node id in 12 bits
    private final List<DetQueuePair> queuePairs = new ArrayList<>();
    private final List<Actor> actors = new ArrayList<>();
    /** Per request: what the completion reports. */
    private final List<WrMeta> wrMeta = new ArrayList<>();
    private final Handoff schedulerTurn = new Handoff();
    private volatile boolean running;
    private boolean closed;
    private long steps;
    private long virtualNanos;
    /** Per request with a round-trip delay, from its post: the virtual time before which its NIC does nothing. */
    private long[] actsFrom = new long[0];
    /** Per request with a round-trip delay, from its post: the virtual time before which it does not complete. */
    private long[] completesFrom = new long[0];
    /** Set by {@link #withoutEarly}: the earliest virtual time at which a step it held back may happen. */
    private long heldUntil;
    private long traceHash = 17;
    private int nextKey = 1;
    final int scratchWord;

    /**
     * What a request's completion reports, and the regions it names (a deregistration refuses the requests the NIC
     * has not taken yet).
     */
    record WrMeta(long wrId, boolean signaled, Opcode opcode, int byteLength, DetQueuePair qp, DetRegion local,
                  DetRegion remote, long roundTripNs) {
    }

    private DetFabric(DetContext context) {
        this.context = context.conclude();
        this.machine = new DetMachine(new DetProgram.Builder().build(), context.knobs());
        this.machine.completionListener(this::completed);
        this.scratchWord = machine.addWords(1);
    }

    /**
     * Opens a deterministic fabric.
     *
     * @param context settings (knobs, seed, faults)
     * @return the fabric
     */
    public static DetFabric open(DetContext context) {
        return new DetFabric(Objects.requireNonNull(context, "context"));
    }

    /** @return the settings */
    public DetContext context() {
        return context;
    }

    @Override
    public String providerName() {
        return DetFabricProvider.NAME;
    }

    @Override
    public Node addNode(String name) {
        ensureOpen();
        return nodes.add(name, id -> new DetNode(this, id, name));
    }

    @Override
    public Node connect(String address) {
        ensureOpen();
        return nodes.connect(providerName(), address);
    }

    @Override
    public void publish(String name, RemoteAddress address) {
        ensureOpen();
        directory.publish(name, address, id -> id >= 0 && id < nodes.size());
    }

    @Override
    public void unpublish(String name) {
        directory.unpublish(name);
    }

    @Override
    public RemoteAddress lookup(String name) {
        return directory.lookup(name, providerName() + " fabric");
    }

    @Override
    public Node node(int id) {
        return nodes.get(id);
    }

    @Override
    public List<Node> nodes() {
        return nodes.snapshot();
    }

    @Override
    public VerbsStatistics statistics() {
        VerbsStatistics s = VerbsStatistics.ZERO;
        for (DetQueuePair qp : queuePairs) {
            s = s.plus(qp.statistics());
        }
        return s;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("fabric is closed");
        }
    }

    int nextKey(int nodeId) {
        return (nextKey++ << 12) | nodeId;
    }

    /** @return the queue pair's number: 1, 2, ... in creation order, per fabric (so fault plans can name them) */
    synchronized int register(DetQueuePair qp) {
        queuePairs.add(qp);
        return queuePairs.size();
    }

    /** @return virtual nanoseconds since the fabric opened: the clock of every endpoint on it, for recorders */
    public long nanoTime() {
        return virtualNanos;
    }

    int addWr(DetProgram.Wr wr, WrMeta meta) {
        int k = machine.addWr(wr);
        wrMeta.add(meta);
        return k;
    }

    /**
     * Deregisters a region: at once in set-up code, as a step of the calling thread during a run. Requests naming it
     * that the NIC has not taken yet are refused: REM_ACCESS_ERR for the remote region, LOC_PROT_ERR for a local one.
     */
    void deregister(DetRegion region) {
        if (actor() == null) {
            if (running) {
                throw new IllegalStateException("only threads spawned on this fabric may access it during run()");
            }
            region.markDeregistered();
            return;
        }
        step(new DeregisterOp(region));
    }

    /** The deregistration step. */
    private final class DeregisterOp implements DetProgram.External {
        private final DetRegion region;

        DeregisterOp(DetRegion region) {
            this.region = region;
        }

        @Override
        public boolean enabled(DetMachine m) {
            return true;
        }

        @Override
        public long apply(DetMachine m) {
            region.markDeregistered();
            for (int k = 0; k < wrMeta.size(); k++) {
                WrMeta meta = wrMeta.get(k);
                if (meta.local() == region) {
                    if (!onTheWire(m, k)) { // R17: only a request the NIC has not taken is refused
                        m.refuseIfUntaken(k, WcStatus.LOC_PROT_ERR);
                    }
                } else if (meta.remote() == region) {
                    m.refuseIfUntaken(k, WcStatus.REM_ACCESS_ERR);
                }
            }
            return 0;
        }

        @Override
        public String toString() {
            return "deregister(" + region + ")";
        }
    }

    private void completed(DetMachine m, int k, WcStatus status) {
        WrMeta meta = wrMeta.get(k);
        meta.qp().completed(meta, status);
    }

    // ------------------------------------------------------------------ actors and the scheduler

    /** A spawned thread. */
    final class Actor {
        final DetNode node;
        final String name;
        final Runnable body;
        final int thread;
        final Handoff resume = new Handoff();
        Thread javaThread;
        boolean finished;
        Throwable failure;
        boolean crashed;
        boolean aborted;

        Actor(DetNode node, String name, Runnable body) {
            this.node = node;
            this.name = name;
            this.body = body;
            this.thread = machine.addExternalThread(node.id());
        }
    }

    private final ThreadLocal<Actor> currentActor = new ThreadLocal<>();

    /**
     * Adds a thread that runs {@code body} on {@code node} during {@link #run()}.
     *
     * @param node the node whose CPU runs it
     * @param name a name for reports
     * @param body the code
     */
    public synchronized void spawn(Node node, String name, Runnable body) {
        ensureOpen();
        if (running) {
            throw new IllegalStateException("spawn before run()");
        }
        actors.add(new Actor(own(node), name, Objects.requireNonNull(body, "body")));
    }

    DetNode own(Node node) {
        if (!(node instanceof DetNode n) || n.fabric() != this) {
            throw new IllegalArgumentException("node " + node + " belongs to another fabric");
        }
        return n;
    }

    /** @return the actor running on this Java thread, or null (set-up code outside a run) */
    Actor actor() {
        return currentActor.get();
    }

    /**
     * Performs one operation of the calling actor as a step: hands control to the scheduler, which performs it when
     * it chooses, then returns its result. Outside a run (set-up code) the operation runs at once.
     */
    long step(DetProgram.Op op) {
        Actor a = currentActor.get();
        if (a == null) {
            if (running) {
                throw new IllegalStateException("only threads spawned on this fabric may access it during run()");
            }
            return immediate(op);
        }
        if (a.node.crashed) {
            throw new NodeCrashedException(a.node.name());
        }
        machine.setPending(a.thread, op);
        if (phase == Phase.LOOP) {
            // This thread holds the baton: it schedules until its own step is taken or it hands the baton on.
            Actor next = loop.advance();
            if (next != a) {
                handOn(next, a);
            }
        } else {
            schedulerTurn.signal();
            a.resume.await();
        }
        if (machine.hasPending(a.thread) && (a.node.crashed || a.aborted)) {
            machine.clearPending(a.thread);
            if (a.aborted) {
                throw new java.util.concurrent.CancellationException("run stopped at step " + steps);
            }
            throw new NodeCrashedException(a.node.name());
        }
        return machine.result(a.thread);
    }

    /** Set-up access: memory operations act on memory directly. */
    private long immediate(DetProgram.Op op) {
        if (op instanceof DetProgram.Store s) {
            machine.setMemory(s.word(), (machine.memory(s.word()) & ~s.mask()) | (s.value() & s.mask()));
            return 0;
        }
        if (op instanceof DetProgram.Load l) {
            return machine.memory(l.word());
        }
        if (op instanceof DetProgram.LockedAdd a) {
            long old = machine.memory(a.word());
            machine.setMemory(a.word(), old + a.addend());
            return old;
        }
        if (op instanceof DetProgram.LockedCas c) {
            long old = machine.memory(c.word());
            if (old == c.expected()) {
                machine.setMemory(c.word(), c.desired());
            }
            return old;
        }
        if (op instanceof DetProgram.MFence) {
            return 0;
        }
        throw new IllegalStateException("posting and polling happen inside run(), in spawned threads");
    }

    /**
     * The result of a run.
     *
     * @param seed the seed
     * @param steps the steps taken
     * @param traceHash a hash of the step sequence (same seed, same program: same hash)
     * @param finished whether every thread finished within the step bound
     * @param failures threads that threw (other than because their node crashed), by name
     * @param crashed threads stopped by a crash of their node
     */
    public record Result(long seed, long steps, long traceHash, boolean finished, List<String> failures,
                         List<String> crashed) {
        /** @return a one-line summary with the replay hint */
        public String describe() {
            return "seed " + seed + ": " + steps + " steps, trace " + Long.toHexString(traceHash)
                + (finished ? "" : ", NOT FINISHED (step bound or deadlock)")
                + (failures.isEmpty() ? "" : ", failures " + failures)
                + (crashed.isEmpty() ? "" : ", crashed " + crashed)
                + "; replay with new DetContext().seed(" + seed + ") and the same fault plan and delays";
        }
    }

    /**
     * Runs every spawned thread to the end under the seeded scheduler, then lets the NICs finish what is in flight.
     * Call once.
     *
     * @return what happened
     */
    public Result run() {
        synchronized (this) {
            if (running) {
                throw new IllegalStateException("run() was already called");
            }
            running = true;
        }
        loop = new Loop();
        for (Actor a : actors) {
            startActor(a);
        }
        // From here the scheduler runs on whichever thread holds the baton (this one first): see Loop.
        phase = Phase.LOOP;
        Actor first = loop.advance();
        if (first != null) {
            first.resume.signal();
            schedulerTurn.await(); // until the thread that finds the run over (or the loop failed) hands back
        }
        if (loop.failure != null) {
            throw loop.failure;
        }
        boolean finished = loop.finished;
        for (Actor a : actors) {
            if (!a.finished) {
                a.aborted = true; // end threads left waiting at the step bound or in a deadlock
                resume(a);
            }
        }
        List<String> failures = new ArrayList<>();
        List<String> crashed = new ArrayList<>();
        for (Actor a : actors) {
            if (a.crashed) {
                crashed.add(a.name);
            } else if (a.failure != null) {
                failures.add(a.name + ": " + a.failure);
            }
        }
        return new Result(context.seed(), steps, traceHash, finished, failures, crashed);
    }

    /**
     * The first failure of a thread in the last run, for rethrowing in a test.
     *
     * @return the throwable, or null
     */
    public Throwable firstFailure() {
        for (Actor a : actors) {
            if (a.failure != null && !a.crashed) {
                return a.failure;
            }
        }
        return null;
    }


    private Actor actorOf(int thread) {
        for (Actor a : actors) {
            if (a.thread == thread) {
                return a;
            }
        }
        throw new IllegalStateException("no actor for thread " + thread);
    }

    private void startActor(Actor a) {
        a.javaThread = new Thread(() -> {
            currentActor.set(a);
            a.resume.await();
            try {
                a.body.run();
            } catch (NodeCrashedException e) {
                a.crashed = true;
            } catch (Throwable e) {
                a.failure = e;
            } finally {
                a.finished = true;
                if (phase == Phase.LOOP) {
                    handOn(loop.advance(), null); // a finishing thread hands the baton on and ends
                } else {
                    schedulerTurn.signal();
                }
            }
        }, "det-" + a.name);
        a.javaThread.setDaemon(true);
        a.javaThread.start();
        resume(a);
    }

    /** Lets an actor run until its next step (or its end), then waits for it (outside {@link Phase#LOOP}). */
    private void resume(Actor a) {
        if (a.finished) {
            return;
        }
        a.resume.signal();
        schedulerTurn.await();
    }

    /** Where a run is: which thread schedules. */
    private enum Phase {
        /** Before the loop: each actor runs to its first step and hands back to {@link #run()}. */
        STARTING,
        /** The scheduling loop: the thread holding the baton (an actor, or {@link #run()} at first) runs it. */
        LOOP,
        /** After the loop: {@link #run()} resumes the threads left waiting, one at a time. */
        ENDING
    }

    private volatile Phase phase = Phase.STARTING;
    private Loop loop;

    /**
     * Hands the baton to {@code next} (null: the run is over, back to {@link #run()}); then, if {@code self} is an
     * actor, waits until the baton comes back to it.
     */
    private void handOn(Actor next, Actor self) {
        if (next == null) {
            schedulerTurn.signal();
        } else {
            next.resume.signal();
        }
        if (self != null) {
            self.resume.await();
        }
    }

    /**
     * The seeded scheduler's state and loop. The loop is run by whichever thread holds the baton: an actor that
     * reaches a step chooses the next steps itself, applies them, and hands the baton only to the actor whose step it
     * chose (continuing at once if that is its own), so a step costs at most one hand-over between threads instead of
     * two through a scheduler thread. The choices are the same as a scheduler thread's would be (one thread runs at a
     * time, every hand-over is a {@link Handoff}, which orders memory), so a seed gives the same run.
     */
    private final class Loop {
        private final SplittableRandom random = new SplittableRandom(context.seed());
        /** A stream of its own, so that delays do not shift the scheduler's choices. */
        private final SplittableRandom delayRandom = new SplittableRandom(context.seed() ^ 0x7F4A7C159E3779B9L);
        private final boolean delays = context.hasRoundTrips();
        private final List<FaultPlan.Fault> faults = new ArrayList<>(context.faults().faults());
        private final long[] delayedUntil = new long[Math.max(1, nodes.size())];
        private long[] buffer = new long[64];
        /** Set when the loop ends: whether every thread finished. */
        boolean finished;
        /** Set if the loop itself threw (a bug in the machine, say): {@link #run()} rethrows it. */
        RuntimeException failure;

        /**
         * Takes steps until one of an actor's is taken (or a crashed node's thread must stop), and returns that actor
         * to resume; returns null, and ends the loop, when no step is left or the step bound is reached.
         */
        Actor advance() {
            try {
                Actor next = next();
                if (next == null) {
                    phase = Phase.ENDING;
                }
                return next;
            } catch (RuntimeException | Error e) {
                failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                phase = Phase.ENDING;
                return null;
            }
        }

        private Actor next() {
            while (true) {
                applyFaults(faults, delayedUntil);
                for (Actor a : actors) {
                    if (!a.finished && a.node.crashed && machine.hasPending(a.thread)) {
                        return a; // threads of crashed nodes stop at their pending step
                    }
                }
                if (buffer.length < machine.maxSteps()) {
                    buffer = new long[machine.maxSteps() * 2];
                }
                int n = machine.enabled(buffer);
                heldUntil = Long.MAX_VALUE;
                if (delays) {
                    n = withoutEarly(buffer, n);
                }
                n = withoutDelayed(buffer, n, delayedUntil);
                if (n == 0) {
                    long next = Math.min(heldUntil, earliestWakeUp());
                    if (next == Long.MAX_VALUE) {
                        finished = actors.stream().allMatch(a -> a.finished);
                        return null;
                    }
                    // Nothing can happen before `next`: the clock jumps there (no choice, but part of the trace).
                    virtualNanos = next;
                    traceHash = DetMachine.mix(traceHash, ~next);
                    continue;
                }
                if (steps >= context.maxSteps()) {
                    finished = false;
                    return null;
                }
                long s = buffer[random.nextInt(n)];
                traceHash = DetMachine.mix(traceHash, s);
                steps++;
                virtualNanos += context.nanosPerStep();
                int t = machine.threadOf(s);
                boolean actorStep = Steps.isThreadStep(s);
                if (delays && actorStep && machine.pendingOp(t) instanceof DetProgram.PostAll p) {
                    posted(p, delayRandom);
                }
                machine.apply(s);
                if (actorStep) {
                    Actor a = actorOf(t);
                    if (!a.finished) {
                        return a;
                    }
                }
            }
        }
    }

    private void applyFaults(List<FaultPlan.Fault> faults, long[] delayedUntil) {
        for (int i = 0; i < faults.size(); i++) {
            FaultPlan.Fault f = faults.get(i);
            if (f.atStep() > steps) {
                continue;
            }
            faults.remove(i--);
            if (f instanceof FaultPlan.Crash c) {
                crash(node(c.node()), c.loseMemory());
            } else if (f instanceof FaultPlan.CutLink l) {
                machine.applyFault(new DetProgram.Fault(DetProgram.FaultKind.CUT, l.a(), l.b()));
            } else if (f instanceof FaultPlan.QueuePairError q) {
                machine.applyFault(new DetProgram.Fault(DetProgram.FaultKind.QP_ERROR, q.qpNumber(), 0));
            } else if (f instanceof FaultPlan.DelayNic d && d.node() < delayedUntil.length) {
                delayedUntil[d.node()] = steps + d.forSteps();
            }
        }
    }

    /** Steps of a delayed NIC are taken only when nothing else is enabled. */
    private int withoutDelayed(long[] buffer, int n, long[] delayedUntil) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            int node = machine.nicNode(buffer[i]);
            if (node < 0 || node >= delayedUntil.length || delayedUntil[node] <= steps) {
                buffer[kept++] = buffer[i];
            }
        }
        return kept == 0 ? n : kept;
    }

    /**
     * Stamps the requests of a post that have a round-trip delay: posted now, at {@code P}, with round trip {@code X},
     * the NIC may act on one from a moment drawn in {@code [P, P + X]} and it completes from {@code P + X}.
     */
    private void posted(DetProgram.PostAll post, SplittableRandom delayRandom) {
        for (int k : post.wrs()) {
            long x = wrMeta.get(k).roundTripNs();
            if (x <= 0) {
                continue;
            }
            if (k >= actsFrom.length) {
                int size = Math.max(k + 1, actsFrom.length * 2 + 16);
                actsFrom = java.util.Arrays.copyOf(actsFrom, size);
                completesFrom = java.util.Arrays.copyOf(completesFrom, size);
            }
            long p = virtualNanos;
            long span = Math.min(x, Long.MAX_VALUE - p);
            // At most P + X: a request completes only after its effects (R11), which must be able to come first.
            actsFrom[k] = p + delayRandom.nextLong(span == Long.MAX_VALUE ? span : span + 1);
            completesFrom[k] = p + span;
        }
    }

    /**
     * Whether request k has a round-trip delay and its doorbell has reached the sender's NIC: the NIC has checked its
     * local key and sent it, so deregistering its local region no longer refuses it (the target still checks the
     * remote key when the request arrives).
     */
    private boolean onTheWire(DetMachine m, int k) {
        return k < completesFrom.length && completesFrom[k] > 0 && m.reachedNic(k);
    }

    /**
     * Holds back the NIC steps of delayed requests whose time has not come, and notes in {@link #heldUntil} when the
     * first of them may happen.
     */
    private int withoutEarly(long[] buffer, int n) {
        int kept = 0;
        for (int i = 0; i < n; i++) {
            long s = buffer[i];
            long from = 0;
            if (machine.nicNode(s) >= 0) {
                int k = Steps.index(s);
                if (k < actsFrom.length) {
                    from = Steps.kind(s) == Steps.COMPLETE ? completesFrom[k] : actsFrom[k];
                }
            }
            if (from > virtualNanos) {
                heldUntil = Math.min(heldUntil, from);
            } else {
                buffer[kept++] = s;
            }
        }
        return kept;
    }

    /**
     * @return the earliest virtual time at which a waiting poll may return empty (a timed wait's deadline, an empty
     *     non-blocking poll's {@link DetContext#emptyPollNs()}), Long.MAX_VALUE if none
     */
    private long earliestWakeUp() {
        long best = Long.MAX_VALUE;
        for (Actor a : actors) {
            if (!a.finished && machine.hasPending(a.thread)
                && machine.pendingOp(a.thread) instanceof DetCompletionQueue.PollOp p && p.wakeAt() > virtualNanos) {
                best = Math.min(best, p.wakeAt());
            }
        }
        return best;
    }

    /**
     * Crashes a node now: requests to it fail with RETRY_EXC_ERR, its threads stop at their next step, and its memory
     * is zeroed if {@code loseMemory}.
     *
     * @param node the node
     * @param loseMemory whether its memory is lost
     */
    public void crash(Node node, boolean loseMemory) {
        DetNode n = own(node);
        n.crashed = true;
        machine.crashNode(n.id(), loseMemory, n.wordRanges());
    }

    /**
     * Reads a word of memory directly, for assertions after a run.
     *
     * @param region a region
     * @param offset an 8-byte-aligned offset
     * @return the word in memory
     */
    public long peek(dev.remora.verbs.MemoryRegion region, long offset) {
        DetRegion r = (DetRegion) region;
        return machine.memory(r.wordAtEvenIfDeregistered(offset));
    }

    /** @return steps taken so far */
    public long steps() {
        return steps;
    }
}
