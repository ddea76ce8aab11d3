package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;

import java.util.Arrays;

import static dev.remora.locks.CasSpinLockDescriptor.FREE;

/**
 * A spin lock on one remote word, acquired and released by remote CAS with bounded exponential backoff. Not fair.
 * The layout is in {@link CasSpinLockDescriptor}: the word holds the holder's owner id and a stamp that changes with
 * every attempt.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #tryLock()}, {@link #lock()}</td><td>CAS(0 → stamp)</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>a flush READ per node written in the critical section, then
 *       CAS(stamp → 0)</td><td>1 (+1 per node written)</td></tr>
 *   <tr><td>{@link #unlockWeak()}</td><td>CAS(stamp → 0)</td><td>1</td></tr>
 * </table>
 *
 * <p><b>Ordering.</b> The release CAS pairs with the next holder's acquire CAS: its read phase executes after the
 * critical section's WRITEs to the home on the same queue pair are placed (R7), and after the flushed WRITEs to other
 * nodes (R7), so the next holder's READs see them (LK1 forbidden). Only remote atomics change the word (R14).
 *
 * <p><b>Timeouts, errors, crashes.</b>
 * <ul>
 *   <li>A CAS whose completion does not come in time ({@link #lock(long, java.util.concurrent.TimeUnit)}'s timeout,
 *       or the endpoint's operation timeout) makes the call return {@link LockResult#TIMED_OUT}; the CAS stays
 *       unsettled, and the handle's next call settles it first: if it took the lock, that call returns
 *       {@link LockResult#ACQUIRED} at once. A CAS whose queue pair failed (outcome unknown, and it may still land
 *       later) is remembered by its stamp: if it lands, the handle's next CAS returns that stamp and the handle knows
 *       it holds the lock. {@link #close()} undoes such an acquisition (CAS(stamp → 0)).</li>
 *   <li>A release whose outcome is unknown leaves the handle holding the lock; calling {@link #unlock()} again
 *       settles and retries it. The release CAS(stamp → 0) is idempotent and harmless when late: a stale one finds
 *       another value.</li>
 *   <li>A queue pair replaced while it carried the critical section's WRITEs makes {@link #unlock()} throw
 *       {@link dev.remora.verbs.PublicationLostException}; the handle still holds the lock (see
 *       {@link RemoteLock}).</li>
 *   <li>A crashed holder keeps the lock for ever (the design has no leases). Recovery: an operator who knows the
 *       holder is gone frees it with {@link #reset(Endpoint, RemoteAddress, long)}; {@link #inspect} tells the owner
 *       id. Use {@link LeaseLock} when holders may crash.</li>
 * </ul>
 */
public final class CasSpinLock extends AbstractRemoteLock {
    /** Offset of the lock word. */
    public static final int OWNER_OFFSET = CasSpinLockDescriptor.WORD_OFFSET;
    /** Bytes the lock occupies. */
    public static final int LENGTH = CasSpinLockDescriptor.LENGTH;

    private final RemoteAddress word;
    private final long owner;
    private long stamp;
    /** The lock word while this handle holds the lock. */
    private long mine;
    /** An acquire CAS whose completion has not come, and the value it would set. */
    private UnsettledRequest pendingAcquire;
    private long pendingAcquireValue;
    /** A release CAS whose completion has not come. */
    private UnsettledRequest pendingRelease;
    /** Whether an earlier release's outcome was unknown (a retry may then find the lock already released). */
    private boolean releaseUncertain;
    /** Values of acquire CASes whose outcome is indeterminate: each may land later, making this handle the holder. */
    private long[] strays = new long[0];

    private CasSpinLock(Endpoint endpoint, RemoteAddress word, long owner) {
        super(endpoint, word, new Backoff(1, 1 << 10));
        this.word = word;
        this.owner = owner;
    }

    /**
     * Allocates a free lock in {@code home}'s memory.
     *
     * @param home the lock's node
     * @return the lock's memory: {@link LockHome#address()} is the lock word's address
     */
    public static LockHome create(Node home) {
        return new LockHome(home.allocate(LENGTH, Access.ALL), OWNER_OFFSET);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param word the lock word
     * @param ownerId a positive id below 2^39, unique among the lock's users (a second handle with the same id is
     *     detected when it finds the lock held under its id)
     * @return the handle
     */
    public static CasSpinLock attach(Endpoint endpoint, RemoteAddress word, long ownerId) {
        positiveId(ownerId, "owner id");
        if (ownerId > CasSpinLockDescriptor.MAX_OWNER) {
            throw new IllegalArgumentException("owner ids are below 2^39: " + ownerId);
        }
        return new CasSpinLock(endpoint, aligned(word, "lock word"), ownerId);
    }

