package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WorkRequest;

import java.util.concurrent.TimeUnit;

/**
 * A FIFO ticket lock: FETCH_ADD takes a ticket, READs of now-serving wait for it. Starvation-free: tickets are served
 * in the order the FETCH_ADDs took effect (rao). The layout is in {@link TicketLockDescriptor}.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #lock()}</td><td>FETCH_ADD(next) and READ(serving) in one doorbell</td><td>1</td></tr>
 *   <tr><td>{@link #tryLock()}, {@link #lock(long, TimeUnit)}</td><td>16-byte READ, then CAS(next: serving →
 *       serving + 1)</td><td>2</td></tr>
 *   <tr><td>{@link #unlock()}</td><td>flush READs, then inline WRITE serving = ticket + 1</td><td>1 (+1 per other
 *       node written)</td></tr>
 * </table>
 *
 * <p>The READ posted right after the FETCH_ADD on the same queue pair does not pass the atomic (R9), so a free lock is
 * acquired in one round trip. Only the holder writes {@code serving}, and nobody applies atomics to it, so the plain
 * WRITE of the release cannot race a remote atomic (R14). {@code next} is only ever changed by remote atomics.
 * {@link #lock(long, TimeUnit)} and {@link #tryLock()} do not take a ticket (a ticket cannot leave the line, and an
 * abandoned one would stall it): they take the lock only when it is free, so timed acquirers are not FIFO.
 *
 * <p><b>Timeouts, errors, crashes.</b>
 * <ul>
 *   <li>A ticket FETCH_ADD or an acquire CAS whose completion comes late is settled by the handle's next call: a
 *       drawn ticket is kept (the handle stays in line, and its next {@code lock}, {@code tryLock} or
 *       {@code lock(timeout)} waits for that ticket's turn); a CAS that took the lock makes the next call return
 *       {@link LockResult#ACQUIRED}. {@link #close()} settles what is left: it waits for a kept ticket's turn and
 *       passes it on, and releases a lock taken by a late CAS.</li>
 *   <li><b>Not tolerated</b>: a FETCH_ADD or CAS whose queue pair failed (its effect is unknown, and it may land
 *       later), a crashed holder, and a crashed or vanished client that drew a ticket. Each leaves a ticket that
 *       nobody serves, and the lock stalls: every later ticket waits for ever. Recovery: once the operator knows the
 *       stalled ticket's owner is gone, {@link #reset(Endpoint, RemoteAddress)} moves {@code serving} to {@code next};
 *       live waiters whose ticket was skipped notice it and draw a new one. Use {@link LeaseLock} where clients may
 *       crash.</li>
 *   <li>A queue pair replaced while it carried the critical section's WRITEs makes {@link #unlock()} throw
 *       {@link dev.remora.verbs.PublicationLostException}; the handle still holds the lock.</li>
 * </ul>
 */
public final class TicketLock extends AbstractRemoteLock {
    /** Offset of the next-ticket word. */
    public static final int NEXT_OFFSET = TicketLockDescriptor.NEXT_OFFSET;
    /** Offset of the now-serving word. */
    public static final int SERVING_OFFSET = TicketLockDescriptor.SERVING_OFFSET;
    /** Bytes the lock occupies. */
    public static final int LENGTH = TicketLockDescriptor.LENGTH;

    private final RemoteAddress next;
    private final RemoteAddress serving;
    private final WaitTag tag;
    private final MemoryRegion scratch;
    private final WorkRequest[] takeTicket = {new WorkRequest(), new WorkRequest()};
    private long ticket;
    /** The FETCH_ADD and READ of a ticket were posted and their completions not yet collected. */
    private boolean takePending;
    /** This handle has a ticket that has not been served yet. */
    private boolean inLine;
    /** An acquire CAS(next: t → t + 1) whose completion has not come, and its t. */
    private UnsettledRequest pendingCas;
    private long pendingCasTicket;
    /** How many of this handle's FETCH_ADDs and CASes had an unknown outcome (each may stall the lock). */
    private int indeterminate;

