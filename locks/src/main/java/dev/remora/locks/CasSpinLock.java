package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A spin lock on one remote word, acquired by remote CAS with bounded exponential backoff. Not fair.
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |   owner: 0 = free, else the holder's owner id (positive)      |  offset 0, 8-byte aligned
 *  +---------------------------------------------------------------+
 *   region access: REMOTE_ATOMIC (acquire), REMOTE_WRITE (release), REMOTE_READ
 * </pre>
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #tryLock()}, {@link #lock()}</td><td>CAS(0 → owner)</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>a flush READ per other node written in the critical section, then an inline
 *       WRITE of 0</td><td>1 (+1 per other node written)</td></tr>
 *   <tr><td>{@link #unlockWeak()}</td><td>inline WRITE of 0</td><td>1</td></tr>
 * </table>
 *
 * <p><b>Why a WRITE may release a CAS-acquired word (R14).</b> While the lock is held the word is the owner id, so a
 * competitor's CAS(0 → x) reads a non-zero value and fails: a failed CAS has no write phase (R16), so the release
 * WRITE cannot land between the phases of a successful CAS and be lost. The release WRITE pairs with the next holder's
 * CAS: it is ordered after the critical section's WRITEs to the home on the same queue pair (R6), and after the
 * flushed WRITEs to other nodes (R7), so the next holder's READs see them (LK1 forbidden).
 */
public final class CasSpinLock implements RemoteLock {
    /** Offset of the owner word. */
    public static final int OWNER_OFFSET = 0;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 8;

    private final Endpoint endpoint;
    private final RemoteAddress word;
    private final long owner;
    private final Backoff backoff = new Backoff(1, 1 << 10);
    private boolean held;

    private CasSpinLock(Endpoint endpoint, RemoteAddress word, long owner) {
        this.endpoint = endpoint;
        this.word = word;
        this.owner = owner;
    }

    /**
     * Allocates a free lock in {@code home}'s memory.
     *
     * @param home the lock's node
     * @return the lock word's address
     */
    public static RemoteAddress create(Node home) {
        return home.allocate(LENGTH, Access.ALL).remote(OWNER_OFFSET);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param word the lock word
     * @param ownerId a positive id, unique among the lock's users
     * @return the handle
     */
    public static CasSpinLock attach(Endpoint endpoint, RemoteAddress word, long ownerId) {
        return new CasSpinLock(Objects.requireNonNull(endpoint, "endpoint"), LockSupport.aligned(word, "lock word"),
            LockSupport.ownerId(ownerId));
    }

    @Override
    public void lock() {
        backoff.reset();
        while (tryLock() != LockResult.ACQUIRED) {
            backoff.pause();
        }
    }

    @Override
    public LockResult tryLock() {
        if (held) {
            throw new IllegalStateException("this handle already holds the lock");
        }
        long old = endpoint.cas(word, 0, owner);
        if (old == 0) {
            held = true;
            return LockResult.ACQUIRED;
        }
        return LockResult.CONTENDED;
    }

    @Override
    public LockResult lock(long timeout, TimeUnit unit) {
        return LockSupport.retryUntil(endpoint, backoff, this::tryLock, unit.toNanos(timeout));
    }

    @Override
    public void unlock() {
        checkHeld();
        // Ordered release: the critical section's WRITEs to other nodes are placed before the lock word is freed.
        LockSupport.flushCriticalSection(endpoint, word);
        release();
    }

    @Override
    public void unlockWeak() {
        checkHeld();
        release();
    }

    private void release() {
        held = false;
        // The releasing WRITE follows the critical section's WRITEs to the home on the same queue pair (R6).
        endpoint.writeLong(word, 0, false);
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
