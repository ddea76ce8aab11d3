package dev.remora.verbs;

import dev.remora.verbs.spi.WakeableCompletionQueue;

import java.util.Arrays;
import java.util.Objects;

/**
 * The wait layer (RDMA^WAIT, docs/memory-model.md R12): lets independent libraries share one completion queue.
 *
 * <p>Plain {@code poll} retires the oldest completion, whoever posted it, so a library that polls can swallow
 * another's completion or return while its own operations are outstanding (litmus L19). Here each caller posts
 * through its own {@link WaitTag}; the request's {@code wr_id} carries the tag, and whichever thread polls the queue
 * routes each completion to its tag. {@link WaitTag#await(long)} then waits for exactly the caller's earlier
 * operations.
 *
 * <h2>wr_id layout</h2>
 * <pre>
 *  63            40 39 38                                   0
 * +----------------+--+--------------------------------------+
 * |    tag id      |C |              sequence                |
 * +----------------+--+--------------------------------------+
 *  C = 1: the request was signaled and is counted by its tag
 * </pre>
 *
 * <p>Thread-safe. Completions with tag id 0 (posted without a tag) are counted in {@link #untaggedCompletions()}
 * and otherwise ignored.
 */
public final class CompletionDispatcher {
    static final int TAG_SHIFT = 40;
    static final long COUNTED_BIT = 1L << 39;
    static final long SEQUENCE_MASK = COUNTED_BIT - 1;
    static final int MAX_TAGS = (1 << 23) - 1;

    private final WakeableCompletionQueue cq;
    private volatile WaitTag[] tags = new WaitTag[16];
    private int nextTagId = 1;
    private volatile long untagged;

    /**
     * Creates a dispatcher over a completion queue. Every poller of {@code cq} must go through this dispatcher.
     *
     * @param cq the shared completion queue, made by a provider (its queues can wake their waiters)
     * @throws IllegalArgumentException if the queue does not implement {@link WakeableCompletionQueue}
     */
    public CompletionDispatcher(CompletionQueue cq) {
        Objects.requireNonNull(cq, "completion queue");
        if (!(cq instanceof WakeableCompletionQueue)) {
            throw new IllegalArgumentException("completion queue " + cq.getClass().getName() + " cannot wake its "
                + "waiters: a provider's completion queues implement " + WakeableCompletionQueue.class.getName());
        }
        this.cq = (WakeableCompletionQueue) cq;
    }

    /** @return the completion queue */
    public CompletionQueue completionQueue() {
        return cq;
    }

    /**
     * Creates a tag for one caller (a library, an object, a thread).
     *
     * @param name a name for messages
     * @return the tag
     */
    public synchronized WaitTag newTag(String name) {
        if (nextTagId > MAX_TAGS) {
            throw new IllegalStateException("too many wait tags on one dispatcher (" + MAX_TAGS + ")");
        }
        int id = nextTagId++;
        WaitTag tag = new WaitTag(this, id, name);
        WaitTag[] current = tags;
        if (id >= current.length) {
            current = Arrays.copyOf(current, current.length * 2);
        } else {
            current = current.clone();
        }
        current[id] = tag;
        tags = current;
        return tag;
    }

    /** @return completions seen whose wr_id named no tag */
    public long untaggedCompletions() {
        return untagged;
    }

    /**
     * Polls the queue once and routes what it found.
     *
     * @param buffer the calling thread's completion slots
     * @param self the caller's tag, or null
     * @param timeoutNs 0 to poll without blocking; otherwise wait up to this long for at least one completion
     * @return the number of completions routed
     */
    int pump(Completion[] buffer, WaitTag self, long timeoutNs) {
        int n = timeoutNs <= 0 ? cq.poll(buffer) : cq.await(buffer, timeoutNs);
        boolean others = false;
        WaitTag[] table = tags;
        for (int i = 0; i < n; i++) {
            Completion c = buffer[i];
            int id = (int) (c.wrId() >>> TAG_SHIFT);
            WaitTag tag = id < table.length ? table[id] : null;
            if (tag == null) {
                tag = refreshed(id);
            }
            if (tag == null) {
                untaggedIncrement();
                continue;
            }
            tag.deliver(c);
            others |= tag != self;
        }
        if (others) {
            // Another waiter's completion was consumed by this thread: wake waiters so they re-check their counts.
            cq.wakeWaiters();
        }
        return n;
    }

    private synchronized void untaggedIncrement() {
        untagged++;
    }

    private WaitTag refreshed(int id) {
        WaitTag[] table = tags;
        return id > 0 && id < table.length ? table[id] : null;
    }
}
