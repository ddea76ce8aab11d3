package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A lock whose holder keeps it only while it renews a lease; a crashed or stalled holder's lock is taken over once
 * its lease has expired. Every acquisition returns a strictly increasing fencing token for {@link FencedRegister}, so
 * a holder that lost its lease cannot overwrite its successor's data.
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |  generation g: even = free, odd = held; the holder's fencing   |  offset 0, remote CAS only
 *  |  token is its odd g                                           |
 *  +---------------------------------------------------------------+
 *  |  heartbeat: incremented by the holder's renew()               |  offset 8, WRITE by the holder only
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p><b>No shared clock.</b> A waiter takes over when it has seen the same (generation, heartbeat) for at least the
 * lease duration <em>by its own clock</em>: no node compares its time with another's. A holder considers its lease
 * valid for the lease duration minus a safety margin after the last renewal it <em>posted</em>, so it stops before
 * any waiter can take over (with clocks that run at the same rate). Fencing covers the rest.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #tryLock()}</td><td>16-byte READ, CAS(g → g + 1)</td><td>2</td></tr>
 *   <tr><td>{@link #renew()}</td><td>inline WRITE of the heartbeat</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>flush READs, CAS(g → g + 1)</td><td>1 (+1 per other node written)</td></tr>
 * </table>
 * The generation word is changed only by remote CAS and the heartbeat only by the holder's WRITE, so no update can be
 * lost between an atomic's phases (R14).
 */
public final class LeaseLock implements RemoteLock {
    /** Offset of the generation word. */
    public static final int GENERATION_OFFSET = 0;
    /** Offset of the heartbeat word. */
    public static final int HEARTBEAT_OFFSET = 8;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 16;

    private final Endpoint endpoint;
    private final RemoteAddress generation;
    private final RemoteAddress heartbeat;
    private final long leaseNs;
    private final long marginNs;
    private final MemoryRegion scratch;
    private final Backoff backoff = new Backoff(1, 1 << 8);
    private boolean held;
    private long token;
    private long beats;
    private long renewedAtNs;
    private long seenGeneration = -1;
    private long seenHeartbeat = -1;
    private long seenSinceNs;

    private LeaseLock(Endpoint endpoint, RemoteAddress base, long leaseNs, long marginNs) {
        this.endpoint = endpoint;
        this.generation = base.plus(GENERATION_OFFSET);
        this.heartbeat = base.plus(HEARTBEAT_OFFSET);
        this.leaseNs = leaseNs;
        this.marginNs = marginNs;
        this.scratch = endpoint.node().allocate(LENGTH, Access.LOCAL_WRITE);
    }

    /**
     * Allocates a free lease lock.
     *
     * @param home its node
     * @return its base address
     */
    public static RemoteAddress create(Node home) {
        return home.allocate(LENGTH, Access.ALL).remote(0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param base the lock
     * @param leaseNs how long a holder keeps the lock without renewing, in the fabric's clock
     * @param marginNs how much earlier than that the holder itself stops trusting its lease
     * @return the handle
     */
    public static LeaseLock attach(Endpoint endpoint, RemoteAddress base, long leaseNs, long marginNs) {
        if (leaseNs <= 0 || marginNs < 0 || marginNs >= leaseNs) {
            throw new IllegalArgumentException("need 0 <= marginNs < leaseNs: " + marginNs + ", " + leaseNs);
        }
        return new LeaseLock(Objects.requireNonNull(endpoint, "endpoint"), LockSupport.aligned(base, "lock"),
            leaseNs, marginNs);
    }

    @Override
    public void lock() {
        backoff.reset();
        while (!tryLock().acquired()) {
            backoff.pause();
        }
    }

    @Override
    public LockResult tryLock() {
        if (held) {
            throw new IllegalStateException("this handle already holds the lock");
        }
        endpoint.read(generation, scratch, 0, LENGTH);
        long g = scratch.getLong(0);
        long beat = scratch.getLong(8);
        long now = endpoint.nanoTime();
        if ((g & 1) == 0) {
            return acquire(g, g + 1, LockResult.ACQUIRED, now);
        }
        if (g != seenGeneration || beat != seenHeartbeat) {
            seenGeneration = g; // the holder is alive (or changed): restart our own lease timer
            seenHeartbeat = beat;
            seenSinceNs = now;
            return LockResult.CONTENDED;
        }
        if (now - seenSinceNs < leaseNs) {
            return LockResult.CONTENDED;
        }
        // The holder has not renewed for a whole lease by our clock: take over, keeping the word odd (held).
        return acquire(g, g + 2, LockResult.LEASE_EXPIRED, now);
    }

    private LockResult acquire(long expected, long next, LockResult result, long now) {
        if (endpoint.cas(generation, expected, next) != expected) {
            return LockResult.CONTENDED;
        }
        held = true;
        token = next;
        renewedAtNs = now;
        beats = 0;
        seenGeneration = -1;
        return result;
    }

    @Override
    public LockResult lock(long timeout, TimeUnit unit) {
        return LockSupport.retryUntil(endpoint, backoff, this::tryLock, unit.toNanos(timeout));
    }

    /**
     * Extends the lease: one WRITE of the heartbeat. Call it more often than every {@code leaseNs - marginNs}.
     *
     * @return false if the lease had already expired by this holder's reckoning (it must stop: it may have been taken
     *     over; its token no longer protects it)
     */
    public boolean renew() {
        checkHeld();
        long now = endpoint.nanoTime();
        if (!isLeaseValid()) {
            return false;
        }
        renewedAtNs = now; // measured from before the WRITE is posted: conservative
        endpoint.writeLong(heartbeat, token << 20 | ++beats, false);
        return true;
    }

    /** @return whether this handle holds the lock and its lease is still valid by its own clock (minus the margin) */
    public boolean isLeaseValid() {
        return held && endpoint.nanoTime() - renewedAtNs < leaseNs - marginNs;
    }

    /** @return the fencing token of the current (or last) acquisition: strictly increasing across acquisitions */
    public long fencingToken() {
        return token;
    }

    @Override
    public void unlock() {
        checkHeld();
        LockSupport.flushCriticalSection(endpoint, generation);
        release();
    }

    @Override
    public void unlockWeak() {
        checkHeld();
        release();
    }

    private void release() {
        held = false;
        if (endpoint.cas(generation, token, token + 1) != token) {
            throw new IllegalStateException("lease expired: the lock was taken over (token " + token + ")");
        }
    }

    private void checkHeld() {
        if (!held) {
            throw new IllegalStateException("unlock by a handle that does not hold the lock");
        }
    }

    @Override
    public boolean isHeld() {
        return held;
    }
}
