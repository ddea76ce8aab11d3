package dev.remora.check;

/**
 * Settings of one check. Immutable; the {@code with…} methods return copies.
 *
 * @param timeLimitNs      wall-clock limit for the whole check, including the explanation of a
 *                         failure; past it the verdict is {@link Verdict#UNKNOWN}
 * @param memoryLimitBytes limit on the memoisation caches of all partitions together, given out
 *                         as one share per partition (in proportion to its operations among
 *                         those undecided); 0 means half of the heap that is free when the
 *                         check starts
 * @param parallelism      partitions checked at once; the verdict, explanation and state count
 *                         do not depend on it
 * @param explain          whether to explain a failure (blocking operation, longest partial
 *                         linearization, smallest failing window); without it a failure
 *                         carries only the failing partition, as a verdict-only check
 * @param progressIntervalNs how often {@code progress} is told how far the search has got
 * @param progress         the listener, or {@code null} for none; called from a search thread,
 *                         never by two threads at once
 * @param linearizations   whether to hand back, for every partition found linearizable, the
 *                         order the search found ({@link CheckResult#linearizations()}), for
 *                         reports; it costs one copy of the search's stack per partition
 */
public record CheckOptions(long timeLimitNs, long memoryLimitBytes, int parallelism, boolean explain,
                           long progressIntervalNs, java.util.function.Consumer<CheckProgress> progress,
                           boolean linearizations) {
    /** Defaults: no time limit, half the free heap, one thread per core, with explanations, no progress. */
    public static final CheckOptions DEFAULTS = new CheckOptions(Long.MAX_VALUE, 0,
            Runtime.getRuntime().availableProcessors(), true, 0, null, false);

    /**
     * Settings without the linearizations of linearizable partitions.
     *
     * @param timeLimitNs        the time limit
     * @param memoryLimitBytes   the memory limit, 0 for half the free heap
     * @param parallelism        partitions checked at once
     * @param explain            whether to explain a failure
     * @param progressIntervalNs how often {@code progress} is called
     * @param progress           the listener, or {@code null}
     */
    public CheckOptions(long timeLimitNs, long memoryLimitBytes, int parallelism, boolean explain,
                        long progressIntervalNs, java.util.function.Consumer<CheckProgress> progress) {
        this(timeLimitNs, memoryLimitBytes, parallelism, explain, progressIntervalNs, progress, false);
    }

    /**
     * @param on whether to hand back the order found for each linearizable partition
     * @return a copy
     */
    public CheckOptions withLinearizations(boolean on) {
        return new CheckOptions(timeLimitNs, memoryLimitBytes, parallelism, explain, progressIntervalNs, progress, on);
    }

    /**
     * Reports progress while the partitions are searched: the listener is called about every
     * {@code intervalSeconds} (the searches look at the clock every few thousand steps), never
     * for a check decided sooner.
     *
     * @param intervalSeconds the interval, in seconds
     * @param listener        the listener, or {@code null} for none
     * @return a copy with that listener
     */
    public CheckOptions withProgress(double intervalSeconds, java.util.function.Consumer<CheckProgress> listener) {
        long ns = intervalSeconds >= 9.2e9 ? Long.MAX_VALUE : Math.max(0, (long) (intervalSeconds * 1e9));
        return new CheckOptions(timeLimitNs, memoryLimitBytes, parallelism, explain, ns, listener, linearizations);
    }

    /**
     * @param seconds the time limit in seconds
     * @return a copy with that limit
     */
    public CheckOptions withTimeLimitSeconds(double seconds) {
        long ns = seconds >= 9.2e9 ? Long.MAX_VALUE : (long) (seconds * 1e9);
        return new CheckOptions(ns, memoryLimitBytes, parallelism, explain, progressIntervalNs, progress, linearizations);
    }

    /**
     * @param bytes the memory limit
     * @return a copy with that limit
     */
    public CheckOptions withMemoryLimitBytes(long bytes) {
        return new CheckOptions(timeLimitNs, bytes, parallelism, explain, progressIntervalNs, progress, linearizations);
    }

    /**
     * @param threads partitions checked at once
     * @return a copy with that parallelism
     */
    public CheckOptions withParallelism(int threads) {
        return new CheckOptions(timeLimitNs, memoryLimitBytes, Math.max(1, threads), explain, progressIntervalNs,
                progress, linearizations);
    }

    /**
     * @param on whether to explain failures
     * @return a copy
     */
    public CheckOptions withExplain(boolean on) {
        return new CheckOptions(timeLimitNs, memoryLimitBytes, parallelism, on, progressIntervalNs, progress, linearizations);
    }
}
