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

    Budget(long startNs, long timeLimitNs, long memoryLimitBytes) {
        long d = startNs + timeLimitNs;
        this.deadlineNs = timeLimitNs == Long.MAX_VALUE || d < startNs ? Long.MAX_VALUE : d;
        this.memoryLimitBytes = memoryLimitBytes;
    }

    /** @return the cause that stopped the check, or {@code null} while it may go on */
    String expired() {
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