    @Override
    protected LockResult attempt() {
        if (pendingAcquire != null) {
            UnsettledRequest u = pendingAcquire;
            settleWithinBudget(endpoint, u, "acquire CAS at " + word);
            pendingAcquire = null;
            if (u.outcome() == UnsettledRequest.Outcome.SUCCEEDED && u.value() == FREE) {
                mine = pendingAcquireValue;
                return LockResult.ACQUIRED; // the late CAS took the lock
            }
            if (u.outcome() == UnsettledRequest.Outcome.INDETERMINATE) {
                addStray(pendingAcquireValue);
            }
        }
        stamp = CasSpinLockDescriptor.nextStamp(stamp);
        long value = CasSpinLockDescriptor.word(owner, stamp);
        long old;
        try {
            old = endpoint.cas(word, FREE, value);
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pendingAcquire = e.request();
                pendingAcquireValue = value;
            }
            throw e;
        } catch (RemoteAccessException e) {
            if (e.isIndeterminate()) {
                addStray(value);
            }
            throw e;
        }
        if (old == FREE) {
            mine = value;
            return LockResult.ACQUIRED;
        }
        if (removeStray(old)) {
            mine = old; // an earlier CAS of this handle landed after its queue pair failed: we hold the lock
            return LockResult.ACQUIRED;
        }
        if (CasSpinLockDescriptor.owner(old) == owner) {
            throw new IllegalStateException("the lock at " + word + " is held under owner id " + owner
                + " by another handle: owner ids must be unique among a lock's users");
        }
        return LockResult.CONTENDED;
    }

    @Override
    protected void release() {
        if (pendingRelease != null) {
            UnsettledRequest u = pendingRelease;
            settleWithinBudget(endpoint, u, "release CAS at " + word);
            pendingRelease = null;
            if (u.outcome() == UnsettledRequest.Outcome.SUCCEEDED) {
                checkReleased(u.value());
                return;
            }
        }
        long old;
        try {
            // R7: the CAS's read phase waits for the critical section's WRITEs to the home on this queue pair.
            old = endpoint.cas(word, mine, FREE);
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pendingRelease = e.request();
                releaseUncertain = true;
            }
            throw e;
        } catch (RemoteAccessException e) {
            releaseUncertain |= e.isIndeterminate();
            throw e;
        }
        checkReleased(old);
    }

    private void checkReleased(long old) {
        if (old == mine || releaseUncertain) {
            // Released now, or by an earlier release whose outcome was unknown (a retry then finds another value).
            releaseUncertain = false;
            return;
        }
        releaseUncertain = false;
        throw new IllegalStateException("the lock word at " + word + " was " + old + " while this handle held it as "
            + mine + ": it was reset or taken by a handle with the same owner id");
    }

    @Override
    protected void closeHandle() {
        if (pendingAcquire != null) {
            UnsettledRequest u = pendingAcquire;
            pendingAcquire = null;
            if (u.settle(endpoint.waitBudgetNs()) && u.outcome() == UnsettledRequest.Outcome.SUCCEEDED) {
                if (u.value() == FREE) {
                    endpoint.cas(word, pendingAcquireValue, FREE); // acquired after this handle gave up: undo
                }
            } else if (u.outcome() != UnsettledRequest.Outcome.REFUSED) {
                addStray(pendingAcquireValue);
            }
        }
        for (long v : strays) {
            endpoint.cas(word, v, FREE); // undoes a late acquisition that has landed; changes nothing otherwise
        }
        strays = new long[0];
    }

    private void addStray(long value) {
        strays = Arrays.copyOf(strays, strays.length + 1);
        strays[strays.length - 1] = value;
    }

    private boolean removeStray(long value) {
        for (int i = 0; i < strays.length; i++) {
            if (strays[i] == value) {
                strays[i] = strays[strays.length - 1];
                strays = Arrays.copyOf(strays, strays.length - 1);
                return true;
            }
        }
        return false;
    }

    /** @return how many earlier acquire CASes of this handle may still land (their queue pair failed) */
    public int unresolvedAcquires() {
        return strays.length + (pendingAcquire == null ? 0 : 1);
    }

    /**
     * Reads the lock word, for operators and tests.
     *
     * @param endpoint any endpoint
     * @param word the lock word
     * @return the holder's owner id, 0 if free
     */
    public static long inspect(Endpoint endpoint, RemoteAddress word) {
        return CasSpinLockDescriptor.owner(endpoint.readLong(aligned(word, "lock word")));
    }

    /**
     * Frees a lock whose holder is known to be gone (crashed, or a handle that was never closed): one
     * CAS(word → 0), so a lock that changed hands meanwhile is left alone. Only an operator who knows the holder will
     * not come back may call it; a live holder would lose mutual exclusion.
     *
     * @param endpoint any endpoint
     * @param word the lock word
     * @param ownerId the owner id of the holder that is gone
     * @return whether the lock was freed (false: it was free, or held by another owner)
     */
    public static boolean reset(Endpoint endpoint, RemoteAddress word, long ownerId) {
        long current = endpoint.readLong(aligned(word, "lock word"));
        if (current == FREE || CasSpinLockDescriptor.owner(current) != ownerId) {
            return false;
        }
        return endpoint.cas(word, current, FREE) == current;
    }
}