    private TicketLock(Endpoint endpoint, RemoteAddress base) {
        super(endpoint, base, new Backoff(1, 1 << 8));
        this.next = base.plus(NEXT_OFFSET);
        this.serving = base.plus(SERVING_OFFSET);
        this.tag = endpoint.newTag("ticket-lock");
        this.scratch = endpoint.node().allocate(2 * LENGTH, Access.LOCAL_WRITE);
    }

    /**
     * Allocates a free lock in {@code home}'s memory.
     *
     * @param home the lock's node
     * @return the lock's memory: {@link LockHome#address()} is its base address
     */
    public static LockHome create(Node home) {
        return new LockHome(home.allocate(LENGTH, Access.ALL), 0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param base the lock's base address
     * @return the handle
     */
    public static TicketLock attach(Endpoint endpoint, RemoteAddress base) {
        return new TicketLock(endpoint, aligned(base, "lock"));
    }

    @Override
    protected void acquire() {
        if (pendingCas != null && settleCas()) {
            return; // a CAS of an earlier timed attempt took the lock
        }
        while (true) {
            if (!inLine) {
                takeTicket();
            }
            long now = scratch.getLong(8);
            backoff().reset();
            while (now != ticket && !TicketLockDescriptor.skipped(now, ticket)) {
                backoff().pause();
                now = endpoint.readLong(serving);
            }
            inLine = false;
            if (now == ticket) {
                return;
            }
            // An operator reset skipped the ticket: draw a new one.
        }
    }

    /** Draws a ticket (or collects the one drawn by a call that timed out), and the serving word read with it. */
    private void takeTicket() {
        if (!takePending) {
            QueuePair qp = endpoint.queuePair(next.nodeId());
            takeTicket[0].faa(scratch, 0, next, 1).flags(0);
            // R9: the READ of serving is not performed before the FETCH_ADD's atomic read phase on this queue pair.
            takeTicket[1].read(scratch, 8, 8, serving).flags(WorkRequest.SIGNALED);
            long start = endpoint.nanoTime();
            while (tag.post(qp, takeTicket, 2) == QueuePair.QUEUE_FULL) {
                if (endpoint.nanoTime() - start >= endpoint.waitBudgetNs()) {
                    throw new VerbsTimeoutException("ticket FETCH_ADD at " + next + " not posted: the send queue "
                        + "stayed full");
                }
                tag.await(endpoint.waitBudgetNs());
            }
            takePending = true;
        }
        WaitStatus s = tag.await(endpoint.waitBudgetNs());
        if (s == WaitStatus.TIMED_OUT) {
            throw new VerbsTimeoutException("ticket FETCH_ADD at " + next + " did not complete in time; the handle "
                + "collects its ticket on its next call");
        }
        takePending = false;
        if (s == WaitStatus.FAILED) {
            if (RemoteAccessException.indeterminate(tag.lastError())) {
                indeterminate++;
            }
            throw new RemoteAccessException(tag.lastError(), "ticket FETCH_ADD at " + next);
        }
        ticket = scratch.getLong(0);
        inLine = true;
    }

    @Override
    protected LockResult attempt() {
        if (takePending || inLine) {
            // A ticket drawn by an earlier lock() that did not finish: wait for its turn, never take another.
            if (takePending) {
                takeTicket();
            }
            long now = endpoint.readLong(serving);
            if (now == ticket) {
                inLine = false;
                return LockResult.ACQUIRED;
            }
            if (!TicketLockDescriptor.skipped(now, ticket)) {
                return LockResult.CONTENDED;
            }
            inLine = false;
        }
        if (pendingCas != null && settleCas()) {
            return LockResult.ACQUIRED; // the late CAS took the lock
        }
        // Into the other half of the scratch: a READ that timed out may still land there, and must not overwrite a
        // ticket drawn since (the ticket's FETCH_ADD and READ use the first half).
        endpoint.read(next, scratch, LENGTH, LENGTH);
        long n = scratch.getLong(LENGTH);
        long s = scratch.getLong(LENGTH + 8);
        if (n != s) {
            return LockResult.CONTENDED;
        }
        long old;
        try {
            old = endpoint.cas(next, n, n + 1);
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pendingCas = e.request();
                pendingCasTicket = n;
            }
            throw e;
        } catch (RemoteAccessException e) {
            indeterminate += e.isIndeterminate() ? 1 : 0;
            throw e;
        }
        if (old != n) {
            return LockResult.CONTENDED;
        }
        ticket = n;
        return LockResult.ACQUIRED;
    }

    /**
     * Settles the acquire CAS of an earlier timed attempt.
     *
     * @return whether it took the lock
     */
    private boolean settleCas() {
        UnsettledRequest u = pendingCas;
        settleWithinBudget(endpoint, u, "acquire CAS at " + next);
        pendingCas = null;
        if (u.outcome() == UnsettledRequest.Outcome.SUCCEEDED && u.value() == pendingCasTicket) {
            ticket = pendingCasTicket;
            return true;
        }
        if (u.outcome() == UnsettledRequest.Outcome.INDETERMINATE) {
            indeterminate++;
        }
        return false;
    }

    @Override
    protected void release() {
        // Pairs with the next ticket holder's READ of serving; ordered after the critical section's WRITEs to the
        // home by R6 (same queue pair). Idempotent: a retry after an unknown outcome writes the same value.
        endpoint.writeLong(serving, ticket + 1, false);
    }

    @Override
    protected void closeHandle() {
        long previous = endpoint.deadline(Math.min(endpoint.deadline(),
            endpoint.nanoTime() + endpoint.operationTimeoutNs()));
        try {
            if (pendingCas != null) {
                UnsettledRequest u = pendingCas;
                pendingCas = null;
                if (u.settle(endpoint.waitBudgetNs()) && u.outcome() == UnsettledRequest.Outcome.SUCCEEDED
                    && u.value() == pendingCasTicket) {
                    endpoint.writeLong(serving, pendingCasTicket + 1, false); // taken after the handle gave up
                }
            }
            if (takePending) {
                takeTicket();
            }
            if (inLine) {
                // A ticket cannot leave the line: wait for its turn and pass it on at once.
                long now = endpoint.readLong(serving);
                while (now != ticket && !TicketLockDescriptor.skipped(now, ticket)) {
                    backoff().pause();
                    now = endpoint.readLong(serving);
                }
                inLine = false;
                if (now == ticket) {
                    endpoint.writeLong(serving, ticket + 1, false);
                }
            }
        } finally {
            endpoint.deadline(previous);
        }
        scratch.deregister();
    }

    /** @return the ticket of the current (or last) acquisition, or the one this handle waits with */
    public long ticket() {
        return ticket;
    }

    /** @return whether the handle holds a ticket that has not been served yet (a lock() that did not finish) */
    public boolean isInLine() {
        return inLine || takePending;
    }

    /** @return how many of this handle's FETCH_ADDs and CASes had an unknown outcome: each may stall the lock */
    public int indeterminateOutcomes() {
        return indeterminate;
    }

    /**
     * Operator recovery for a stalled lock (a ticket whose owner crashed, or whose FETCH_ADD had an unknown outcome):
     * moves {@code serving} to {@code next}, skipping every ticket drawn so far. Live waiters whose ticket was skipped
     * draw a new one. Only call it once the holder of the stalled ticket is known to be gone: a live holder would
     * lose mutual exclusion.
     *
     * @param endpoint any endpoint
     * @param base the lock's base address
     * @return the new value of {@code serving}
     */
    public static long reset(Endpoint endpoint, RemoteAddress base) {
        RemoteAddress b = aligned(base, "lock");
        long n = endpoint.readLong(b.plus(NEXT_OFFSET));
        endpoint.writeLong(b.plus(SERVING_OFFSET), n, false);
        return n;
    }
}
