package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;

import static dev.remora.locks.ReadWriteLockDescriptor.READER;
import static dev.remora.locks.ReadWriteLockDescriptor.READERS_MASK;
import static dev.remora.locks.ReadWriteLockDescriptor.WAITING;
import static dev.remora.locks.ReadWriteLockDescriptor.WRITER;

/**
 * A readers-writer lock on one remote word: many readers or one writer; writers are not starved by readers (a
 * writer announces itself and new readers wait until it is through). The layout is in
 * {@link ReadWriteLockDescriptor}.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>read lock</td><td>FETCH_ADD(+1 reader)</td><td>1</td></tr>
 *   <tr><td>read unlock</td><td>FETCH_ADD(-1 reader)</td><td>1</td></tr>
 *   <tr><td>write lock</td><td>FETCH_ADD(+1 waiting), CAS(→ W, -1 waiting)</td><td>2</td></tr>
 *   <tr><td>write tryLock, contended</td><td>FETCH_ADD(+1 waiting), FETCH_ADD(-1 waiting)</td><td>2</td></tr>
 *   <tr><td>write unlock</td><td>flush READs, FETCH_ADD(-W)</td><td>1 (+1 per node written)</td></tr>
 * </table>
 *
 * <p>Readers see the writer's critical section: its WRITEs to the home precede the releasing FETCH_ADD on the same
 * queue pair (R7: an atomic executes after earlier WRITEs are placed), and its WRITEs elsewhere are flushed first.
 * Readers must not write. Handles are per thread: {@link #readLock()} and {@link #writeLock()} return views.
 *
 * <p><b>Timeouts, errors, crashes.</b>
 * <ul>
 *   <li>A FETCH_ADD whose completion comes late is settled before the handle does anything else (its next call on
 *       either view, or {@link #close()}): a late reader registration that found no writer makes the next read
 *       attempt return {@link LockResult#ACQUIRED}, and is undone if the next call is anything else (the write view,
 *       {@code close()}); one that found a writer is undone; a writer's late announcement is withdrawn unless the
 *       handle is acquiring the write lock; a timed write acquire that gives up withdraws its announcement. A timeout
 *       of a FETCH_ADD never leaks a count.</li>
 *   <li>The write acquire's CAS whose completion comes late is kept like a FETCH_ADD and settled by the next call: a
 *       write attempt that finds it took the lock holds it; any other call (giving up, the read view, {@code close()})
 *       releases it at once. (Dropping it, as an earlier version did, left the writer bit set with nobody holding the
 *       lock if it landed: the TLA+ twin {@code spec/locks/ReadWriteLock/MCReadWriteLockForgotten}.)</li>
 *   <li><b>Not tolerated</b>: a FETCH_ADD or the acquire's CAS whose queue pair failed (its effect unknown): the handle never repeats or
 *       compensates it, since a second decrement would undo another reader's registration and break exclusion, so
 *       a count may stay one too high and block writers (or readers); a crashed reader, a crashed writer, and a
 *       crashed writer that had announced itself block the other side for ever. Recovery: once the operator knows
 *       the clients involved are gone, {@link #reset(Endpoint, RemoteAddress, long)} sets the word to what the live
 *       clients hold. Use {@link LeaseLock} where clients may crash.</li>
 * </ul>
 */
public final class RemoteReadWriteLock implements AutoCloseable {
    /** What an unsettled FETCH_ADD was for. */
    private enum Purpose { READ_ACQUIRE, READ_UNDO, READ_RELEASE, ANNOUNCE, WITHDRAW, WRITE_ACQUIRE, WRITE_RELEASE }

    private final Endpoint endpoint;
    private final RemoteAddress word;
    private final ReadView read;
    private final WriteView write;
    /** This handle's writer is counted among the waiting writers. */
    private boolean announced;
    /** The write view is inside an acquire (its announcement must stay). */
    private boolean acquiringWrite;
    /** The one FETCH_ADD whose completion has not come (every operation settles it first), and what it was for. */
    private UnsettledRequest pending;
    private Purpose pendingPurpose;
    /** For an unsettled write-acquire CAS: the word it expected (it succeeded if it returns that). */
    private long pendingExpected;
    /** How many of this handle's atomics had an unknown outcome (each may leave a count wrong for ever). */
    private int indeterminate;

    private RemoteReadWriteLock(Endpoint endpoint, RemoteAddress word) {
        this.endpoint = endpoint;
        this.word = word;
        this.read = new ReadView(endpoint, word);
        this.write = new WriteView(endpoint, word);
    }

