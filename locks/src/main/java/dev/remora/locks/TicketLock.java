package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A FIFO ticket lock: FETCH_ADD takes a ticket, READs of now-serving wait for it. Starvation-free: tickets are served
 * in the order the FETCH_ADDs took effect (rao).
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |   next: the next ticket to hand out (FETCH_ADD only)          |  offset 0
 *  +---------------------------------------------------------------+
 *  |   serving: the ticket that holds the lock (READ; WRITE by     |  offset 8
 *  |   the holder only)                                            |
 *  +---------------------------------------------------------------+
 *   region access: REMOTE_ATOMIC, REMOTE_READ, REMOTE_WRITE
 * </pre>
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #lock()}</td><td>FETCH_ADD(next) and READ(serving) in one doorbell</td><td>1</td></tr>
 *   <tr><td>{@link #tryLock()}</td><td>16-byte READ, then CAS(next: serving → serving + 1)</td><td>2</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>flush READs, then inline WRITE serving = ticket + 1</td><td>1 (+1 per other
 *       node written)</td></tr>
 * </table>
 *
 * <p>The READ posted right after the FETCH_ADD on the same queue pair does not pass the atomic (R9), so a free lock is
 * acquired in one round trip. Only the holder writes {@code serving}, and nobody applies atomics to it, so the plain
 * WRITE of the release cannot race a remote atomic (R14). {@code next} is only ever changed by remote atomics.
 * {@link #lock(long, TimeUnit)} does not take a ticket (an abandoned ticket would stall the queue): it retries
 * {@link #tryLock()} until the deadline, so timed acquirers are not FIFO.
 */
public final class TicketLock implements RemoteLock {
    /** Offset of the next-ticket word. */
    public static final int NEXT_OFFSET = 0;
    /** Offset of the now-serving word. */
    public static final int SERVING_OFFSET = 8;
    /** Bytes the lock occupies. */
    public static final int LENGTH = 16;

    private final Endpoint endpoint;
    private final RemoteAddress next;
    private final RemoteAddress serving;
    private final WaitTag tag;
    private final MemoryRegion scratch;
    private final WorkRequest[] takeTicket = {new WorkRequest(), new WorkRequest()};
    private final Backoff backoff = new Backoff(1, 1 << 8);
    private boolean held;
    private long ticket;

    private TicketLock(Endpoint endpoint, RemoteAddress base) {
        this.endpoint = endpoint;
        this.next = base.plus(NEXT_OFFSET);
        this.serving = base.plus(SERVING_OFFSET);
        this.tag = endpoint.newTag("ticket-lock");
        this.scratch = endpoint.node().allocate(LENGTH, Access.LOCAL_WRITE);
    }

    /**
     * Allocates a free lock in {@code home}'s memory.
     *
     * @param home the lock's node
     * @return the lock's base address
     */
    public static RemoteAddress create(Node home) {
        return home.allocate(LENGTH, Access.ALL).remote(0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param base the lock's base address
     * @return the handle
     */
    public static TicketLock attach(Endpoint endpoint, RemoteAddress base) {
        return new TicketLock(Objects.requireNonNull(endpoint, "endpoint"), LockSupport.aligned(base, "lock"));
    }

    @Override
    public void lock() {
        checkNotHeld();
        QueuePair qp = endpoint.queuePair(next.nodeId());
        takeTicket[0].faa(scratch, 0, next, 1).flags(0);
        // R9: the READ of serving is not performed before the FETCH_ADD's atomic read phase on this queue pair.
        takeTicket[1].read(scratch, 8, 8, serving).flags(WorkRequest.SIGNALED);
        while (tag.post(qp, takeTicket, 2) == QueuePair.QUEUE_FULL) {
            await();
        }
        await();
        ticket = scratch.getLong(0);
        long now = scratch.getLong(8);
        backoff.reset();
        while (now != ticket) {
            backoff.pause();
            now = endpoint.readLong(serving);
        }
        held = true;
    }

    private void await() {
        WaitStatus s = tag.await(endpoint.operationTimeoutNs());
        if (s == WaitStatus.TIMED_OUT) {
            throw new VerbsTimeoutException("ticket FETCH_ADD did not complete");
        }
        if (s == WaitStatus.FAILED) {
            throw new RemoteAccessException(tag.lastError(), "ticket FETCH_ADD at " + next);
        }
    }

    @Override
    public LockResult tryLock() {
        checkNotHeld();
        endpoint.read(next, scratch, 0, LENGTH);
        long n = scratch.getLong(0);
        long s = scratch.getLong(8);
        if (n != s) {
            return LockResult.CONTENDED;
        }
        if (endpoint.cas(next, n, n + 1) != n) {
            return LockResult.CONTENDED;
        }
        ticket = n;
        held = true;
        return LockResult.ACQUIRED;
    }

    @Override
    public LockResult lock(long timeout, TimeUnit unit) {
        return LockSupport.retryUntil(endpoint, backoff, this::tryLock, unit.toNanos(timeout));
    }

    @Override
    public void unlock() {
        checkHeld();
        LockSupport.flushCriticalSection(endpoint, serving);
        release();
    }

    @Override
    public void unlockWeak() {
        checkHeld();
        release();
    }

    private void release() {
        held = false;
        // Pairs with the next ticket holder's READ of serving; ordered after the critical section's WRITEs to the
        // home by R6 (same queue pair).
        endpoint.writeLong(serving, ticket + 1, false);
    }

    private void checkHeld() {
        if (!held) {
            throw new IllegalStateException("unlock by a handle that does not hold the lock");
        }
    }

    private void checkNotHeld() {
        if (held) {
            throw new IllegalStateException("this handle already holds the lock");
        }
    }

    @Override
    public boolean isHeld() {
        return held;
    }

    /** @return the ticket of the current (or last) acquisition */
    public long ticket() {
        return ticket;
    }
}
