package dev.remora.verbs.disni;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.impl.NatObject;
import dev.remora.verbs.Completion;
import dev.remora.verbs.spi.WakeableCompletionQueue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A completion queue ({@code ibv_create_cq}) polled with this provider's own stateful call: {@code ibv_poll_cq}
 * through libdisni into a direct array of {@code struct ibv_wc} images made once ({@link IbvWcDescriptor}), decoded
 * into the caller's {@link Completion}s, so polling allocates nothing.
 *
 * <p>The native {@code wr_id} of every request is this provider's: the queue pair's slot in this queue (top 16
 * bits), a receive bit (bit 47) and the request's sequence number on its queue (low 47 bits). The queue pair keeps
 * the caller's {@code wr_id}, opcode and length by sequence number, and a completion for request {@code k} retires
 * every earlier request of its queue (R11), which is how unsignaled requests give back the slot they reserved here:
 * a post reserves one slot per request and returns {@code QUEUE_FULL} when the queue could overrun.
 *
 * <p>Waiting spins for {@value #SPIN_NS} ns, then parks in steps of at most 20 µs (no completion channel events:
 * they would cost a system call per wake-up).
 */
final class DisniCompletionQueue implements WakeableCompletionQueue {
    /** Entries per {@code ibv_poll_cq}. */
    static final int BATCH = 32;
    private static final long SPIN_NS = 20_000;
    private static final long PARK_NS = 20_000;

    private final DisniNode node;
    private final int depth;
    private final IbvCQ cq;
    private final long handle;
    private final VerbsNatives natives;
    private final ByteBuffer wcs;
    private final long wcBase;
    private final AtomicInteger reserved = new AtomicInteger();
    private final AtomicLong wakeups = new AtomicLong();
    private volatile DisniQueuePair[] queuePairs = new DisniQueuePair[0];
    private volatile boolean closed;

    DisniCompletionQueue(DisniNode node, int depth) throws IOException {
        this.node = node;
        this.depth = depth;
        this.cq = node.device().createCQ(node.compChannel(), depth, 0);
        this.handle = ((NatObject) cq).getObjId();
        this.natives = node.fabric().natives();
        this.wcs = ByteBuffer.allocateDirect(BATCH * IbvWcDescriptor.SIZE).order(ByteOrder.nativeOrder());
        this.wcBase = MemoryUtils.getAddress(wcs);
    }

    DisniNode node() {
        return node;
    }

    IbvCQ ibvCq() {
        return cq;
    }

    /**
     * Gives a queue pair completing here its slot.
     *
     * @param qp the queue pair
     * @return its slot, the top 16 bits of its native {@code wr_id}s
     */
    synchronized int attach(DisniQueuePair qp) {
        DisniQueuePair[] old = queuePairs;
        if (old.length >= 1 << 16) {
            throw new IllegalStateException("a completion queue serves at most 65536 queue pairs");
        }
        DisniQueuePair[] now = java.util.Arrays.copyOf(old, old.length + 1);
        now[old.length] = qp;
        queuePairs = now;
        return old.length;
    }

    boolean reserve(int n) {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
        while (true) {
            int r = reserved.get();
            if (r + n > depth) {
                return false;
            }
            if (reserved.compareAndSet(r, r + n)) {
                return true;
            }
        }
    }

    void release(int n) {
        reserved.addAndGet(-n);
    }

    @Override
    public int depth() {
        return depth;
    }

    @Override
    public synchronized int poll(Completion[] out, int max) {
        if (max > out.length) {
            throw new IllegalArgumentException("max " + max + " exceeds the array's " + out.length + " slots");
        }
        int want = Math.min(max, BATCH);
        if (closed || want <= 0) {
            return 0;
        }
        int n;
        try {
            n = natives.pollCq(handle, want, wcBase);
        } catch (IOException e) {
            throw new IllegalStateException("ibv_poll_cq failed: " + e.getMessage(), e);
        }
        if (n < 0) {
            throw new IllegalStateException("ibv_poll_cq failed with " + n);
        }
        DisniQueuePair[] qps = queuePairs;
        int silent = 0;
        for (int i = 0; i < n; i++) {
            int at = i * IbvWcDescriptor.SIZE;
            long id = wcs.getLong(at + IbvWcDescriptor.WR_ID);
            int st = wcs.getInt(at + IbvWcDescriptor.STATUS);
            DisniQueuePair qp = qps[(int) (id >>> 48)];
            silent += qp.complete((id & DisniQueuePair.RECV_BIT) != 0, id & DisniQueuePair.SEQ_MASK,
                IbvWcDescriptor.status(st),
                IbvWcDescriptor.vendorDetail(st, wcs.getInt(at + IbvWcDescriptor.VENDOR_ERR)),
                wcs.getInt(at + IbvWcDescriptor.BYTE_LEN), out[i]);
        }
        release(n + silent);
        return n;
    }

    @Override
    public int await(Completion[] out, long timeoutNs) {
        long start = System.nanoTime();
        long seen = wakeups.get();
        while (true) {
            int n = poll(out, out.length);
            if (n > 0) {
                return n;
            }
            long waited = System.nanoTime() - start;
            if (closed || node.fabric().isClosed() || wakeups.get() != seen || waited >= timeoutNs) {
                return 0;
            }
            if (waited < SPIN_NS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(Math.min(PARK_NS, timeoutNs - waited));
                if (Thread.currentThread().isInterrupted()) {
                    return 0;
                }
            }
        }
    }

    @Override
    public void wakeWaiters() {
        wakeups.incrementAndGet();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            cq.destroyCQ();
        } catch (IOException e) {
            DisniFabric.LOG.fine("ibv_destroy_cq: " + e.getMessage());
        }
    }
}
