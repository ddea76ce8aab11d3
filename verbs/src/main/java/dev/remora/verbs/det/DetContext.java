package dev.remora.verbs.det;

import java.util.Objects;

/**
 * Settings of the deterministic fabric. {@link #conclude()} validates.
 */
public final class DetContext {
    /** Default step bound of a run. */
    public static final long MAX_STEPS_DEFAULT = 2_000_000;
    /** Virtual nanoseconds that pass per step. */
    public static final long NANOS_PER_STEP_DEFAULT = 100;

    private DetKnobs knobs = DetKnobs.WEAK;
    private long seed = 1;
    private FaultPlan faults = FaultPlan.NONE;
    private long maxSteps = MAX_STEPS_DEFAULT;
    private long nanosPerStep = NANOS_PER_STEP_DEFAULT;
    private int maxInlineBytes = 256;

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
     * @param nanos virtual time per step, the clock of waits and timeouts
     * @return this
     */
    public DetContext nanosPerStep(long nanos) {
        this.nanosPerStep = nanos;
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
        if (maxInlineBytes < 0) {
            throw new IllegalArgumentException("maxInlineBytes must be >= 0: " + maxInlineBytes);
        }
        return this;
    }
}
