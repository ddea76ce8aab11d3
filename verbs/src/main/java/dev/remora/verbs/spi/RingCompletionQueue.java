package dev.remora.verbs.spi;

import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;

/**
 * A bounded completion queue for providers: a ring of preallocated {@link Completion} slots guarded by this object's
 * monitor.
 *
 * <p>Slots are reserved when a request is posted ({@link #reserve(int)}), so delivery never finds the ring full;
 * a reservation is returned when its completion is polled or, for a successful unsignaled request, when it completes
 * ({@link #release(int)}).
 *
 * <h2>Locks</h2>
 * Two monitors, both leaves of a provider's lock order: this object's, which guards the ring, and a private wait
 * lock, on which {@link #await} blocks. Neither is held while taking any other lock, and in particular no thread holds
 * either while it calls {@link #progress()}. A deliverer may hold its queue pair's monitor while it takes this one,
 * and takes the wait lock only after releasing this one.
 */
public class RingCompletionQueue implements WakeableCompletionQueue {
    private static final long SPIN_NS = 10_000;
    private final long spinNs;

    private static final java.lang.invoke.VarHandle RESERVED;
    private static final java.lang.invoke.VarHandle SIGNALS;
    private static final java.lang.invoke.VarHandle WAKEUPS;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup lookup = java.lang.invoke.MethodHandles.lookup();
            RESERVED = lookup.findVarHandle(RingCompletionQueue.class, "reserved", int.class);
            SIGNALS = lookup.findVarHandle(RingCompletionQueue.class, "signals", long.class);
            WAKEUPS = lookup.findVarHandle(RingCompletionQueue.class, "wakeups", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Slots; a power of two at least {@link #depth}, indexed with {@link #mask}. */
    private final Completion[] ring;
    private final int mask;
    private final int depth;
    private long head;
    private long tail;
    /** Slots promised to posted requests (lock-free: posting and polling threads update it). */
    @SuppressWarnings("unused") // accessed through RESERVED
    private volatile int reserved;
    /** The monitor {@link #await} blocks on: a leaf lock, distinct from the ring's (this object's) monitor. */
    private final Object waitLock = new Object();
    /** Threads blocked (or about to block) in {@link #await}; changed only under {@link #waitLock}. */
    private volatile int waiters;
    /**
     * Bumped after every change a waiter may be waiting for: a delivery, {@link #wakeWaiters()}, {@link #close()}.
     * The handshake with {@link #waiters} is in {@link #signal()}.
     */
    @SuppressWarnings("unused") // accessed through SIGNALS
    private volatile long signals;
    /** Bumped by {@link #wakeWaiters()} only, so that {@link #await} returns to let its caller re-check. */
    @SuppressWarnings("unused") // accessed through WAKEUPS
    private volatile long wakeups;
    private volatile boolean closed;
    /** @param depth the number of entries, positive */
    public RingCompletionQueue(int depth) {
        this(depth, SPIN_NS);
    }

    /**
     * @param depth the number of entries, positive
     * @param spinNs how long {@link #await} polls before it blocks (a provider whose completions a poller can fetch
     *     itself, see {@link #progress()}, spins about one round trip)
     */
    public RingCompletionQueue(int depth, long spinNs) {
        this.spinNs = spinNs;
        if (depth <= 0) {
            throw new IllegalArgumentException("completion queue depth must be positive, not " + depth);
        }
        this.depth = depth;
        int size = depth == 1 ? 1 : Integer.highestOneBit(depth - 1) << 1;
        this.ring = new Completion[size];
        this.mask = size - 1;
        for (int i = 0; i < size; i++) {
            ring[i] = new Completion();
        }
    }

    @Override
    public int depth() {
        return depth;
    }

    /**
     * Reserves slots for requests being posted.
     *
     * @param n the number of slots
     * @return false if the queue has no room for all of them (nothing is reserved then)
     * @throws IllegalStateException if the queue is closed
     */
    public boolean reserve(int n) {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
        while (true) {
            int r = (int) RESERVED.getVolatile(this);
            if (r + n > depth) {
                return false;
            }
            if (RESERVED.compareAndSet(this, r, r + n)) {
                return true;
            }
        }
    }

    /** @param n slots to return, of requests that completed without a completion entry */
    public void release(int n) {
        RESERVED.getAndAdd(this, -n);
    }

    /**
     * Queues a completion into a reserved slot. The caller may hold its queue pair's monitor, never the wait lock.
     *
     * @param wrId the request's id
     * @param status its status
     * @param opcode its opcode
     * @param bytes the byte count
     * @param qpn the queue pair's number
     */
    public void deliver(long wrId, WcStatus status, Opcode opcode, int bytes, int qpn) {
        synchronized (this) {
            ring[(int) tail++ & mask].set(wrId, status, opcode, bytes, qpn, 0);
        }
        // After the ring update, so that a waiter that read the old signal count before polling sees the new one.
        signal();
    }

    /**
     * Wakes blocked waiters after a change to what they wait for. The handshake, which loses no wake-up without
     * taking {@link #waitLock} on the common path (nobody waiting):
     * <pre>
     *   signaller:  publish the change;  SIGNALS += 1;  if (waiters > 0) notify under waitLock
     *   waiter:     s = SIGNALS;  poll (finds nothing);  under waitLock: waiters += 1;  if (SIGNALS == s) wait
     * </pre>
     * All four accesses to {@code SIGNALS} and {@code waiters} are volatile, so they are sequentially consistent:
     * either the signaller's {@code waiters} read follows the waiter's increment, and it notifies (under the lock,
     * so only once the waiter is inside {@code wait}), or the waiter's second {@code SIGNALS} read follows the
     * signaller's bump, and it does not wait. A change published before the waiter's first {@code SIGNALS} read is
     * seen by its poll.
     */
    private void signal() {
        SIGNALS.getAndAdd(this, 1L);
        // Read waiters only after the bump above (volatile order), the other half of the handshake.
        if (waiters > 0) {
            synchronized (waitLock) {
                waitLock.notifyAll();
            }
        }
    }

    /**
     * Completes a request of a send queue: a failure is counted and always delivered, with no bytes; a success is
     * delivered if the request was signaled, and otherwise gives back the slot it reserved.
     *
     * @param wrId the request's id
     * @param status its outcome
     * @param opcode its opcode
     * @param bytes the bytes a success reports
     * @param qpn its queue pair's number
     * @param signaled whether it was signaled
     * @param counters its queue pair's counters
     */
    public final void completeSend(long wrId, WcStatus status, Opcode opcode, int bytes, int qpn, boolean signaled,
                                   VerbCounters counters) {
        if (status != WcStatus.SUCCESS) {
            counters.error();
            deliver(wrId, status, opcode, 0, qpn);
        } else if (signaled) {
            deliver(wrId, WcStatus.SUCCESS, opcode, bytes, qpn);
        } else {
            release(1);
        }
    }

    @Override
    public int poll(Completion[] out, int max) {
        int n = pollRing(out, max);
        if (n == 0 && progress()) {
            n = pollRing(out, max);
        }
        return n;
    }

    /**
     * Called by a poll that found the queue empty: a provider whose NIC is driven by polling progresses its queue
     * pairs here. Called holding no lock of this queue.
     *
     * @return whether it may have delivered something
     */
    protected boolean progress() {
        return false;
    }

    /** @return whether the provider's fabric is closed, so that {@link #await} stops waiting */
    protected boolean fabricClosed() {
        return false;
    }

    private synchronized int pollRing(Completion[] out, int max) {
        if (max > out.length) {
            throw new IllegalArgumentException("max " + max + " exceeds the array's " + out.length + " slots");
        }
        int n = (int) Math.min(tail - head, max);
        for (int i = 0; i < n; i++) {
            out[i].copyFrom(ring[(int) head++ & mask]);
        }
        if (n > 0) {
            RESERVED.getAndAdd(this, -n);
        }
        return n;
    }

    @Override
    public int await(Completion[] out, long timeoutNs) {
        long start = System.nanoTime();
        int n;
        while ((n = poll(out, out.length)) == 0) {
            long waited = System.nanoTime() - start;
            if (waited >= Math.min(spinNs, timeoutNs)) {
                break;
            }
            Thread.onSpinWait();
        }
        if (n > 0) {
            return n;
        }
        long seenWakeups = (long) WAKEUPS.getVolatile(this);
        while (true) {
            // Read the signal count before polling: a delivery the poll misses bumps it afterwards (see signal()).
            long seen = (long) SIGNALS.getVolatile(this);
            // Poll holding no lock: poll may progress a producer, which takes its queue pair's monitor and then ours.
            n = poll(out, out.length);
            long remaining = timeoutNs - (System.nanoTime() - start);
            boolean woken = (long) WAKEUPS.getVolatile(this) != seenWakeups;
            if (n > 0 || woken || remaining <= 0 || closed || fabricClosed()) {
                return n;
            }
            synchronized (waitLock) {
                waiters++;
                try {
                    // The re-read follows the increment of waiters (volatile order): the waiter's half of signal().
                    if ((long) SIGNALS.getVolatile(this) == seen) {
                        waitLock.wait(remaining / 1_000_000, (int) (remaining % 1_000_000));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return 0;
                } finally {
                    waiters--;
                }
            }
        }
    }

    @Override
    public void wakeWaiters() {
        // Bumped before signal() bumps SIGNALS, so a waiter woken by this signal sees the new wake-up count.
        WAKEUPS.getAndAdd(this, 1L);
        signal();
    }

    @Override
    public void close() {
        // Set before signal(), so a waiter woken by it sees the queue closed.
        closed = true;
        signal();
    }
}
