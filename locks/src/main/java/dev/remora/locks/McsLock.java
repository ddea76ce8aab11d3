package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An MCS queue lock for remote memory: waiters queue up with CAS on a tail word at the home, and each waits by
 * reading <em>its own node's memory</em> with its CPU, not by polling the home over the network. FIFO from the moment
 * a waiter's CAS on the tail succeeds. RDMA has no atomic swap, so joining the queue is a CAS loop, and that doorway is
 * not starvation-free: a thread's CAS can keep failing while others keep joining (the TLA+ model
 * {@code spec/locks/McsLock/MCMcsLockDoorway} finds such a run); once queued, a thread always gets in.
 *
 * <p>Home layout (participant {@code i} is a handle's index, {@code 0 <= i < capacity}):
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |   tail: 0 = free, else index + 1 of the last queued handle    |  offset 0
 *  +---------------------------------------------------------------+
 *  |   slot[i].key: node id (high 32 bits) | qnode rkey (low 32)   |  offset 8 + 16 i
 *  +---------------------------------------------------------------+
 *  |   slot[i].address: qnode virtual address                      |  offset 16 + 16 i
 *  +---------------------------------------------------------------+
 * </pre>
 * Each handle's queue node, in its own node's memory:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |   locked: 1 while waiting; the predecessor WRITEs 0            |  offset 0
 *  +---------------------------------------------------------------+
 *  |   next: 0, or index + 1 of the successor (it WRITEs this)      |  offset 8
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #lock()}, {@link #tryLock()}</td><td>CAS(tail: 0 → me)</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()} with no successor</td><td>flush READs, CAS(tail: me → 0)</td><td>1 (+1 per other node
 *       written)</td></tr>
 *   <tr><td>{@link #unlock()} with a successor</td><td>flush READs, WRITE successor.locked = 0</td><td>1 (+ flushes)
 *       </td></tr>
 *   <tr><td>contended {@link #lock()}</td><td>CAS loop on tail, READ of the predecessor's slot (cached), WRITE
 *       predecessor.next, then local CPU reads only</td><td>3 + retries</td></tr>
 * </table>
 *
 * <p><b>Ordering.</b> The queue node is initialised with CPU stores before the CAS that publishes it; posting is
 * ordered after the poster's CPU stores (R2), so the predecessor's WRITE of {@code locked = 0} cannot be overwritten
 * by a late initialisation. The slot is written before the first CAS on the tail, on the same queue pair, so the CAS
 * executes after the slot WRITE is placed (R7) and anyone who sees this handle's index can read its slot. Handover
 * WRITEs go to the successor's node: an ordered release flushes the critical section's WRITEs to every other node
 * first (R7), and the handover WRITE itself follows WRITEs to the successor's node on the same queue pair (R6). The
 * tail word is changed only by remote CAS; queue-node words are written by one remote writer each and read by their
 * owner's CPU, so no CPU store races a remote atomic (R14).
 */
public final class McsLock implements RemoteLock {
    /** Offset of the tail word. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of slot 0. */
    public static final int SLOTS_OFFSET = 8;
    /** Bytes per slot. */
    public static final int SLOT_LENGTH = 16;
    /** Offset of a queue node's locked flag. */
    public static final int QNODE_LOCKED_OFFSET = 0;
    /** Offset of a queue node's next word. */
    public static final int QNODE_NEXT_OFFSET = 8;
    /** Bytes of a queue node. */
    public static final int QNODE_LENGTH = 16;

    private final Endpoint endpoint;
    private final RemoteAddress base;
    private final RemoteAddress tail;
    private final int capacity;
    private final long me;
    private final MemoryRegion qnode;
    private final RemoteAddress[] qnodes;
    private final Backoff backoff = new Backoff(1, 1 << 8);
    private boolean held;

    private McsLock(Endpoint endpoint, RemoteAddress base, int capacity, int index) {
        this.endpoint = endpoint;
        this.base = base;
        this.tail = base.plus(TAIL_OFFSET);
        this.capacity = capacity;
        this.me = index + 1L;
        this.qnodes = new RemoteAddress[capacity];
        this.qnode = endpoint.node().allocate(QNODE_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE
            | Access.REMOTE_READ);
        RemoteAddress mine = qnode.remote(0);
        qnodes[index] = mine;
        // Publish this handle's queue node in its slot (read by a successor or predecessor that learns our index).
        RemoteAddress slot = base.plus(SLOTS_OFFSET + (long) SLOT_LENGTH * index);
        endpoint.writeLong(slot, ((long) mine.nodeId() << 32) | (mine.rkey() & 0xFFFF_FFFFL), false);
        endpoint.writeLong(slot.plus(8), mine.address(), false);
    }

    /**
     * Bytes a lock for {@code capacity} handles occupies.
     *
     * @param capacity the most handles
     * @return the length
     */
    public static int length(int capacity) {
        return SLOTS_OFFSET + SLOT_LENGTH * capacity;
    }

    /**
     * Allocates a free lock for up to {@code capacity} handles in {@code home}'s memory.
     *
     * @param home the lock's node
     * @param capacity the most handles
     * @return the lock's base address
     */
    public static RemoteAddress create(Node home, int capacity) {
        if (capacity < 1 || capacity > 1 << 20) {
            throw new IllegalArgumentException("capacity must be in 1..2^20: " + capacity);
        }
        return home.allocate(length(capacity), Access.ALL).remote(0);
    }

    /**
     * A handle for the thread owning {@code endpoint}; registers its queue node (two WRITEs).
     *
     * @param endpoint the thread's endpoint
     * @param base the lock's base address
     * @param capacity the capacity the lock was created with
     * @param index this handle's index, unique among the lock's handles, in {@code 0..capacity-1}
     * @return the handle
     */
    public static McsLock attach(Endpoint endpoint, RemoteAddress base, int capacity, int index) {
        Objects.requireNonNull(endpoint, "endpoint");
        if (index < 0 || index >= capacity) {
            throw new IllegalArgumentException("index " + index + " outside 0.." + (capacity - 1));
        }
        return new McsLock(endpoint, LockSupport.aligned(base, "lock"), capacity, index);
    }

    private RemoteAddress qnodeOf(long id) {
        int i = (int) (id - 1);
        if (i < 0 || i >= capacity) {
            throw new IllegalStateException("corrupt MCS lock: queue index " + id + " outside 1.." + capacity);
        }
        RemoteAddress a = qnodes[i];
        if (a == null) {
            RemoteAddress slot = base.plus(SLOTS_OFFSET + (long) SLOT_LENGTH * i);
            long key = endpoint.readLong(slot);
            long address = endpoint.readLong(slot.plus(8));
            a = new RemoteAddress((int) (key >>> 32), (int) key, address);
            qnodes[i] = a; // slots never change once written
        }
        return a;
    }

    @Override
    public void lock() {
        checkNotHeld();
        // Initialise our queue node before publishing it (R2 orders these stores before the CAS below).
        qnode.putLong(QNODE_LOCKED_OFFSET, 1);
        qnode.putLong(QNODE_NEXT_OFFSET, 0);
        long expected = 0;
        long prev;
        while ((prev = endpoint.cas(tail, expected, me)) != expected) {
            expected = prev; // a swap built from CAS: retry with the tail we saw
        }
        if (prev != 0) {
            // Link behind the predecessor, then wait on our own memory for its handover WRITE.
            endpoint.writeLong(qnodeOf(prev).plus(QNODE_NEXT_OFFSET), me, false);
            backoff.reset();
            while (qnode.getLong(QNODE_LOCKED_OFFSET) != 0) {
                backoff.pause();
            }
        }
        held = true;
    }

    @Override
    public LockResult tryLock() {
        checkNotHeld();
        qnode.putLong(QNODE_LOCKED_OFFSET, 1);
        qnode.putLong(QNODE_NEXT_OFFSET, 0);
        if (endpoint.cas(tail, 0, me) == 0) {
            held = true;
            return LockResult.ACQUIRED;
        }
        return LockResult.CONTENDED;
    }

    @Override
    public LockResult lock(long timeout, TimeUnit unit) {
        return LockSupport.retryUntil(endpoint, backoff, this::tryLock, unit.toNanos(timeout));
    }

    @Override
    public void unlock() {
        release(true);
    }

    @Override
    public void unlockWeak() {
        release(false);
    }

    private void release(boolean ordered) {
        if (!held) {
            throw new IllegalStateException("unlock by a handle that does not hold the lock");
        }
        held = false;
        long successor = qnode.getLong(QNODE_NEXT_OFFSET);
        if (successor == 0) {
            if (ordered) {
                LockSupport.flushCriticalSection(endpoint, tail);
            }
            // Nobody queued: free the tail (the next acquirer's CAS follows this one: rao).
            if (endpoint.cas(tail, me, 0) == me) {
                return;
            }
            // Someone swapped the tail but has not linked yet: wait for its WRITE of our next word.
            backoff.reset();
            while ((successor = qnode.getLong(QNODE_NEXT_OFFSET)) == 0) {
                backoff.pause();
            }
        }
        RemoteAddress succ = qnodeOf(successor);
        if (ordered) {
            // Placed before the handover: WRITEs to every node but the successor's (those precede the handover WRITE
            // on the same queue pair, R6).
            endpoint.flush(succ.nodeId());
        }
        endpoint.writeLong(succ.plus(QNODE_LOCKED_OFFSET), 0, false);
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
}
