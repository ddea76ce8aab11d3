package dev.remora.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;

/**
 * One thread's access point to the fabric from a node: a completion queue with its {@link CompletionDispatcher}, one
 * queue pair per peer node (connected on first use), a scratch buffer, and the blocking helpers
 * {@link #readLong}, {@link #writeLong}, {@link #cas}, {@link #faa}, {@link #read} and {@link #write}.
 *
 * <p>Each blocking helper posts exactly one signaled request (one doorbell, one round trip) and waits for it
 * through the endpoint's own {@link WaitTag}, so libraries built on other tags of the same endpoint
 * ({@link #newTag(String)}) compose with it. A request that fails throws {@link RemoteAccessException} with the
 * provider's status; the queue pair that failed is then in ERROR, and the next request to that node transparently
 * uses a new one (like reconnecting).
 *
 * <h2>Timeouts leave requests unsettled, not forgotten</h2>
 * A helper waits at most {@link Context#operationTimeoutNs()}, and never past the endpoint's {@link #deadline(long)}
 * (a lock's {@code lock(timeout)} sets one, so the lock's timeout bounds every verb it issues). When the wait ends
 * first, the helper throws {@link VerbsTimeoutException} carrying an {@link UnsettledRequest}: the request keeps its
 * queue pair, wait tag and scratch word, so its completion is still collected later and tells whether it took effect
 * (a CAS that may have taken a lock, a FETCH_ADD that may have drawn a ticket). The endpoint goes on with a fresh tag
 * and scratch; a settled request's tag and scratch are reused.
 *
 * <h2>Replaced queue pairs and the ordering they carried</h2>
 * Ordering guarantees hold per queue pair (R6, R7; R10 orders nothing across queue pairs). When the endpoint replaces
 * a queue pair that carried WRITEs not yet known to be placed (no READ or atomic completed on it after them), those
 * WRITEs may land at any later time: the node's publication is marked lost, and the next {@link #flush(int)} throws
 * {@link PublicationLostException} instead of pretending. {@link #queuePairEpoch(int)} counts replacements, for
 * protocols that rely on two requests sharing a queue pair.
 *
 * <p>Not thread-safe: give each thread its own endpoint (they are cheap), as RDMA programs give each thread its own
 * queue pairs. An endpoint may be handed from one thread to another between calls (opened by one thread and used by
 * another, say), but two threads inside its methods at once is a bug, which the endpoint detects: the second call
 * throws {@link IllegalStateException} naming both threads, before it does anything. The check costs one
 * uncontended compare-and-set on entry to each method and a release store on exit (a few nanoseconds next to the
 * round trip) and allocates nothing; {@link #node()}, {@link #dispatcher()}, {@link #newTag(String)},
 * {@link #nanoTime()} and {@link #operationTimeoutNs()} are safe from any thread and not checked.
 */
public final class Endpoint implements AutoCloseable {
    private static final VarHandle USER;

