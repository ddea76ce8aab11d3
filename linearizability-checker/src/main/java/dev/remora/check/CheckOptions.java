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
 */
public record CheckOptions(long timeLimitNs, long memoryLimitBytes, int parallelism, boolean explain) {
    /** Defaults: no time limit, half the free heap, one thread per core, with explanations. */
    public static final CheckOptions DEFAULTS = new CheckOptions(Long.MAX_VALUE, 0,
            Runtime.getRuntime().availableProcessors(), true);

    /**
     * @param seconds the time limit in seconds
     * @return a copy with that limit
     */
    public CheckOptions withTimeLimitSeconds(double seconds) {
        long ns = seconds >= 9.2e9 ? Long.MAX_VALUE : (long) (seconds * 1e9);
        return new CheckOptions(ns, memoryLimitBytes, parallelism, explain);
    }

    /**
     * @param bytes the memory limit
     * @return a copy with that limit
     */
    public CheckOptions withMemoryLimitBytes(long bytes) {
        return new CheckOptions(timeLimitNs, bytes, parallelism, explain);
    }

    /**
     * @param threads partitions checked at once
     * @return a copy with that parallelism
     */
    public CheckOptions withParallelism(int threads) {
        return new CheckOptions(timeLimitNs, memoryLimitBytes, Math.max(1, threads), explain);
    }

    /**
     * @param on whether to explain failures
     * @return a copy
     */
    public CheckOptions withExplain(boolean on) {
        return new CheckOptions(timeLimitNs, memoryLimitBytes, parallelism, on);
    }
}
