package dev.remora.check;

/**
 * The time a check may still use and its memory limit, shared by the searches of all its
 * partitions. Searches poll {@link #expired()} every few thousand steps. The memory limit is
 * not drawn on as one pool: the checker gives each partition its own share of it.
 */
final class Budget {
    private final long deadlineNs;
    private final long memoryLimitBytes;
    private volatile String stopCause;
    private final long startNs;
    private long progressIntervalNs;
    private volatile Runnable progress;
    private volatile long nextProgressNs;

    Budget(long startNs, long timeLimitNs, long memoryLimitBytes) {
        long d = startNs + timeLimitNs;
        this.deadlineNs = timeLimitNs == Long.MAX_VALUE || d < startNs ? Long.MAX_VALUE : d;
        this.memoryLimitBytes = memoryLimitBytes;
        this.startNs = startNs;
    }

    /**
     * Calls {@code hook} from {@link #expired()} about every {@code intervalNs}; {@code null}
     * stops it.
     */
    void progress(long intervalNs, Runnable hook) {
        progressIntervalNs = intervalNs;
        nextProgressNs = startNs + intervalNs;
        progress = hook;
    }

    private void maybeReport() {
        Runnable hook = progress;
        if (hook != null && System.nanoTime() - nextProgressNs >= 0) {
            synchronized (this) {
                long now = System.nanoTime();
                if (progress != null && now - nextProgressNs >= 0) {
                    nextProgressNs = now + progressIntervalNs;
                    hook.run();
                }
            }
        }
    }

    /** @return the cause that stopped the check, or {@code null} while it may go on */
    String expired() {
        maybeReport();
        String c = stopCause;
        if (c == null && deadlineNs != Long.MAX_VALUE && System.nanoTime() - deadlineNs > 0) {
            c = "time limit reached";
            stopCause = c;
        }
        return c;
    }

    /** @return the memory limit of the whole check, in bytes */
    long memoryLimitBytes() {
        return memoryLimitBytes;
    }

    void stop(String cause) {
        stopCause = cause;
    }
}
