package dev.remora.verbs.det;

import java.util.Objects;

/**
 * Settings of the deterministic fabric. {@link #conclude()} validates.
 *
 * <h2>Virtual time</h2>
 * The fabric's clock ({@link dev.remora.verbs.CompletionQueue#nanoTime()},
 * {@link dev.remora.verbs.Endpoint#nanoTime()}) advances {@link #nanosPerStep(long)} per step; when no step is enabled
 * it jumps to the earliest moment at which one becomes enabled: a waiter's deadline. A wait with a timeout
 * ({@code CompletionQueue.await}, and so {@code WaitTag.await} and the blocking helpers of {@code Endpoint}) may time
 * out, as one of the steps the scheduler chooses from, once the clock has reached its deadline, even while its request
 * is in flight and other threads can step. A non-blocking {@code poll} of an empty queue stands for a thread spinning
 * on it: it returns a completion as soon as one arrives, or empty once {@link #emptyPollNs(long)} has passed.
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
