package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A readers-writer lock on one remote word: many readers or one writer; writers are not starved by readers (a
 * writer announces itself and new readers wait until it is through).
 *
 * <pre>
 *   63   62                         33  32  31                              0
 *  +----+-----------------------------+---+--------------------------------+
 *  | 0  |  waiting writers             | W |  active readers                |  offset 0
 *  +----+-----------------------------+---+--------------------------------+
 *   W = a writer holds the lock; changed only by remote FETCH_ADD and CAS (R14)
 * </pre>
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>read lock</td><td>FETCH_ADD(+1 reader)</td><td>1</td></tr>
 *   <tr><td>read unlock</td><td>FETCH_ADD(-1 reader)</td><td>1</td></tr>
 *   <tr><td>write lock</td><td>FETCH_ADD(+1 waiting), CAS(→ W, -1 waiting)</td><td>2</td></tr>
 *   <tr><td>write tryLock, contended</td><td>FETCH_ADD(+1 waiting), FETCH_ADD(-1 waiting)</td><td>2</td></tr>
 *   <tr><td>write unlock</td><td>flush READs, FETCH_ADD(-W)</td><td>1 (+1 per other node written)</td></tr>
 * </table>
 *
 * <p>Readers see the writer's critical section: its WRITEs to the home precede the releasing FETCH_ADD on the same
 * queue pair (R7: an atomic executes after earlier WRITEs are placed), and its WRITEs elsewhere are flushed first.
 * Readers must not write. Handles are per thread: {@link #readLock()} and {@link #writeLock()} return views.
 */
public final class RemoteReadWriteLock {
    /** One reader. */
    static final long READER = 1;
    /** The writer-active bit. */
    static final long WRITER = 1L << 32;
    /** One waiting writer. */
    static final long WAITING = 1L << 33;
    private static final long READERS_MASK = WRITER - 1;

    private final Endpoint endpoint;
    private final RemoteAddress word;
    private final Backoff backoff = new Backoff(1, 1 << 8);
    private final RemoteLock read = new ReadView();
    private final RemoteLock write = new WriteView();
    private boolean reading;
    private boolean writing;

    private RemoteReadWriteLock(Endpoint endpoint, RemoteAddress word) {
        this.endpoint = endpoint;
        this.word = word;
    }

    /**
     * Allocates a free lock.
     *
     * @param home its node
     * @return its word
     */
    public static RemoteAddress create(Node home) {
        return home.allocate(8, Access.ALL).remote(0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param word the lock word
     * @return the handle
     */
    public static RemoteReadWriteLock attach(Endpoint endpoint, RemoteAddress word) {
        return new RemoteReadWriteLock(Objects.requireNonNull(endpoint, "endpoint"), LockSupport.aligned(word, "lock"));
    }

    /** @return the shared (reader) side */
    public RemoteLock readLock() {
        return read;
    }

    /** @return the exclusive (writer) side */
    public RemoteLock writeLock() {
        return write;
    }

    private void checkFree() {
        if (reading || writing) {
            throw new IllegalStateException("this handle already holds the lock");
        }
    }

    private LockResult retryUntil(java.util.function.Supplier<LockResult> attempt, long timeoutNs) {
        return LockSupport.retryUntil(endpoint, backoff, attempt, timeoutNs);
    }

    private final class ReadView implements RemoteLock {
        @Override
        public void lock() {
            retryUntil(this::attempt, Long.MAX_VALUE);
        }

        /**
         * One attempt that, when a writer is active or waiting, waits with READs until it is through before the next
         * FETCH_ADD: repeated +1/-1 pairs would keep failing a waiting writer's CAS.
         */
        private LockResult attempt() {
            LockResult r = tryLock();
            if (r == LockResult.CONTENDED) {
                backoff.reset();
                while ((endpoint.readLong(word) & ~READERS_MASK) != 0) {
                    backoff.pause();
                }
            }
            return r;
        }

        @Override
        public LockResult tryLock() {
            checkFree();
            long before = endpoint.faa(word, READER);
            if ((before & ~READERS_MASK) != 0) {
                // A writer holds the lock or waits for it: step back so it is not starved.
                endpoint.faa(word, -READER);
                return LockResult.CONTENDED;
            }
            reading = true;
            return LockResult.ACQUIRED;
        }

        @Override
        public LockResult lock(long timeout, TimeUnit unit) {
            return retryUntil(this::tryLock, unit.toNanos(timeout));
        }

        @Override
        public void unlock() {
            unlockWeak(); // readers write nothing, so there is nothing to publish
        }

        @Override
        public void unlockWeak() {
            if (!reading) {
                throw new IllegalStateException("read-unlock by a handle that does not hold a read lock");
            }
            reading = false;
            endpoint.faa(word, -READER);
        }

        @Override
        public boolean isHeld() {
            return reading;
        }
    }

    private final class WriteView implements RemoteLock {
        private boolean announced;

        @Override
        public void lock() {
            retryUntil(() -> attempt(true), Long.MAX_VALUE);
        }

        @Override
        public LockResult tryLock() {
            return attempt(false);
        }

        /** One attempt; {@code stayAnnounced} keeps new readers out between attempts (lock), else it withdraws. */
        private LockResult attempt(boolean stayAnnounced) {
            checkFree();
            long s;
            if (!announced) {
                s = endpoint.faa(word, WAITING) + WAITING; // from now on new readers step back
                announced = true;
            } else {
                s = endpoint.readLong(word);
            }
            if ((s & (WRITER | READERS_MASK)) == 0 && endpoint.cas(word, s, s - WAITING + WRITER) == s) {
                announced = false;
                writing = true;
                return LockResult.ACQUIRED;
            }
            if (!stayAnnounced) {
                endpoint.faa(word, -WAITING);
                announced = false;
            }
            return LockResult.CONTENDED;
        }

        @Override
        public LockResult lock(long timeout, TimeUnit unit) {
            LockResult r = retryUntil(() -> attempt(true), unit.toNanos(timeout));
            if (r == LockResult.TIMED_OUT && announced) {
                endpoint.faa(word, -WAITING); // give up: let readers in again
                announced = false;
            }
            return r;
        }

        @Override
        public void unlock() {
            check();
            LockSupport.flushCriticalSection(endpoint, word);
            release();
        }

        @Override
        public void unlockWeak() {
            check();
            release();
        }

        private void check() {
            if (!writing) {
                throw new IllegalStateException("write-unlock by a handle that does not hold the write lock");
            }
        }

        private void release() {
            writing = false;
            // R7: this atomic executes after the critical section's WRITEs to the home are placed.
            endpoint.faa(word, -WRITER);
        }

        @Override
        public boolean isHeld() {
            return writing;
        }
    }
}