    /**
     * Allocates a free lock.
     *
     * @param home its node
     * @return its memory: {@link LockHome#address()} is the lock word's address
     */
    public static LockHome create(Node home) {
        return new LockHome(home.allocate(ReadWriteLockDescriptor.LENGTH, Access.ALL), 0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param word the lock word
     * @return the handle
     */
    public static RemoteReadWriteLock attach(Endpoint endpoint, RemoteAddress word) {
        return new RemoteReadWriteLock(java.util.Objects.requireNonNull(endpoint, "endpoint"),
            AbstractRemoteLock.aligned(word, "lock"));
    }

    /** @return the shared (reader) side */
    public RemoteLock readLock() {
        return read;
    }

    /** @return the exclusive (writer) side */
    public RemoteLock writeLock() {
        return write;
    }

    /** @return how many of this handle's atomics had an unknown outcome: each may leave a count wrong for ever */
    public int indeterminateOutcomes() {
        return indeterminate;
    }

    /**
     * Settles what the handle left unsettled, withdraws an announced writer, and closes both views. Idempotent.
     *
     * @throws IllegalStateException if either side is held
     */
    @Override
    public void close() {
        read.close();
        write.close();
    }

    /**
     * Operator recovery after a client crashed or an atomic's outcome was unknown: sets the word to {@code value}
     * (what the live clients hold: 0 when none does) if it is still what was read just before. Only call it once the
     * clients whose counts are in the word are known to be gone.
     *
     * @param endpoint any endpoint
     * @param word the lock word
     * @param value the word's correct value
     * @return the value replaced
     */
    public static long reset(Endpoint endpoint, RemoteAddress word, long value) {
        RemoteAddress w = AbstractRemoteLock.aligned(word, "lock");
        while (true) {
            long current = endpoint.readLong(w);
            if (endpoint.cas(w, current, value) == current) {
                return current;
            }
        }
    }

    private void checkFree() {
        if (read.isHeld() || write.isHeld()) {
            throw new IllegalStateException("this handle already holds the lock");
        }
    }

    /** One FETCH_ADD whose late completion, if it times out, is kept to be settled. */
    private long faa(long delta, Purpose purpose) {
        try {
            return endpoint.faa(word, delta);
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pending = e.request();
                pendingPurpose = purpose;
            }
            throw e;
        } catch (RemoteAccessException e) {
            if (e.isIndeterminate()) {
                indeterminate++;
                // Never repeated: a second decrement would undo another client's count (a second FETCH_ADD(-W) frees
                // the next writer's lock). Assume an announcement did not land and a withdrawal did; at worst a count
                // stays one too high, which blocks the other side (see the class comment) but breaks no exclusion.
                if (purpose == Purpose.ANNOUNCE || purpose == Purpose.WITHDRAW) {
                    announced = false;
                }
            }
            throw e;
        }
    }

    /**
     * Settles the unsettled FETCH_ADD or write-acquire CAS, within the endpoint's wait budget, and repairs what it
     * left. A late reader registration that found no writer is kept only by a read attempt, a late write acquisition
     * only by a write attempt; for any other caller it is undone.
     *
     * @param taker {@link Purpose#READ_ACQUIRE} for a read attempt, {@link Purpose#WRITE_ACQUIRE} for a write attempt,
     *     null for any other caller
     * @return the purpose of a request that succeeded, or null (none, refused, indeterminate, or undone)
     * @throws VerbsTimeoutException if its completion still has not come
     */
    private Purpose settle(Purpose taker) {
        Purpose settled = null;
        if (pending != null) {
            UnsettledRequest u = pending;
            AbstractRemoteLock.settleWithinBudget(endpoint, u, "FETCH_ADD at " + word);
            pending = null;
            if (u.outcome() == UnsettledRequest.Outcome.INDETERMINATE) {
                indeterminate++; // never repeated nor compensated: a count may stay wrong (see the class comment)
                if (pendingPurpose == Purpose.WRITE_ACQUIRE) {
                    announced = false; // assume the CAS took our waiting count: never withdrawn twice
                }
            } else if (u.outcome() == UnsettledRequest.Outcome.SUCCEEDED) {
                settled = pendingPurpose;
                switch (pendingPurpose) {
                    case ANNOUNCE -> announced = true;
                    case WITHDRAW -> announced = false;
                    case READ_ACQUIRE -> {
                        if ((u.value() & ~READERS_MASK) != 0 || taker != Purpose.READ_ACQUIRE) {
                            settled = null;
                            // Registered while a writer was in, or nobody takes it (the write view, close()): step back.
                            faa(-READER, Purpose.READ_UNDO);
                        }
                    }
                    case WRITE_ACQUIRE -> {
                        if (u.value() != pendingExpected) {
                            settled = null; // it failed and wrote nothing (R16): still announced
                        } else {
                            announced = false; // the CAS took our waiting count with it
                            if (taker != Purpose.WRITE_ACQUIRE) {
                                settled = null;
                                faa(-WRITER, Purpose.WRITE_RELEASE); // nobody takes the late acquisition: give it back
                            }
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        if (announced && !acquiringWrite) {
            faa(-WAITING, Purpose.WITHDRAW); // announced by a write acquire that gave up: let readers in again
            announced = false;
        }
        return settled;
    }

    /**
     * The releasing FETCH_ADD, issued at most once per holding: if its outcome is unknown the side no longer counts as
     * held (repeating it could free another holder's lock) and the error is rethrown.
     */
    private void releaseOnce(AbstractRemoteLock side, long delta, Purpose purpose) {
        try {
            faa(delta, purpose);
        } catch (RemoteAccessException e) {
            if (e.isIndeterminate()) {
                side.dropHeld();
            }
            throw e;
        }
    }

    private final class ReadView extends AbstractRemoteLock {
        ReadView(Endpoint endpoint, RemoteAddress word) {
            super(endpoint, word, new Backoff(1, 1 << 8));
        }

        @Override
        protected LockResult attempt() {
            checkFree();
            if (settle(Purpose.READ_ACQUIRE) == Purpose.READ_ACQUIRE) {
                return LockResult.ACQUIRED; // a late registration found no writer
            }
            long before = faa(READER, Purpose.READ_ACQUIRE);
            if ((before & ~READERS_MASK) == 0) {
                return LockResult.ACQUIRED;
            }
            // A writer holds the lock or waits for it: step back so it is not starved.
            faa(-READER, Purpose.READ_UNDO);
            return LockResult.CONTENDED;
        }

        @Override
        protected void acquire() {
            backoff().reset();
            while (!attempt().acquired()) {
                // Wait with READs until the writer is through: repeated +1/-1 pairs would keep failing its CAS.
                while ((endpoint.readLong(word) & ~READERS_MASK) != 0) {
                    backoff().pause();
                }
            }
        }

        @Override
        protected boolean releasePublishes() {
            return false; // readers write nothing, so there is nothing to publish
        }

        @Override
        protected void release() {
            if (pending != null && pendingPurpose == Purpose.READ_RELEASE) {
                settle(null); // an earlier release's completion: done (or indeterminate: never repeated)
                return;
            }
            releaseOnce(read, -READER, Purpose.READ_RELEASE);
        }

        @Override
        protected void closeHandle() {
            settle(null);
        }
    }

    private final class WriteView extends AbstractRemoteLock {
        WriteView(Endpoint endpoint, RemoteAddress word) {
            super(endpoint, word, new Backoff(1, 1 << 8));
        }

        @Override
        protected LockResult attempt() {
            checkFree();
            acquiringWrite = true;
            try {
                if (settle(Purpose.WRITE_ACQUIRE) == Purpose.WRITE_ACQUIRE) {
                    return LockResult.ACQUIRED; // our late CAS took the lock
                }
                long s;
                if (!announced) {
                    s = faa(WAITING, Purpose.ANNOUNCE) + WAITING; // from now on new readers step back
                    announced = true;
                } else {
                    s = endpoint.readLong(word);
                }
                if ((s & (WRITER | READERS_MASK)) == 0) {
                    long witnessed;
                    try {
                        witnessed = endpoint.cas(word, s, s - WAITING + WRITER);
                    } catch (VerbsTimeoutException e) {
                        if (e.request() != null) {
                            // Kept, never dropped: it decides whether we hold the lock, and the next call settles it.
                            pending = e.request();
                            pendingPurpose = Purpose.WRITE_ACQUIRE;
                            pendingExpected = s;
                        }
                        throw e;
                    } catch (RemoteAccessException e) {
                        if (e.isIndeterminate()) {
                            indeterminate++;
                            announced = false; // assume it took our waiting count: at worst a count too high
                        }
                        throw e;
                    }
                    if (witnessed == s) {
                        announced = false; // the CAS took our waiting count with it
                        return LockResult.ACQUIRED;
                    }
                }
                return LockResult.CONTENDED;
            } finally {
                acquiringWrite = false;
            }
        }

        @Override
        protected void acquire() {
            backoff().reset();
            while (!attempt().acquired()) {
                backoff().pause();
            }
        }

        @Override
        protected void gaveUp() {
            settle(null); // withdraws the announcement (acquiringWrite is false now)
        }

        @Override
        protected void release() {
            if (pending != null && pendingPurpose == Purpose.WRITE_RELEASE) {
                settle(null);
                return;
            }
            // R7: this atomic executes after the critical section's WRITEs to the home are placed.
            releaseOnce(write, -WRITER, Purpose.WRITE_RELEASE);
        }

        @Override
        protected void closeHandle() {
            settle(null);
        }
    }
}
