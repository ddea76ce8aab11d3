package dev.remora.check;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The time and memory a check may still use, shared by the searches of all its partitions.
 * Searches poll {@link #expired()} every few thousand steps and reserve cache memory in chunks.
 */
final class Budget {
    private final long deadlineNs;
    private final AtomicLong memoryLeftBytes;
    private volatile String stopCause;

    Budget(long startNs, long timeLimitNs, long memoryLimitBytes) {
        long d = startNs + timeLimitNs;
        this.deadlineNs = timeLimitNs == Long.MAX_VALUE || d < startNs ? Long.MAX_VALUE : d;
        this.memoryLeftBytes = new AtomicLong(memoryLimitBytes);
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

    boolean reserve(long bytes) {
        if (memoryLeftBytes.addAndGet(-bytes) < 0) {
            stopCause = "memory limit reached";
            return false;
        }
        return true;
    }

    void release(long bytes) {
        memoryLeftBytes.addAndGet(bytes);
    }

    void stop(String cause) {
        stopCause = cause;
    }
}
