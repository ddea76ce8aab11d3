package dev.remora.verbs.det;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the deterministic fabric. {@link #conclude()} validates.
 *
 * <h2>Virtual time</h2>
 * The fabric's clock ({@link dev.remora.verbs.CompletionQueue#nanoTime()},
 * {@link dev.remora.verbs.Endpoint#nanoTime()}) advances {@link #nanosPerStep(long)} per step; when no step is enabled
 * it jumps to the earliest moment at which one becomes enabled: a waiter's deadline, or the moment a delayed request
 * may act. A wait with a timeout ({@code CompletionQueue.await}, and so {@code WaitTag.await} and the blocking helpers
 * of {@code Endpoint}) may time out, as one of the steps the scheduler chooses from, once the clock has reached its
 * deadline, even while its request is in flight and other threads can step. A non-blocking {@code poll} of an empty
 * queue stands for a thread spinning on it: it returns a completion as soon as one arrives, or empty once
 * {@link #emptyPollNs(long)} has passed.
 *
 * <h2>Round-trip delays</h2>
 * {@link #linkRoundTripNs(int, int, long)} and {@link #nodeRoundTripNs(int, long)} make requests slow on purpose, so
 * that a request can take effect and still complete after its waiter's timeout:
 * <pre>{@code
 * DetContext c = new DetContext().seed(seed).linkRoundTripNs(client, home, 20_000_000L); // node ids, 20 ms
 * // with Endpoint.Context().operationTimeoutNs(15_000_000L), a cas() from client to home now throws
 * // VerbsTimeoutException; the CAS still lands at home, and its completion reaches the queue 20 ms after posting
 * }</pre>
 * A request posted at virtual time {@code P} between two nodes with round trip {@code X > 0} performs its NIC
 * sub-actions (source reads, remote reads and writes, atomics, result writes, failing) no earlier than a moment drawn
 * from the seed in {@code [P, P + X]}, and completes, successfully or not (a flush or retry error of a broken queue
 * pair too), no earlier than {@code P + X}. The memory-model rules still order its sub-actions; the delay only adds
 * lower bounds in time. The sender's NIC takes the request, checking its local key, when its doorbell reaches it, so
 * deregistering the local region afterwards (closing an endpoint after a timeout, say) does not refuse it; the target
 * checks the remote key when the request arrives. Node ids are those of {@link dev.remora.verbs.Fabric#addNode}, in
 * order from 0.
 */
public final class DetContext {
    /** Default step bound of a run. */
    public static final long MAX_STEPS_DEFAULT = 2_000_000;
    /** Virtual nanoseconds that pass per step. */
    public static final long NANOS_PER_STEP_DEFAULT = 100;
    /**
     * Default of {@link #emptyPollNs(long)}: 1 ms, far longer than a request takes without a delay (thousands of
     * steps), so spinning pollers see an empty queue only when time really passes.
     */
    public static final long EMPTY_POLL_NS_DEFAULT = 1_000_000;

    private DetKnobs knobs = DetKnobs.WEAK;
    private long seed = 1;
    private FaultPlan faults = FaultPlan.NONE;
    private long maxSteps = MAX_STEPS_DEFAULT;
    private long nanosPerStep = NANOS_PER_STEP_DEFAULT;
    private int maxInlineBytes = 256;
    private long emptyPollNs = EMPTY_POLL_NS_DEFAULT;
    private final Map<Long, Long> linkRoundTrips = new HashMap<>();
    private final Map<Integer, Long> nodeRoundTrips = new HashMap<>();

    /** Creates the defaults: the weak model, seed 1, no faults. */
    public DetContext() {
    }

    /**
     * @param k memory-model knobs
     * @return this
     */
    public DetContext knobs(DetKnobs k) {
        this.knobs = Objects.requireNonNull(k, "knobs");
        return this;
    }

    /**
     * @param s the scheduler's seed: the same seed (and program) gives the same execution
     * @return this
     */
    public DetContext seed(long s) {
        this.seed = s;
        return this;
    }

    /**
     * @param plan faults to inject
     * @return this
     */
    public DetContext faults(FaultPlan plan) {
        this.faults = Objects.requireNonNull(plan, "faults");
        return this;
    }

    /**
     * @param steps a run stops (reported as not finished) after this many steps: bounds livelocks
     * @return this
     */
    public DetContext maxSteps(long steps) {
        this.maxSteps = steps;
        return this;
    }

    /**
     * @param nanos virtual time per step, the clock of waits and timeouts (which also jumps ahead when no step is
     *     enabled, see the class comment)
     * @return this
     */
    public DetContext nanosPerStep(long nanos) {
        this.nanosPerStep = nanos;
        return this;
    }

    /**
     * Sets how long a non-blocking poll of an empty completion queue waits for a completion, in virtual time, before
     * it returns empty. A thread spinning on {@code poll} thus notices the clock (a deadline of its own, say) at most
     * this late; one poll step stands for all the empty polls of that stretch. ({@code WaitTag.await} polls once before
     * it reads the clock, so with the default it may give up up to about 1 ms after its timeout.)
     *
     * @param nanos virtual nanoseconds, positive
     * @return this
     */
    public DetContext emptyPollNs(long nanos) {
        this.emptyPollNs = nanos;
        return this;
    }

    /**
     * Sets the round trip of the link between two nodes (both directions): every request from a thread on one to the
     * other completes no earlier than {@code nanos} of virtual time after it was posted, and takes effect at a seeded
     * moment in between (see the class comment).
     *
     * @param a a node id
     * @param b another node id (or the same, for requests a node posts to itself)
     * @param nanos the round trip in virtual nanoseconds, 0 for none
     * @return this
     */
    public DetContext linkRoundTripNs(int a, int b, long nanos) {
        if (a < 0 || b < 0) {
            throw new IllegalArgumentException("node ids are >= 0: " + a + ", " + b);
        }
        if (nanos < 0) {
            throw new IllegalArgumentException("a round trip is >= 0 ns: " + nanos);
        }
        linkRoundTrips.put(linkKey(a, b), nanos);
        return this;
    }

    /**
     * Sets the round trip of every request a thread on {@code node} posts and of every request that targets it.
     *
     * @param node a node id
     * @param nanos the round trip in virtual nanoseconds, 0 for none
     * @return this
     */
    public DetContext nodeRoundTripNs(int node, long nanos) {
        if (node < 0) {
            throw new IllegalArgumentException("node ids are >= 0: " + node);
        }
        if (nanos < 0) {
            throw new IllegalArgumentException("a round trip is >= 0 ns: " + nanos);
        }
        nodeRoundTrips.put(node, nanos);
        return this;
    }

    private static long linkKey(int a, int b) {
        return (long) Math.min(a, b) << 32 | Math.max(a, b);
    }

    /**
     * @param bytes largest INLINE payload
     * @return this
     */
    public DetContext maxInlineBytes(int bytes) {
        this.maxInlineBytes = bytes;
        return this;
    }

    /** @return the knobs */
    public DetKnobs knobs() {
        return knobs;
    }

    /** @return the seed */
    public long seed() {
        return seed;
    }

    /** @return the fault plan */
    public FaultPlan faults() {
        return faults;
    }

    /** @return the step bound */
    public long maxSteps() {
        return maxSteps;
    }

    /** @return virtual nanoseconds per step */
    public long nanosPerStep() {
        return nanosPerStep;
    }

    /** @return how long an empty non-blocking poll waits, in virtual nanoseconds */
    public long emptyPollNs() {
        return emptyPollNs;
    }

    /**
     * The round trip of a request: the largest of the link's setting and both nodes' settings.
     *
     * @param sender the posting thread's node id
     * @param target the target node id
     * @return virtual nanoseconds, 0 for no delay
     */
    public long roundTripNs(int sender, int target) {
        if (linkRoundTrips.isEmpty() && nodeRoundTrips.isEmpty()) {
            return 0;
        }
        long link = linkRoundTrips.getOrDefault(linkKey(sender, target), 0L);
        return Math.max(link, Math.max(nodeRoundTrips.getOrDefault(sender, 0L),
            nodeRoundTrips.getOrDefault(target, 0L)));
    }

    /** @return whether any round-trip delay is set */
    public boolean hasRoundTrips() {
        return linkRoundTrips.values().stream().anyMatch(x -> x > 0)
            || nodeRoundTrips.values().stream().anyMatch(x -> x > 0);
    }

    /** @return the largest inline payload */
    public int maxInlineBytes() {
        return maxInlineBytes;
    }

    /**
     * @return this, validated
     * @throws IllegalArgumentException naming the bad setting
     */
    public DetContext conclude() {
        if (maxSteps < 1) {
            throw new IllegalArgumentException("maxSteps must be positive: " + maxSteps);
        }
        if (nanosPerStep < 1) {
            throw new IllegalArgumentException("nanosPerStep must be positive: " + nanosPerStep);
        }
        if (emptyPollNs < 1) {
            throw new IllegalArgumentException("emptyPollNs must be positive: " + emptyPollNs);
        }
        if (maxInlineBytes < 0) {
            throw new IllegalArgumentException("maxInlineBytes must be >= 0: " + maxInlineBytes);
        }
        return this;
    }
}
