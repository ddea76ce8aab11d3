package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * Renews a {@link LeaseLock} handle's lease while the handle holds the lock, so that a holder with a long critical
 * section need not call {@link LeaseLock#renew()} itself (the watchdog of Redisson's locks does the same). Started by
 * {@link LeaseLock#startWatchdog}; it stops when the handle releases the lock or is closed, when {@link #close()} is
 * called, or when it finds the lock taken over, which it reports once to the listener with the lost fencing token
 * (the handle's {@link LeaseLock#isLeaseValid()} and {@link LeaseLock#renew()} then answer false, and its release
 * throws).
 *
 * <p>It runs one daemon thread and its own {@link Endpoint} on the handle's node (the same clock as the handle's), so
 * the handle's thread keeps its endpoint to itself. Each renewal is the handle's renewal CAS (the beat of the word the
 * holder installed advances) posted from that endpoint, with the watchdog's period as the verb's timeout; a renewal
 * whose completion comes late is settled before the next is posted, and one whose queue pair failed is learnt from
 * the lease word (only this holder installs the renewed word). A renewal that cannot be posted or fails to reach the
 * home is tried again at the next period: the holder's lease then simply runs out by its own clock
 * ({@link LeaseLock#isLeaseValid()}), and fencing covers the rest.
 *
 * <p>It sleeps on the JVM's clock between renewals, so it is for fabrics whose clock is real time, not for the
 * deterministic fabric's virtual clock.
 */
public final class LeaseWatchdog implements AutoCloseable {
    private final LeaseLock lock;
    private final long periodNs;
    private final LongConsumer onTakeover;
    private final Endpoint renewer;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile long renewals;
    private volatile RuntimeException lastFailure;
    /** A renewal whose completion has not come: the word it expected, the word it installs, when it was posted. */
    private UnsettledRequest pending;
    private long pendingExpected;
    private long pendingNext;
    private long pendingBeforeNs;

    LeaseWatchdog(LeaseLock lock, Endpoint holder, long periodNs, LongConsumer onTakeover) {
        this.lock = lock;
        this.periodNs = periodNs;
        this.onTakeover = Objects.requireNonNull(onTakeover, "onTakeover");
        this.renewer = Endpoint.open(holder.node(), new Endpoint.Context().operationTimeoutNs(periodNs));
        this.thread = new Thread(this::run, "remora-lease-watchdog-" + lock.fencingToken());
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (!stopping) {
                LockSupport.parkNanos(this, periodNs);
                if (stopping) {
                    break;
                }
                if (!renewOnce()) {
                    onTakeover.accept(lock.fencingToken());
                    return;
                }
            }
        } finally {
            try {
                settlePending();
            } finally {
                renewer.close();
            }
        }
    }

    /** @return false if the lock was found taken over */
    private boolean renewOnce() {
        try {
            if (pending != null && !settlePending()) {
                return !lock.watchdogLost();
            }
            long expected = lock.watchdogWord();
            long next = LeaseLockDescriptor.renewed(expected);
            // Taken before posting: the extension starts when the CAS lands, after this (R2).
            long beforeNs = renewer.nanoTime();
            long old;
            try {
                // A CAS, not a WRITE: it races a takeover's CAS on the same word (rao, R14); losing, it writes nothing
                // (R16).
                old = renewer.cas(lock.leaseWordAddress(), expected, next);
            } catch (VerbsTimeoutException e) {
                if (e.request() != null) {
                    pending = e.request();
                    pendingExpected = expected;
                    pendingNext = next;
                    pendingBeforeNs = beforeNs;
                }
                throw e;
            } catch (RemoteAccessException e) {
                if (e.isIndeterminate() && renewer.readLong(lock.leaseWordAddress()) == next) {
                    old = expected; // only this holder installs the renewed word: it landed
                } else {
                    throw e;
                }
            }
            return renewed(old == expected, next, beforeNs);
        } catch (RuntimeException e) {
            lastFailure = e; // not renewed this time: tried again at the next period
            return true;
        }
    }

    /**
     * Settles a late renewal within the renewer's budget.
     *
     * @return whether the lease word is known again (settled); false if it is still unsettled or was taken over
     */
    private boolean settlePending() {
        UnsettledRequest u = pending;
        if (u == null) {
            return true;
        }
        if (!u.settle(renewer.waitBudgetNs())) {
            return false;
        }
        pending = null;
        boolean landed = switch (u.outcome()) {
            case SUCCEEDED -> u.value() == pendingExpected;
            case REFUSED -> false;
            default -> readQuietly() == pendingNext; // the queue pair failed: the word tells (only we install next)
        };
        if (landed) {
            return renewed(true, pendingNext, pendingBeforeNs);
        }
        if (u.outcome() == UnsettledRequest.Outcome.SUCCEEDED) {
            return renewed(false, pendingNext, pendingBeforeNs); // it ran and found another word: taken over
        }
        return true; // it did not run: the word this holder knows is unchanged
    }

    private boolean renewed(boolean landed, long next, long beforeNs) {
        if (landed) {
            renewals++;
            lock.watchdogRenewed(next, beforeNs);
            return true;
        }
        lock.watchdogFoundTakeover();
        return false;
    }

    private long readQuietly() {
        try {
            return renewer.readLong(lock.leaseWordAddress());
        } catch (RuntimeException e) {
            lastFailure = e;
            return -1;
        }
    }

    /** @return the renewal period in nanoseconds */
    public long periodNs() {
        return periodNs;
    }

    /** @return how many renewals this watchdog has made */
    public long renewals() {
        return renewals;
    }

    /** @return the last renewal that failed to reach the home (tried again at the next period), or null */
    public RuntimeException lastFailure() {
        return lastFailure;
    }

    /** @return whether the watchdog still renews */
    public boolean isRunning() {
        return thread.isAlive();
    }

    /**
     * Stops renewing and waits for the watchdog's thread (at most one renewal round trip, bounded by the period),
     * settling a renewal still in flight. The handle keeps the lock for the rest of its lease. Idempotent.
     */
    @Override
    public void close() {
        stopping = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return;
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join(TimeUnit.NANOSECONDS.toMillis(periodNs) + 1);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        lock.watchdogStopped(this);
    }
}
