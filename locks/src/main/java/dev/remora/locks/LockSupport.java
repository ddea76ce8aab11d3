package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/** Shared checks and the ordered-release flush of the locks. */
final class LockSupport {
    private LockSupport() {
    }

    static RemoteAddress aligned(RemoteAddress word, String what) {
        Objects.requireNonNull(word, what);
        if (!word.isWordAligned()) {
            throw new IllegalArgumentException(what + " must be 8-byte aligned: " + word);
        }
        return word;
    }

    static long ownerId(long owner) {
        if (owner <= 0) {
            throw new IllegalArgumentException("owner ids are positive: " + owner);
        }
        return owner;
    }

    /**
     * Ordered release, first half: makes the critical section's WRITEs to every node other than the lock's home
     * visible (a READ on each such queue pair, R7). WRITEs to the home need nothing: the releasing WRITE follows them
     * on the same queue pair (R6).
     */
    static void flushCriticalSection(Endpoint endpoint, RemoteAddress lockWord) {
        endpoint.flush(lockWord.nodeId());
    }

    /**
     * The timed acquire every lock shares: attempts until one acquires or the fabric clock passes the deadline, with
     * backoff between attempts.
     */
    static LockResult retryUntil(Endpoint endpoint, Backoff backoff, java.util.function.Supplier<LockResult> attempt,
                                 long timeoutNs) {
        long deadline = deadline(endpoint, timeoutNs);
        backoff.reset();
        while (true) {
            LockResult r = attempt.get();
            if (r.acquired()) {
                return r;
            }
            if (endpoint.nanoTime() >= deadline) {
                return LockResult.TIMED_OUT;
            }
            backoff.pause();
        }
    }

    static long deadline(Endpoint endpoint, long timeoutNs) {
        long now = endpoint.nanoTime();
        return timeoutNs >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + timeoutNs;
    }
}