    static {
        try {
            USER = MethodHandles.lookup().findVarHandle(Endpoint.class, "user", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Settings of an endpoint; every time and size carries its unit.
     */
    public static final class Context {
        /** Default completion queue depth. */
        public static final int COMPLETION_QUEUE_DEPTH_DEFAULT = 1024;
        /** Default blocking-helper timeout: 30 s, longer than any provider's transport retry timeout. */
        public static final long OPERATION_TIMEOUT_NS_DEFAULT = 30_000_000_000L;
        /** Default scratch buffer size. */
        public static final int SCRATCH_BYTES_DEFAULT = 4096;

        private int completionQueueDepth = COMPLETION_QUEUE_DEPTH_DEFAULT;
        private long operationTimeoutNs = OPERATION_TIMEOUT_NS_DEFAULT;
        private int scratchBytes = SCRATCH_BYTES_DEFAULT;

        /** Creates a context with the defaults. */
        public Context() {
        }

        /**
         * @param depth completion queue entries, positive
         * @return this
         */
        public Context completionQueueDepth(int depth) {
            this.completionQueueDepth = depth;
            return this;
        }

        /**
         * @param nanos how long a blocking helper waits before throwing {@link VerbsTimeoutException}
         * @return this
         */
        public Context operationTimeoutNs(long nanos) {
            this.operationTimeoutNs = nanos;
            return this;
        }

        /**
         * @param bytes size of the scratch region used by the blocking helpers, at least 8
         * @return this
         */
        public Context scratchBytes(int bytes) {
            this.scratchBytes = bytes;
            return this;
        }

        /** @return the completion queue depth */
        public int completionQueueDepth() {
            return completionQueueDepth;
        }

        /** @return the blocking-helper timeout in nanoseconds */
        public long operationTimeoutNs() {
            return operationTimeoutNs;
        }

        /** @return the scratch region size in bytes */
        public int scratchBytes() {
            return scratchBytes;
        }

        /**
         * Validates the settings.
         *
         * @return this
         * @throws IllegalArgumentException naming the bad setting
         */
        public Context conclude() {
            if (completionQueueDepth < 1) {
                throw new IllegalArgumentException("completionQueueDepth must be positive: " + completionQueueDepth);
            }
            if (operationTimeoutNs <= 0) {
                throw new IllegalArgumentException("operationTimeoutNs must be positive: " + operationTimeoutNs);
            }
            if (scratchBytes < Long.BYTES) {
                throw new IllegalArgumentException("scratchBytes must be at least 8: " + scratchBytes);
            }
            return this;
        }
    }

    private final Node node;
    private final Context context;
    private final CompletionQueue cq;
    private final CompletionDispatcher dispatcher;
    private WaitTag tag;
    private MemoryRegion scratch;
    /** Tags and scratch regions of settled requests, for reuse. */
    private final java.util.ArrayDeque<WaitTag> spareTags = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<MemoryRegion> spareScratch = new java.util.ArrayDeque<>();
    /** Requests whose wait timed out and whose completion has not been collected. */
    private final java.util.ArrayList<UnsettledRequest> unsettled = new java.util.ArrayList<>();
    /** Scratch regions of requests that will never be settled (their queue pair was destroyed): freed at close. */
    private final java.util.ArrayList<MemoryRegion> abandonedScratch = new java.util.ArrayList<>();
    private long deadlineNs = Long.MAX_VALUE;
    private final WorkRequest wr = new WorkRequest();
    /**
     * Per slot: the node id it stands for. Node ids need not be small (between processes they are fabric-wide), so
     * the per-node arrays below are indexed by a dense slot, assigned on first use.
     */
    private int[] slotNode = new int[8];
    private int slots;
    /** Per slot: the queue pair to its node, or null. */
    private QueuePair[] queuePairs = new QueuePair[8];
    /** Per slot: the last remote address written since the last flush, or null (nothing to flush). */
    private RemoteAddress[] unflushed = new RemoteAddress[8];
    /** Per slot: a WRITE was posted on the current queue pair after the last READ or atomic that completed on it. */
    private boolean[] unplaced = new boolean[8];
    /** Per slot: a replaced queue pair carried unplaced WRITEs, not yet reported by flush. */
    private boolean[] lost = new boolean[8];
    /** Per slot: how many times the queue pair was replaced. */
    private long[] epochs = new long[8];
    private VerbsStatistics retired = VerbsStatistics.ZERO;
    private boolean closed;
    /** The thread inside one of the checked methods, or null. */
    @SuppressWarnings("unused") // accessed through USER
    private volatile Thread user;

    private Endpoint(Node node, Context context) {
        this.node = Objects.requireNonNull(node, "node");
        this.context = context.conclude();
        this.cq = node.createCompletionQueue(context.completionQueueDepth());
        this.dispatcher = new CompletionDispatcher(cq);
        this.tag = dispatcher.newTag("endpoint");
        this.scratch = node.allocate(context.scratchBytes(), Access.LOCAL_WRITE);
    }

    /**
     * Opens an endpoint with default settings.
     *
     * @param node the local node
     * @return the endpoint
     */
    public static Endpoint open(Node node) {
        return new Endpoint(node, new Context());
    }

    /**
     * Opens an endpoint.
     *
     * @param node the local node
     * @param context settings
     * @return the endpoint
     */
    public static Endpoint open(Node node, Context context) {
        return new Endpoint(node, context);
    }

    /** @return the local node */
    public Node node() {
        return node;
    }

    /** @return the dispatcher of this endpoint's completion queue */
    public CompletionDispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * A new wait tag on this endpoint's completion queue, for a library that posts its own requests.
     *
     * @param name a name for messages
     * @return the tag
     */
    public WaitTag newTag(String name) {
        return dispatcher.newTag(name);
    }

    /** @return the fabric's clock (virtual on the deterministic fabric): use it for lock timeouts and leases */
    public long nanoTime() {
        return cq.nanoTime();
    }

    /** @return the operation timeout of the blocking helpers, in nanoseconds */
    public long operationTimeoutNs() {
        return context.operationTimeoutNs();
    }

    /**
     * Sets a deadline on the fabric clock ({@link #nanoTime()}) past which no blocking helper waits, whatever the
     * operation timeout: a helper called after it throws {@link VerbsTimeoutException} without posting, and one whose
     * completion has not come by then throws it with the {@link UnsettledRequest}. Locks set it for the length of a
     * timed acquire and restore the previous one.
     *
     * @param nanoTime the deadline, or {@code Long.MAX_VALUE} for none
     * @return the previous deadline
     */
    public long deadline(long nanoTime) {
        long previous = deadlineNs;
        deadlineNs = nanoTime;
        return previous;
    }

    /** @return the current deadline ({@code Long.MAX_VALUE}: none) */
    public long deadline() {
        return deadlineNs;
    }

    /**
     * How many times the endpoint replaced its queue pair to a node (after an error). Two requests to the node issued
     * while the epoch stayed the same went on one queue pair, so the per-queue-pair rules (R6, R7) order them. A queue
     * pair that has left RTS is replaced first, so the epoch counts every failure that happened before the call, not
     * only those a later verb ran into.
     *
     * @param nodeId the peer's id
     * @return the number of replacements so far
     */
    public long queuePairEpoch(int nodeId) {
        enter("queuePairEpoch");
        try {
            int s = slotOf(nodeId);
            if (s >= 0 && queuePairs[s] != null && queuePairs[s].state() != QpState.RTS) {
                connected(nodeId); // its WRITEs not known to be placed may land after anything on the new one (R10)
            }
            return s >= 0 ? epochs[s] : 0;
        } finally {
            exit();
        }
    }

    /** @return the requests whose wait timed out and whose outcome is still unknown */
    public java.util.List<UnsettledRequest> unsettled() {
        return java.util.List.copyOf(unsettled);
    }

    /**
     * The queue pair to a node, connected on first use, and replaced when the previous one went to ERROR.
     *
     * @param nodeId the peer's id
     * @return a connected queue pair
     */
    public QueuePair queuePair(int nodeId) {
        enter("queuePair");
        try {
            return connected(nodeId);
        } finally {
            exit();
        }
    }

    /**
     * Marks the calling thread as the endpoint's user until {@link #exit()}.
     *
     * @param method the method called, for the message
     * @throws IllegalStateException if another thread is inside a method of this endpoint
     */
    private void enter(String method) {
        Thread me = Thread.currentThread();
        // A volatile CAS: it also acquires everything the previous user wrote before its exit() released the endpoint.
        Thread other = (Thread) USER.compareAndExchange(this, null, me);
        if (other != null) {
            throw new IllegalStateException("endpoint of node " + node.name() + " used by two threads at once: \""
                + me.getName() + "\" called " + method + " while \"" + other.getName() + "\" is inside a call; an "
                + "endpoint is single-threaded: give each thread its own, or hand it over between calls");
        }
    }

    private void exit() {
        // A release store after every access of the call, so the next user's enter() sees them all.
        USER.setRelease(this, null);
    }

    /** @return the slot of a node, or -1 if the endpoint has not talked to it (a scan: an endpoint has few peers) */
    private int slotOf(int nodeId) {
        for (int s = 0; s < slots; s++) {
            if (slotNode[s] == nodeId) {
                return s;
            }
        }
        return -1;
    }

    private int slotFor(int nodeId) {
        int s = slotOf(nodeId);
        if (s >= 0) {
            return s;
        }
        if (slots == slotNode.length) {
            int size = slots * 2;
            slotNode = java.util.Arrays.copyOf(slotNode, size);
            queuePairs = java.util.Arrays.copyOf(queuePairs, size);
            unflushed = java.util.Arrays.copyOf(unflushed, size);
            unplaced = java.util.Arrays.copyOf(unplaced, size);
            lost = java.util.Arrays.copyOf(lost, size);
            epochs = java.util.Arrays.copyOf(epochs, size);
        }
        slotNode[slots] = nodeId;
        return slots++;
    }

    private QueuePair connected(int nodeId) {
        ensureOpen();
        if (nodeId < 0) {
            throw new IllegalArgumentException("negative node id " + nodeId);
        }
        int s = slotOf(nodeId);
        QueuePair qp = s < 0 ? null : queuePairs[s];
        if (qp == null || qp.state() != QpState.RTS) {
            Node target = node.fabric().node(nodeId); // throws for an unknown node before a slot is taken
            s = slotFor(nodeId);
            if (qp != null) {
                // WRITEs of the old queue pair not known to be placed may land after anything on the new one (R10).
                lost[s] |= unplaced[s];
                unplaced[s] = false;
                epochs[s]++;
                retire(qp);
                queuePairs[s] = null;
            }
            qp = node.connect(target, cq);
            queuePairs[s] = qp;
        }
        return qp;
    }

    private void retire(QueuePair qp) {
        // Collect what already arrived for requests on it before it goes: after close nothing more will.
        for (UnsettledRequest u : List.copyOf(unsettled)) {
            if (u.queuePair == qp) {
                settle(u, 0);
            }
        }
        retired = retired.plus(qp.statistics());
        qp.close();
        for (UnsettledRequest u : List.copyOf(unsettled)) {
            if (u.queuePair == qp) {
                // Destroyed before its completion came: it may have taken effect, and may still (docs/memory-model.md §5).
                u.settled(UnsettledRequest.Outcome.INDETERMINATE, null, 0);
                unsettled.remove(u);
                abandonedScratch.add(u.scratch);
            }
        }
    }

    /** Waits for an unsettled request's completion (called through {@link UnsettledRequest#settle(long)}). */
    void settle(UnsettledRequest u, long timeoutNs) {
        if (u.isSettled()) {
            return;
        }
        boolean outer = USER.get(this) != Thread.currentThread();
        if (outer) {
            enter("settle");
        }
        try {
            if (!unsettled.contains(u)) {
                return;
            }
            WaitStatus s = u.tag.await(timeoutNs);
            if (s == WaitStatus.TIMED_OUT) {
                return;
            }
            unsettled.remove(u);
            if (s == WaitStatus.COMPLETED) {
                u.settled(UnsettledRequest.Outcome.SUCCEEDED, WcStatus.SUCCESS,
                    u.opcode() == Opcode.WRITE ? 0 : u.scratch.getLong(0));
                int n = slotOf(u.address().nodeId());
                if (u.opcode() != Opcode.WRITE && n >= 0 && queuePairs[n] == u.queuePair) {
                    unplaced[n] = false; // a READ or atomic completed after the WRITEs before it on its queue pair (R7)
                }
            } else {
                WcStatus status = u.tag.lastError();
                u.settled(RemoteAccessException.indeterminate(status) ? UnsettledRequest.Outcome.INDETERMINATE
                    : UnsettledRequest.Outcome.REFUSED, status, 0);
            }
            spareTags.add(u.tag);
            spareScratch.add(u.scratch);
        } finally {
            if (outer) {
                exit();
            }
        }
    }

    /**
     * @return how long a blocking helper may wait now: the operation timeout, cut at the {@link #deadline(long)}; 0 if
     *     the deadline has passed. Use it to bound {@link UnsettledRequest#settle(long)} the same way.
     */
    public long waitBudgetNs() {
        long timeout = context.operationTimeoutNs();
        if (deadlineNs == Long.MAX_VALUE) {
            return timeout;
        }
        long left = deadlineNs - cq.nanoTime();
        return left <= 0 ? 0 : Math.min(timeout, left);
    }

    /**
     * Posts one request through the endpoint's tag and waits for it. The description for exceptions is built only on
     * failure, so the hot path allocates nothing.
     *
     * @param qp the queue pair
     * @param request the request
     * @param address the remote address, for messages
     */
    private void execute(QueuePair qp, WorkRequest request, RemoteAddress address) {
        long budget = waitBudgetNs();
        if (budget == 0) {
            throw new VerbsTimeoutException(describe(request, address) + " not posted: the endpoint's deadline has passed");
        }
        long start = cq.nanoTime();
        while (tag.post(qp, request) == QueuePair.QUEUE_FULL) {
            long left = budget - (cq.nanoTime() - start);
            if (left <= 0) {
                throw new VerbsTimeoutException(describe(request, address) + " not posted: the send queue stayed full "
                    + "for " + budget + " ns");
            }
            tag.await(left);
        }
        if (request.opcode() == Opcode.WRITE) {
            unplaced[slotOf(qp.remoteNodeId())] = true; // posted, so it may land at any time: acked is not placed (R11)
        }
        WaitStatus status = tag.await(Math.max(0, budget - (cq.nanoTime() - start)));
        if (status == WaitStatus.COMPLETED) {
            if (request.opcode() != Opcode.WRITE) {
                // A READ or atomic executes after every earlier WRITE of its queue pair is placed (R7).
                unplaced[slotOf(qp.remoteNodeId())] = false;
            }
            return;
        }
        if (status == WaitStatus.TIMED_OUT) {
            // Collect what has come for earlier unsettled requests, so that their tags and scratch are reused.
            for (UnsettledRequest earlier : List.copyOf(unsettled)) {
                settle(earlier, 0);
            }
            // The request keeps its queue pair, tag and scratch: its completion can still be collected (settle).
            UnsettledRequest u = new UnsettledRequest(this, request.opcode(), address, qp, tag, scratch);
            unsettled.add(u);
            tag = spareTags.isEmpty() ? dispatcher.newTag("endpoint") : spareTags.poll();
            scratch = spareScratch.isEmpty() ? node.allocate(context.scratchBytes(), Access.LOCAL_WRITE)
                : spareScratch.poll();
            throw new VerbsTimeoutException(describe(request, address) + " did not complete within " + budget + " ns"
                + (budget < context.operationTimeoutNs() ? " (the endpoint's deadline)" : ""), u);
        }
        throw new RemoteAccessException(tag.lastError(), describe(request, address));
    }

    private static String describe(WorkRequest request, RemoteAddress address) {
        return switch (request.opcode()) {
            case READ, WRITE -> request.opcode() + " of " + request.length() + " bytes at " + address;
            case CAS -> "CAS at " + address;
            case FETCH_ADD -> "FETCH_ADD at " + address;
            default -> request.opcode() + " to " + address;
        };
    }

    /**
     * RDMA READ of one 8-byte word: one round trip.
     *
     * @param address the remote word (needs REMOTE_READ)
     * @return its value
     */
    public long readLong(RemoteAddress address) {
        enter("readLong");
        try {
            QueuePair qp = connected(address.nodeId());
            wr.read(scratch, 0, Long.BYTES, address).flags(WorkRequest.SIGNALED);
            execute(qp, wr, address);
            return scratch.getLong(0);
        } finally {
            exit();
        }
    }

    /**
     * RDMA READ into a local region: one round trip.
     *
     * @param address the remote source (needs REMOTE_READ)
     * @param destination a region of this node with LOCAL_WRITE
     * @param offset byte offset in {@code destination}
     * @param length bytes
     */
    public void read(RemoteAddress address, MemoryRegion destination, long offset, int length) {
        enter("read");
        try {
            QueuePair qp = connected(address.nodeId());
            wr.read(destination, offset, length, address).flags(WorkRequest.SIGNALED);
            execute(qp, wr, address);
        } finally {
            exit();
        }
    }

    /**
     * Inline RDMA WRITE of one 8-byte word: one round trip (the wait is for the target's acknowledgement, R11). The
     * WRITE is remembered for the next {@link #flush}.
     *
     * @param address the remote word (needs REMOTE_WRITE)
     * @param value the value
     */
    public void writeLong(RemoteAddress address, long value) {
        writeLong(address, value, true);
    }

    /**
     * Inline RDMA WRITE of one 8-byte word: one round trip.
     *
     * @param address the remote word (needs REMOTE_WRITE)
     * @param value the value
     * @param flushLater whether {@link #flush} must make it visible: false for a protocol's own WRITEs that nobody
     *     needs to see before the next release (a lock's queue links and hand-overs), which saves the flush READ
     */
    public void writeLong(RemoteAddress address, long value, boolean flushLater) {
        enter("writeLong");
        try {
            QueuePair qp = connected(address.nodeId());
            scratch.putLong(0, value);
            wr.write(scratch, 0, Long.BYTES, address).flags(WorkRequest.SIGNALED | WorkRequest.INLINE);
            execute(qp, wr, address);
            if (flushLater) {
                remember(address);
            }
        } finally {
            exit();
        }
    }

    /**
     * RDMA WRITE from a local region: one round trip.
     *
     * @param address the remote destination (needs REMOTE_WRITE)
     * @param source a region of this node
     * @param offset byte offset in {@code source}
     * @param length bytes
     */
    public void write(RemoteAddress address, MemoryRegion source, long offset, int length) {
        enter("write");
        try {
            QueuePair qp = connected(address.nodeId());
            wr.write(source, offset, length, address).flags(WorkRequest.SIGNALED);
            execute(qp, wr, address);
            remember(address);
        } finally {
            exit();
        }
    }

    /**
     * Records that a WRITE to {@code address} was posted through this endpoint's queue pair to its node (the blocking
     * helpers do this themselves; call it for WRITEs posted through your own tags), so that {@link #flush} covers it.
     *
     * @param address an address written; it must be readable remotely (REMOTE_READ) for the flush
     */
    public void markWritten(RemoteAddress address) {
        enter("markWritten");
        try {
            remember(address);
        } finally {
            exit();
        }
    }

    private void remember(RemoteAddress address) {
        connected(address.nodeId());
        int s = slotOf(address.nodeId());
        unflushed[s] = address;
        unplaced[s] = true;
    }

    /**
     * Makes every WRITE posted through this endpoint visible to the CPUs of its target (R11: a completed WRITE has
     * only been acknowledged): on each queue pair that carried a WRITE since the last flush, an 8-byte READ of the
     * last address written, waited for. A READ executes only after every earlier WRITE of its queue pair has been
     * placed (R7, litmus L05a, L09b), so once it completes they are all visible. One round trip per node flushed; none
     * if nothing was written.
     *
     * <p>If a queue pair that carried WRITEs not known to be placed was replaced since the last flush (to any node,
     * {@code exceptNodeId} included: the release WRITE on the new queue pair is not ordered after them either), no
     * READ can order them: the flush throws {@link PublicationLostException} naming those nodes, and forgets them.
     *
     * @param exceptNodeId a node not to flush (a lock's home, whose own release WRITE is ordered after the critical
     *     section's WRITEs on the same queue pair by R6), or -1
     * @return the number of nodes flushed
     * @throws PublicationLostException if WRITEs of a replaced queue pair may still land
     */
    public int flush(int exceptNodeId) {
        enter("flush");
        try {
            for (int n = 0; n < slots; n++) {
                if (queuePairs[n] != null && (unplaced[n] || unflushed[n] != null)) {
                    connected(slotNode[n]); // replaces a failed queue pair now, so that its unplaced WRITEs count as lost
                }
            }
            int lostCount = 0;
            for (boolean l : lost) {
                lostCount += l ? 1 : 0;
            }
            if (lostCount > 0) {
                int[] nodes = new int[lostCount];
                for (int n = 0, i = 0; n < slots; n++) {
                    if (lost[n]) {
                        nodes[i++] = slotNode[n];
                        lost[n] = false;
                        unflushed[n] = null;
                    }
                }
                java.util.Arrays.sort(nodes);
                throw new PublicationLostException(nodes);
            }
            int flushed = 0;
            for (int n = 0; n < slots; n++) {
                RemoteAddress a = unflushed[n];
                if (a == null || slotNode[n] == exceptNodeId) {
                    continue;
                }
                QueuePair qp = connected(slotNode[n]);
                wr.read(scratch, 0, Long.BYTES, a.plus(-(a.address() & 7))).flags(WorkRequest.SIGNALED);
                execute(qp, wr, a);
                unflushed[n] = null;
                flushed++;
            }
            return flushed;
        } finally {
            exit();
        }
    }

    /**
     * Remote compare-and-swap: one round trip.
     *
     * @param address an 8-byte-aligned remote word (needs REMOTE_ATOMIC)
     * @param expected compared value
     * @param desired new value if equal
     * @return the word's previous value (the swap happened iff it equals {@code expected})
     */
    public long cas(RemoteAddress address, long expected, long desired) {
        enter("cas");
        try {
            QueuePair qp = connected(address.nodeId());
            wr.cas(scratch, 0, address, expected, desired).flags(WorkRequest.SIGNALED);
            execute(qp, wr, address);
            return scratch.getLong(0);
        } finally {
            exit();
        }
    }

    /**
     * Remote fetch-and-add: one round trip.
     *
     * @param address an 8-byte-aligned remote word (needs REMOTE_ATOMIC)
     * @param delta the addend
     * @return the word's previous value
     */
    public long faa(RemoteAddress address, long delta) {
        enter("faa");
        try {
            QueuePair qp = connected(address.nodeId());
            wr.faa(scratch, 0, address, delta).flags(WorkRequest.SIGNALED);
            execute(qp, wr, address);
            return scratch.getLong(0);
        } finally {
            exit();
        }
    }

    /** @return the counters of every queue pair this endpoint has used */
    public VerbsStatistics statistics() {
        enter("statistics");
        try {
            VerbsStatistics s = retired;
            for (QueuePair qp : queuePairs) {
                if (qp != null) {
                    s = s.plus(qp.statistics());
                }
            }
            return s;
        } finally {
            exit();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("endpoint is closed");
        }
    }

    /** Closes the queue pairs, the completion queue and the scratch region. Idempotent. */
    @Override
    public void close() {
        enter("close");
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (int i = 0; i < queuePairs.length; i++) {
                if (queuePairs[i] != null) {
                    retire(queuePairs[i]);
                    queuePairs[i] = null;
                }
            }
            unsettled.clear();
            scratch.deregister();
            spareScratch.forEach(MemoryRegion::deregister);
            abandonedScratch.forEach(MemoryRegion::deregister);
            cq.close();
        } finally {
            exit();
        }
    }
}
