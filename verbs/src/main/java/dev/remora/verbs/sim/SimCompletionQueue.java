package dev.remora.verbs.sim;

import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.WcStatus;

/**
 * A bounded completion queue: a ring of preallocated {@link Completion} slots guarded by this object's monitor.
 *
 * <p>Slots are reserved when a request is posted ({@link #reserve(int)}), so delivery never finds the ring full;
 * a reservation is returned when its completion is polled or, for a successful unsignaled request, when it completes.
 */
final class SimCompletionQueue implements CompletionQueue {
    private static final long SPIN_NS = 10_000;

    private final SimFabric fabric;
    private static final java.lang.invoke.VarHandle RESERVED;

    static {
        try {
            RESERVED = java.lang.invoke.MethodHandles.lookup().findVarHandle(SimCompletionQueue.class, "reserved",
                int.class);
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
    private int waiters;
    private long wakeups;
    private volatile boolean closed;
    /**
     * Queue pairs whose send queue completes here. A poller that finds the ring empty progresses them itself when
     * their next request is due, as a polling-driven NIC would, so a spinning waiter never depends on a NIC thread
     * getting a core.
     */
    private volatile SimQueuePair[] producers = new SimQueuePair[0];

    SimCompletionQueue(SimFabric fabric, int depth) {
        this.fabric = fabric;
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

    boolean reserve(int n) {
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

    void release(int n) {
        RESERVED.getAndAdd(this, -n);
    }

    synchronized void deliver(long wrId, WcStatus status, Opcode opcode, int bytes, int qpn) {
        ring[(int) tail++ & mask].set(wrId, status, opcode, bytes, qpn, 0);
        if (waiters > 0) {
            notifyAll();
        }
    }

    synchronized void addProducer(SimQueuePair qp) {
        SimQueuePair[] now = java.util.Arrays.copyOf(producers, producers.length + 1);
        now[now.length - 1] = qp;
        producers = now;
    }

    synchronized void removeProducer(SimQueuePair qp) {
        SimQueuePair[] now = producers;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == qp) {
                SimQueuePair[] shorter = new SimQueuePair[now.length - 1];
                System.arraycopy(now, 0, shorter, 0, i);
                System.arraycopy(now, i + 1, shorter, i, now.length - i - 1);
                producers = shorter;
                return;
            }
        }
    }

    @Override
    public int poll(Completion[] out, int max) {
        int n = pollRing(out, max);
        if (n == 0 && fabric.context().roundTripLatencyNs() > 0) {
            SimQueuePair[] qps = producers;
            if (qps.length > 0) {
                long now = fabric.now();
                for (SimQueuePair qp : qps) {
                    qp.progressIfDue(now);
                }
                n = pollRing(out, max);
            }
        }
        return n;
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
            if (waited >= Math.min(SPIN_NS, timeoutNs)) {
                break;
            }
            Thread.onSpinWait();
        }
        if (n > 0) {
            return n;
        }
        synchronized (this) {
            long seen = wakeups;
            while (true) {
                n = poll(out, out.length);
                long remaining = timeoutNs - (System.nanoTime() - start);
                if (n > 0 || wakeups != seen || remaining <= 0 || closed || fabric.isClosed()) {
                    return n;
                }
                waiters++;
                try {
                    wait(remaining / 1_000_000, (int) (remaining % 1_000_000));
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
    public synchronized void wakeWaiters() {
        wakeups++;
        if (waiters > 0) {
            notifyAll();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        notifyAll();
    }
}
