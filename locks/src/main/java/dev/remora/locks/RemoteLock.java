package dev.remora.locks;

import java.util.concurrent.TimeUnit;

/**
 * A mutual-exclusion lock in some node's registered memory, usable from any node through one-sided verbs.
 *
 * <p>An instance is a <em>handle</em> for one thread, bound to that thread's {@link dev.remora.verbs.Endpoint}; create
 * one handle per thread over the same lock address. The home node's own threads use the lock the same way, through a
 * loopback queue pair: never with CPU atomics on the lock's words, which are not atomic against remote atomics under
 * {@code IBV_ATOMIC_HCA} (docs/memory-model.md R14, litmus L11, L16).
 *
 * <h2>Two kinds of release</h2>
 * <ul>
 *   <li>{@link #unlock()} (ordered, the default): the critical section's remote WRITEs made through the same endpoint
 *       are visible to the next holder before the lock is free: they are flushed first by a READ on each queue pair
 *       that carried one, the home's included (R7; {@link dev.remora.verbs.Endpoint#flush(int)}), so that a release
 *       posted again on a new queue pair after an error cannot overtake one. This forbids LK1. If a queue pair that
 *       carried such WRITEs was replaced before they were known to be placed, no READ can order them: the release
 *       throws {@link dev.remora.verbs.PublicationLostException} and releases nothing.</li>
 *   <li>{@link #unlockWeak()}: guarantees mutual exclusion only. A WRITE of the critical section may still be in
 *       flight when the next holder reads (LK1 is allowed); use it when the critical section wrote nothing.</li>
 * </ul>
 *
 * <p>Expected outcomes are {@link LockResult}s; misuse throws {@link IllegalStateException} (unlocking a lock this
 * handle does not hold, acquiring twice, a handle used by two threads at once). A home node that cannot be reached
 * throws {@link dev.remora.verbs.RemoteAccessException}. What a timeout, a queue-pair error and a crash do to each
 * lock is in its class comment and in docs/locks.md ("Timeouts, errors and crashes").
 */
public interface RemoteLock extends AutoCloseable {

    /** A held lock for try-with-resources: {@code close()} releases it. */
    interface Guard extends AutoCloseable {
        /** Releases the lock (the ordered release). */
        @Override
        void close();
    }

    /** Acquires the lock, waiting as long as it takes. */
    void lock();

    /**
     * One attempt.
     *
     * @return {@link LockResult#ACQUIRED} or {@link LockResult#CONTENDED} (or {@link LockResult#LEASE_EXPIRED} for a
     *     lease lock taken over)
     */
    LockResult tryLock();

    /**
     * Acquires the lock unless the timeout passes first.
     *
     * @param timeout how long to try
     * @param unit its unit
     * @return {@link LockResult#ACQUIRED}, {@link LockResult#LEASE_EXPIRED} or {@link LockResult#TIMED_OUT}
     */
    LockResult lock(long timeout, TimeUnit unit);

    /** Ordered release (see the class comment). */
    void unlock();

    /** Weak release: mutual exclusion only (see the class comment). */
    void unlockWeak();

    /** @return whether this handle holds the lock (as far as it knows: a lease may have expired) */
    boolean isHeld();

    /**
     * Releases the lock if this handle holds it (ordered), settles what a timed-out verb left unknown, undoes an
     * acquisition that landed after the handle gave up, and frees the handle's registered memory. Idempotent.
     */
    @Override
    void close();

    /**
     * @return a {@link java.util.concurrent.locks.Lock} view of this handle ({@code newCondition} throws
     *     {@link UnsupportedOperationException})
     */
    java.util.concurrent.locks.Lock asLock();

    /**
     * Acquires the lock ({@link #lock()}) for try-with-resources.
     *
     * @return a guard whose {@code close()} is the ordered release
     */
    Guard guard();
}
