package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * What every lock handle shares: the held state and its misuse checks, the detection of a handle used by two threads
 * at once, the timed acquire loop (whose timeout bounds every verb it issues, through the endpoint's
 * {@link Endpoint#deadline(long) deadline}), the ordered and weak releases, {@link #asLock()} and {@link #guard()}.
 *
 * <p>A subclass supplies one acquire attempt and one release. Either may throw {@link VerbsTimeoutException} when a
 * verb's completion did not come in time; the subclass then keeps what it needs to resolve the unknown outcome (an
 * {@link dev.remora.verbs.UnsettledRequest}) and resolves it at the start of its next attempt, release or
 * {@link #close()}, so that a timeout never orphans remote state it may have changed.
 */
abstract class AbstractRemoteLock implements RemoteLock {
    private static final VarHandle USER;

    static {
        try {
            USER = MethodHandles.lookup().findVarHandle(AbstractRemoteLock.class, "user", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The endpoint of the thread that uses the handle. */
    protected final Endpoint endpoint;
    private final Backoff backoff;
    private boolean held;
    private boolean closed;
    /** Whether the release in progress is the ordered one, for a lock that flushes inside {@link #release()}. */
    private boolean orderedRelease;
    /** Nested calls of the same thread (asLock's methods call the handle's). */
    private int reentered;
    /** The thread inside a method of this handle, or null. */
    @SuppressWarnings("unused") // accessed through USER
    private volatile Thread user;

    AbstractRemoteLock(Endpoint endpoint, RemoteAddress lock, Backoff backoff) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(lock, "lock");
        this.backoff = backoff;
    }

    /**
     * One acquire attempt. It resolves whatever an earlier attempt left unsettled first.
     *
     * @return {@link LockResult#ACQUIRED}, {@link LockResult#LEASE_EXPIRED} or {@link LockResult#CONTENDED}
     * @throws VerbsTimeoutException when a verb's completion did not come within the endpoint's wait budget; the
     *     subclass has recorded how to resolve it
     */
    protected abstract LockResult attempt();

    /**
     * Frees the lock (the flush, for an ordered release, is done). Throws if the release did not certainly happen;
     * the handle then still holds the lock, and the next {@link #unlock()} resolves and retries it.
     */
    protected abstract void release();

    /**
     * Resolves what is unsettled (an acquire or release whose outcome is unknown) within the endpoint's wait budget,
     * undoing an acquisition that may have landed after the handle gave up, and frees the handle's registered memory.
     */
    protected abstract void closeHandle();

    @Override
    public final void lock() {
        enter("lock");
        try {
            checkNotHeld();
            acquire();
            held = true;
        } finally {
            exit();
        }
    }

    /**
     * Acquires the lock, waiting as long as it takes: by default attempts with backoff until one acquires. A lock with
     * a queue (tickets, MCS) overrides it to wait in line.
     */
    protected void acquire() {
        backoff.reset();
        while (!attempt().acquired()) {
            backoff.pause();
        }
    }

    /** @return the backoff between attempts, for subclasses that wait themselves */
    protected final Backoff backoff() {
        return backoff;
    }

    @Override
    public final LockResult tryLock() {
        enter("tryLock");
        try {
            checkNotHeld();
            try {
                LockResult r = attempt();
                acquired(r);
                return r;
            } catch (VerbsTimeoutException e) {
                return LockResult.TIMED_OUT;
            }
        } finally {
            exit();
        }
    }

    @Override
    public final LockResult lock(long timeout, TimeUnit unit) {
        enter("lock(timeout)");
        try {
            checkNotHeld();
            long now = endpoint.nanoTime();
            long nanos = unit.toNanos(timeout);
            long deadline = nanos >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + Math.max(0, nanos);
            long previous = endpoint.deadline(Math.min(deadline, endpoint.deadline()));
            try {
                backoff.reset();
                while (true) {
                    LockResult r;
                    try {
                        r = attempt();
                    } catch (VerbsTimeoutException e) {
                        return LockResult.TIMED_OUT;
                    }
                    if (acquired(r)) {
                        return r;
                    }
                    if (endpoint.nanoTime() >= deadline) {
                        return LockResult.TIMED_OUT;
                    }
                    backoff.pause();
                }
            } finally {
                endpoint.deadline(previous);
                if (!held) {
                    try {
                        gaveUp();
                    } catch (VerbsTimeoutException e) {
                        // still unsettled: the handle's next call settles it
                    }
                }
            }
        } finally {
            exit();
        }
    }

    /** @return whether the release in progress is {@link #unlock()} (ordered) rather than {@link #unlockWeak()} */
    protected final boolean isOrderedRelease() {
        return orderedRelease;
    }

    /**
     * Whether the ordered release must make the critical section's WRITEs visible first: true, except for a side
     * that never writes (a reader), whose {@link #unlock()} is then its {@link #unlockWeak()}, and for a lock that
     * flushes inside {@link #release()} because what to flush depends on the release (MCS).
     *
     * @return whether {@link #unlock()} flushes
     */
    protected boolean releasePublishes() {
        return true;
    }

    /**
     * Called when a timed acquire returns without the lock, after the endpoint's deadline is restored, for a lock that
     * must withdraw what it announced (a waiting writer). Does nothing by default.
     */
    protected void gaveUp() {
    }

    private boolean acquired(LockResult r) {
        if (r.acquired()) {
            held = true;
            return true;
        }
        return false;
    }

    @Override
    public final void unlock() {
        enter("unlock");
        try {
            checkHeld();
            // Ordered release: the critical section's WRITEs are placed before the lock is freed: a READ on each queue
            // pair that carried one (R7), the home's included, so that no unplaced WRITE is ahead of the release and a
            // release posted again on a new queue pair after an error cannot overtake one (R10). A replaced queue
            // pair that carried unplaced WRITEs makes the flush throw PublicationLostException, and the handle still
            // holds the lock.
            if (releasePublishes()) {
                endpoint.flush(-1);
            }
            orderedRelease = true;
            release();
            held = false;
        } finally {
            exit();
        }
    }

    @Override
    public final void unlockWeak() {
        enter("unlockWeak");
        try {
            checkHeld();
            orderedRelease = false;
            release();
            held = false;
        } finally {
            exit();
        }
    }

    @Override
    public final boolean isHeld() {
        return held;
    }

    /**
     * Releases the lock if this handle holds it (the ordered release, {@link #unlock()}), resolves what a timed-out
     * verb left unknown, undoes an acquisition that landed after this handle gave up, and frees the handle's
     * registered memory. Idempotent; every other method then throws {@link IllegalStateException}. If the release
     * fails and the handle still holds the lock, the handle stays open (the exception says why).
     */
    @Override
    public final void close() {
        enter("close");
        try {
            if (closed) {
                return;
            }
            try {
                if (held) {
                    unlock(); // a try-with-resources block never leaves the lock held
                }
            } finally {
                if (!held) {
                    closeHandle();
                    closed = true;
                }
            }
        } finally {
            exit();
        }
    }

    /**
     * A {@link Lock} view for code written against {@code java.util.concurrent.locks}: {@code lock()},
     * {@code lockInterruptibly()}, {@code tryLock()} and {@code tryLock(time, unit)} acquire (a lease lock taken over
     * counts as acquired), {@code unlock()} is the ordered release. {@code newCondition()} throws
     * {@link UnsupportedOperationException}. Like the handle, the view belongs to one thread.
     *
     * @return the view
     */
    @Override
    public final Lock asLock() {
        return new Lock() {
            @Override
            public void lock() {
                AbstractRemoteLock.this.lock();
            }

            @Override
            public void lockInterruptibly() throws InterruptedException {
                enter("lockInterruptibly");
                try {
                    checkNotHeld();
                    backoff.reset();
                    while (true) {
                        if (Thread.interrupted()) {
                            throw new InterruptedException("interrupted while acquiring a remote lock");
                        }
                        try {
                            if (acquired(attempt())) {
                                return;
                            }
                        } catch (VerbsTimeoutException e) {
                            // unsettled: the next attempt resolves it
                        }
                        backoff.pause();
                    }
                } finally {
                    exit();
                }
            }

            @Override
            public boolean tryLock() {
                return AbstractRemoteLock.this.tryLock().acquired();
            }

            @Override
            public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted before acquiring a remote lock");
                }
                return AbstractRemoteLock.this.lock(time, unit).acquired();
            }

            @Override
            public void unlock() {
                AbstractRemoteLock.this.unlock();
            }

            @Override
            public Condition newCondition() {
                throw new UnsupportedOperationException("remote locks have no conditions");
            }
        };
    }

    /**
     * Acquires the lock ({@link #lock()}) and returns a guard whose {@code close()} is the ordered release, for
     * try-with-resources: {@code try (RemoteLock.Guard g = handle.guard()) { ... }}.
     *
     * @return the guard
     */
    @Override
    public final RemoteLock.Guard guard() {
        lock();
        return this::unlock;
    }

    /** @throws IllegalStateException unless this handle holds the lock */
    protected final void checkHeld() {
        if (closed) {
            throw new IllegalStateException("the handle is closed");
        }
        if (!held) {
            throw new IllegalStateException(notHeldMessage());
        }
    }

    /** @return the message for an operation that needs the lock held, when it is not */
    protected String notHeldMessage() {
        return "unlock by a handle that does not hold the lock";
    }

    /**
     * Marks the lock as no longer held by this handle, when it learns it lost it (a lease taken over) or released it
     * by a release whose outcome is unknown and must not be repeated (the read-write lock).
     */
    protected final void dropHeld() {
        held = false;
    }

    private void checkNotHeld() {
        if (closed) {
            throw new IllegalStateException("the handle is closed");
        }
        if (held) {
            throw new IllegalStateException("this handle already holds the lock");
        }
    }

    private void enter(String method) {
        Thread me = Thread.currentThread();
        Thread other = (Thread) USER.compareAndExchange(this, null, me);
        if (other != null && other != me) {
            throw new IllegalStateException("lock handle used by two threads at once: \"" + me.getName() + "\" called "
                + method + " while \"" + other.getName() + "\" is inside a call; give each thread its own handle");
        }
        if (other == me) {
            reentered++;
        }
    }

    private void exit() {
        if (reentered > 0) {
            reentered--;
            return;
        }
        USER.setRelease(this, null);
    }

    /**
     * Waits, within the endpoint's wait budget, for the completion of a request an earlier call left unsettled.
     *
     * @param endpoint the endpoint that issued it
     * @param request the request
     * @param what what it was, for the message
     * @return its outcome (never PENDING)
     * @throws VerbsTimeoutException if the completion still has not come; the request stays unsettled
     */
    static dev.remora.verbs.UnsettledRequest.Outcome settleWithinBudget(Endpoint endpoint,
                                                                        dev.remora.verbs.UnsettledRequest request,
                                                                        String what) {
        if (!request.settle(endpoint.waitBudgetNs())) {
            throw new VerbsTimeoutException("an earlier " + what + " is still unsettled", request);
        }
        return request.outcome();
    }

    /** Checks that an id is positive, as lock words reserve 0 for "free". */
    static long positiveId(long id, String what) {
        if (id <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + id);
        }
        return id;
    }

    /** Checks that a lock word is 8-byte aligned, as remote atomics need. */
    static RemoteAddress aligned(RemoteAddress word, String what) {
        Objects.requireNonNull(word, what);
        if (!word.isWordAligned()) {
            throw new IllegalArgumentException(what + " must be 8-byte aligned: " + word);
        }
        return word;
    }
}
