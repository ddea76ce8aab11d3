package dev.remora.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One caller's handle on the wait layer: RDMA^WAIT's tag {@code d}. Operations posted through a tag can be waited
 * for as a group with {@link #await(long)}, which returns once every operation the tag posted earlier has completed,
 * whatever other callers share the completion queue.
 *
 * <p>To know when unsignaled requests are done, the tag marks the last request of every post
 * {@link WorkRequest#SIGNALED}: completions on one queue pair arrive in order (R11), so when the signaled request
 * completes every request before it on that queue pair has completed too. The tag also overwrites each request's
 * {@code wr_id} (see {@link CompletionDispatcher} for the layout).
 *
 * <p>A tag belongs to one thread at a time; completions are routed to it by any thread.
 */
public final class WaitTag {
    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(WaitTag.class, "completed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CompletionDispatcher dispatcher;
    private final int id;
    private final String name;
    private final Completion[] buffer = newBuffer(16);
    private long sequence;
    private long posted;
    @SuppressWarnings("unused") // accessed through COMPLETED
    private volatile long completed;
    private volatile WcStatus lastError = WcStatus.SUCCESS;
    private volatile long lastErrorWrId;
    private volatile boolean failedSinceAwait;
    private long spinBeforeBlockNs = 20_000;

    WaitTag(CompletionDispatcher dispatcher, int id, String name) {
        this.dispatcher = dispatcher;
        this.id = id;
        this.name = Objects.requireNonNull(name, "name");
    }

    private static Completion[] newBuffer(int n) {
        Completion[] b = new Completion[n];
        for (int i = 0; i < n; i++) {
            b[i] = new Completion();
        }
        return b;
    }

    /** @return the tag's id, carried in the high bits of wr_id */
    public int id() {
        return id;
    }

    /** @return the tag's name */
    public String name() {
        return name;
    }

    /**
     * Sets how long {@link #await} spins before it blocks the thread.
     *
     * @param nanos spin time in nanoseconds, 0 to block at once
     * @return this
     */
    public WaitTag spinBeforeBlockNs(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative spin time " + nanos);
        }
        this.spinBeforeBlockNs = nanos;
        return this;
    }

    /**
     * Posts one request through the tag: one doorbell, signaled.
     *
     * @param qp the queue pair (its send completion queue must be this tag's dispatcher's queue)
     * @param wr the request; its wr_id and SIGNALED flag are overwritten
     * @return {@link QueuePair#POSTED} or {@link QueuePair#QUEUE_FULL}
     */
    public int post(QueuePair qp, WorkRequest wr) {
        checkQueue(qp);
        wr.wrId(nextWrId(true));
        wr.flags(wr.flags() | WorkRequest.SIGNALED);
        int rc = qp.post(wr);
        if (rc == QueuePair.POSTED) {
            posted++;
        } else {
            sequence--;
        }
        return rc;
    }

    /**
     * Posts a list through the tag with one doorbell; the last request is made signaled.
     *
     * @param qp the queue pair
     * @param wrs the requests; their wr_ids (and the last one's SIGNALED flag) are overwritten
     * @param count how many, from index 0
     * @return {@link QueuePair#POSTED} or {@link QueuePair#QUEUE_FULL}
     */
    public int post(QueuePair qp, WorkRequest[] wrs, int count) {
        checkQueue(qp);
        if (count <= 0 || count > wrs.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + wrs.length);
        }
        long first = sequence;
        for (int i = 0; i < count; i++) {
            boolean last = i == count - 1;
            wrs[i].wrId(nextWrId(last || wrs[i].has(WorkRequest.SIGNALED)));
            if (last) {
                wrs[i].flags(wrs[i].flags() | WorkRequest.SIGNALED);
            }
        }
        int rc = qp.post(wrs, count);
        if (rc == QueuePair.POSTED) {
            for (int i = 0; i < count; i++) {
                if ((wrs[i].wrId() & CompletionDispatcher.COUNTED_BIT) != 0) {
                    posted++;
                }
            }
        } else {
            sequence = first;
        }
        return rc;
    }

    private void checkQueue(QueuePair qp) {
        if (qp.sendCompletionQueue() != dispatcher.completionQueue()) {
            throw new IllegalArgumentException("queue pair " + qp.qpNumber()
                + " completes into another completion queue than this tag's dispatcher");
        }
    }

    private long nextWrId(boolean counted) {
        long seq = sequence++ & CompletionDispatcher.SEQUENCE_MASK;
        return ((long) id << CompletionDispatcher.TAG_SHIFT) | (counted ? CompletionDispatcher.COUNTED_BIT : 0) | seq;
    }

    void deliver(Completion c) {
        if (!c.status().isSuccess()) {
            lastErrorWrId = c.wrId();
            lastError = c.status();
            failedSinceAwait = true;
        }
        if ((c.wrId() & CompletionDispatcher.COUNTED_BIT) != 0) {
            // The error fields above are written before the count is published, so a waiter that sees the count
            // also sees the error.
            COMPLETED.getAndAdd(this, 1L);
        }
    }

    /** @return signaled requests posted through this tag whose completion has not been routed yet */
    public long outstanding() {
        return posted - (long) COMPLETED.getVolatile(this);
    }

    /**
     * RDMA^WAIT {@code Wait(d)}: waits until every operation posted earlier through this tag has completed,
     * polling the shared queue (and routing others' completions) meanwhile. Spins briefly, then blocks.
     *
     * @param timeoutNs the most to wait, in nanoseconds
     * @return {@link WaitStatus#COMPLETED}, {@link WaitStatus#FAILED} if any completed with an error since the last
     *     await, or {@link WaitStatus#TIMED_OUT}
     */
    public WaitStatus await(long timeoutNs) {
        long target = posted;
        if ((long) COMPLETED.getVolatile(this) < target) {
            // Poll once before reading the clock: with no latency the completion is usually already queued.
            dispatcher.pump(buffer, this, 0);
            if ((long) COMPLETED.getVolatile(this) < target) {
                CompletionQueue cq = dispatcher.completionQueue();
                long start = cq.nanoTime();
                while ((long) COMPLETED.getVolatile(this) < target) {
                    if (dispatcher.pump(buffer, this, 0) > 0) {
                        continue;
                    }
                    long waited = cq.nanoTime() - start;
                    if (waited >= timeoutNs) {
                        return WaitStatus.TIMED_OUT;
                    }
                    if (waited < spinBeforeBlockNs) {
                        Thread.onSpinWait();
                    } else {
                        dispatcher.pump(buffer, this, Math.min(timeoutNs - waited, 1_000_000L));
                    }
                }
            }
        }
        if (failedSinceAwait) {
            failedSinceAwait = false;
            return WaitStatus.FAILED;
        }
        return WaitStatus.COMPLETED;
    }

    /** @return the status of the latest failed completion routed to this tag, SUCCESS if none */
    public WcStatus lastError() {
        return lastError;
    }

    /** @return the wr_id of the latest failed completion routed to this tag */
    public long lastErrorWrId() {
        return lastErrorWrId;
    }

    @Override
    public String toString() {
        return "WaitTag{" + name + "#" + id + ", outstanding=" + outstanding() + '}';
    }
}
