package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.UnsettledRequest;
import dev.remora.verbs.VerbsTimeoutException;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * An MCS queue lock for remote memory: waiters queue up with CAS on a tail word at the home, and each waits by
 * reading <em>its own node's memory</em> with its CPU, not by polling the home over the network. FIFO from the moment
 * a waiter's CAS on the tail succeeds. RDMA has no atomic swap, so joining the queue is a CAS loop, and that doorway is
 * not starvation-free: a thread's CAS can keep failing while others keep joining (the TLA+ model
 * {@code spec/locks/McsLock/MCMcsLockDoorway} finds such a run); once queued, a thread always gets in.
 *
 * <p>The layout (the tail word and slot table at the home, a queue node per handle in its own node's memory) is
 * drawn in {@link McsLockDescriptor}.
 *
 * <table>
 *   <caption>Verbs per operation (uncontended)</caption>
 *   <tr><th>operation</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #lock()}, {@link #tryLock()}</td><td>CAS(tail: 0 → me)</td><td>1</td></tr>
 *   <tr><td>{@link #unlock()} with no successor</td><td>flush READs, CAS(tail: me → 0)</td><td>1 (+1 per node written)</td></tr>
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
 * WRITEs go to the successor's node: an ordered release first flushes the critical section's WRITEs to every node
 * they went to, the successor's and the home's included (R7), so that a release or handover posted again on a new
 * queue pair after an error cannot overtake one (R10). The
 * tail word is changed only by remote CAS; queue-node words are written by one remote writer each and read by their
 * owner's CPU, so no CPU store races a remote atomic (R14).
 *
 * <p><b>Timeouts, errors, crashes.</b>
 * <ul>
 *   <li>A tail CAS whose completion comes late is settled by the handle's next call, never guessed: if it queued the
 *       handle, the handle goes on from there (it links behind the predecessor it learns from the CAS's result),
 *       instead of queueing its node a second time behind itself. A blocking {@link #lock()} that throws after the
 *       handle queued keeps its place: the next {@code lock()} waits in it.</li>
 *   <li>{@link #unlock()} waits for a successor that has swapped the tail but not linked yet only within the
 *       endpoint's wait budget; then it throws {@link VerbsTimeoutException} and the handle still holds the lock
 *       (call {@code unlock()} again). A failed flush leaves the lock held too: nothing was released. A release CAS
 *       whose completion comes late is settled by the next {@code unlock()}.</li>
 *   <li>A link or handover WRITE whose completion comes late is settled by the next call, never posted a second
 *       time: a second copy could land in the peer's next wait or tenure (a handover granting the successor's next
 *       acquisition while another handle holds the lock, a link making a later holder hand over to a handle that
 *       is not waiting). While a handover is unsettled, {@code unlock()} has thrown and the release is in progress:
 *       call {@code unlock()} again, and do not touch the protected data.</li>
 *   <li>A release CAS or handover WRITE whose queue pair failed may still take effect: the handle no longer holds
 *       the lock ({@link #isHeld()} is false, the lock may have passed on or be lost) and refuses further use.</li>
 *   <li>The slot is written again before the first tail CAS whenever the queue pair to the home was replaced since
 *       it was written, a queue pair that has failed counting as replaced ({@link Endpoint#queuePairEpoch(int)}):
 *       R7 orders the slot WRITE before the CAS only on one queue pair.</li>
 *   <li><b>Not tolerated</b>: a tail CAS, link or release verb whose queue pair failed (whether the node is queued,
 *       or the lock passed on, is unknown: the handle refuses further use, and the lock may be lost), a crashed holder, and a crashed waiter (the holder cannot hand over to it, and its
 *       successors wait behind it). Recovery: once the operator knows the queued clients are gone,
 *       {@link #reset(Endpoint, RemoteAddress)} frees the tail and {@link #releaseIndex} the crashed
 *       handles' indices. Use {@link LeaseLock} where clients may crash.</li>
 * </ul>
 */
public final class McsLock extends AbstractRemoteLock {
    /** Offset of the tail word. */
    public static final int TAIL_OFFSET = McsLockDescriptor.TAIL_OFFSET;
    /** Offset of slot 0. */
    public static final int SLOTS_OFFSET = McsLockDescriptor.SLOTS_OFFSET;
    /** Bytes per slot. */
    public static final int SLOT_LENGTH = McsLockDescriptor.SLOT_LENGTH;
    /** Offset of a queue node's locked flag. */
    public static final int QNODE_LOCKED_OFFSET = McsLockDescriptor.QNODE_LOCKED_OFFSET;
    /** Offset of a queue node's next word. */
    public static final int QNODE_NEXT_OFFSET = McsLockDescriptor.QNODE_NEXT_OFFSET;
    /** Bytes of a queue node. */
    public static final int QNODE_LENGTH = McsLockDescriptor.QNODE_LENGTH;

    private final RemoteAddress base;
    private final RemoteAddress tail;
    private final int capacity;
    private final int index;
    /** This handle's id: its index and the generation of its claim (McsLockDescriptor). */
    private final long me;
    private final MemoryRegion qnode;
    /** Queue nodes learnt from slots, and the claim generation each was read under. */
    private final RemoteAddress[] qnodes;
    private final long[] qnodeGenerations;
    /** The slot WRITEs and the first tail CAS must share a queue pair (R7): the epoch the slot was written in. */
    private long slotEpoch;
    private boolean slotWritten;
    /** A tail CAS whose completion has not come, and the value it expected. */
    private UnsettledRequest pendingCas;
    private long pendingExpected;
    /** Queued (the tail CAS succeeded) but not yet holding: the predecessor, 0 if none, and whether we linked. */
    private boolean queued;
    private long predecessor;
    private boolean linked;
    /**
     * A tail CAS, link or release verb of this handle had an unknown outcome: its queue position (or whether it passed
     * the lock on) is unknown, the handle is unusable.
     */
    private boolean positionUnknown;
    /** A link or handover WRITE whose wait timed out: settled by the next call, never posted a second time. */
    private UnsettledRequest pendingLink;
    private UnsettledRequest pendingHandover;

    private McsLock(Endpoint endpoint, RemoteAddress base, int capacity, int index) {
        super(endpoint, base, new Backoff(1, 1 << 8));
        this.base = base;
        this.tail = base.plus(TAIL_OFFSET);
        this.capacity = capacity;
        this.index = index;
        this.qnodes = new RemoteAddress[capacity];
        this.qnodeGenerations = new long[capacity];
        this.qnode = endpoint.node().allocate(QNODE_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE
            | Access.REMOTE_READ);
        long generation;
        try {
            generation = claim(endpoint, McsLockDescriptor.slot(base, index), index);
        } catch (RuntimeException e) {
            qnode.deregister();
            throw e;
        }
        this.me = McsLockDescriptor.id(index, generation);
        qnodes[index] = qnode.remote(0);
        qnodeGenerations[index] = generation;
        try {
            writeSlot();
        } catch (RemoteAccessException | VerbsTimeoutException e) {
            slotWritten = false; // written again before the first tail CAS (casTail)
        }
    }

    /**
     * Claims slot {@code index} for a new handle: CAS of its claim word from unclaimed to claimed with the next
     * generation.
     *
     * @return the new generation
     * @throws IllegalStateException if another live handle holds the index, or the claim's outcome is unknown
     */
    private static long claim(Endpoint endpoint, RemoteAddress slot, int index) {
        RemoteAddress word = slot.plus(McsLockDescriptor.SLOT_CLAIM_OFFSET);
        long tag = ownerTag(endpoint);
        long current = endpoint.readLong(word);
        if (McsLockDescriptor.isClaimed(current)) {
            if (McsLockDescriptor.claimTag(current) == tag) {
                // Claimed under this endpoint's tag: an earlier attach of ours whose claim CAS had an unknown outcome
                // landed (a best-effort check, see McsLockDescriptor).
                return McsLockDescriptor.claimGeneration(current);
            }
            throw new IllegalStateException("MCS index " + index + " is in use by another handle (claim generation "
                + McsLockDescriptor.claimGeneration(current) + "): each live handle needs its own index; if its "
                + "holder crashed, see releaseIndex()");
        }
        long generation = McsLockDescriptor.claimGeneration(current) + 1;
        if (generation > McsLockDescriptor.MAX_GENERATION) {
            throw new IllegalStateException("MCS index " + index + " has been claimed " + (generation - 1)
                + " times, the most its id can count");
        }
        long desired = McsLockDescriptor.claim(generation, tag, true);
        long old;
        try {
            old = endpoint.cas(word, current, desired);
        } catch (VerbsTimeoutException e) {
            UnsettledRequest u = e.request();
            if (u == null) {
                throw e;
            }
            UnsettledRequest.Outcome outcome = settleWithinBudget(endpoint, u, "claim CAS at " + word);
            if (outcome == UnsettledRequest.Outcome.REFUSED) {
                throw e;
            }
            old = outcome == UnsettledRequest.Outcome.SUCCEEDED ? u.value() : endpoint.readLong(word);
        } catch (RemoteAccessException e) {
            if (!e.isIndeterminate()) {
                throw e;
            }
            old = endpoint.readLong(word); // its queue pair failed: the word tells whether it landed
        }
        if (old != current && old != desired) {
            throw new IllegalStateException("MCS index " + index + " was claimed by another handle at the same time: "
                + "each live handle needs its own index");
        }
        return generation;
    }

    /** A handle's owner tag in the claim word: its endpoint's, the same for every attach on that endpoint. */
    private static long ownerTag(Endpoint endpoint) {
        long h = System.identityHashCode(endpoint) * 0x9E37_79B9L + endpoint.node().id();
        long tag = (h ^ (h >>> 20) ^ (h >>> 40)) & ((1L << McsLockDescriptor.TAG_BITS) - 1);
        return tag == 0 ? 1 : tag;
    }

    /** Publishes this handle's queue node in its slot (read by a successor or predecessor that learns our id). */
    private void writeSlot() {
        RemoteAddress mine = qnodes[index];
        RemoteAddress slot = McsLockDescriptor.slot(base, index);
        endpoint.writeLong(slot.plus(McsLockDescriptor.SLOT_KEY_OFFSET), McsLockDescriptor.slotKey(mine), false);
        endpoint.writeLong(slot.plus(McsLockDescriptor.SLOT_ADDRESS_OFFSET), mine.address(), false);
        slotEpoch = endpoint.queuePairEpoch(tail.nodeId());
        slotWritten = true;
    }

    /**
     * Bytes a lock for {@code capacity} handles occupies.
     *
     * @param capacity the most handles
     * @return the length
     */
    public static int length(int capacity) {
        return McsLockDescriptor.length(capacity);
    }

    /**
     * Allocates a free lock for up to {@code capacity} handles in {@code home}'s memory.
     *
     * @param home the lock's node
     * @param capacity the most handles
     * @return the lock's memory: {@link LockHome#address()} is its base address
     */
    public static LockHome create(Node home, int capacity) {
        if (capacity < 1 || capacity > McsLockDescriptor.MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be in 1..2^20: " + capacity);
        }
        return new LockHome(home.allocate(length(capacity), Access.ALL), 0);
    }

    /**
     * A handle for the thread owning {@code endpoint}: claims its index (a READ and a CAS of the slot's claim word)
     * and registers its queue node (two WRITEs). {@link #close()} gives the index back.
     *
     * @param endpoint the thread's endpoint
     * @param base the lock's base address
     * @param capacity the capacity the lock was created with
     * @param index this handle's index, unique among the lock's live handles, in {@code 0..capacity-1}
     * @return the handle
     * @throws IllegalStateException if a live handle holds the index already (or a crashed one did: see
     *     {@link #releaseIndex})
     */
    public static McsLock attach(Endpoint endpoint, RemoteAddress base, int capacity, int index) {
        Objects.requireNonNull(endpoint, "endpoint");
        if (index < 0 || index >= capacity) {
            throw new IllegalArgumentException("index " + index + " outside 0.." + (capacity - 1));
        }
        return new McsLock(endpoint, aligned(base, "lock"), capacity, index);
    }

    private RemoteAddress qnodeOf(long id) {
        int i = McsLockDescriptor.index(id);
        long generation = McsLockDescriptor.generation(id);
        if (i < 0 || i >= capacity || generation < 1) {
            throw new IllegalStateException("corrupt MCS lock: id " + id + " names index " + i + " (outside 0.."
                + (capacity - 1) + ") or generation " + generation);
        }
        RemoteAddress a = qnodes[i];
        if (a == null || qnodeGenerations[i] != generation) {
            // Queued handles have written their slot (R7: before their tail CAS); a slot changes only when a new
            // handle claims the index, with a new generation, so a cached address is good for its generation.
            RemoteAddress slot = McsLockDescriptor.slot(base, i);
            long key = endpoint.readLong(slot.plus(McsLockDescriptor.SLOT_KEY_OFFSET));
            long address = endpoint.readLong(slot.plus(McsLockDescriptor.SLOT_ADDRESS_OFFSET));
            a = McsLockDescriptor.qnode(key, address);
            qnodes[i] = a;
            qnodeGenerations[i] = generation;
        }
        return a;
    }

    private void checkUsable() {
        if (positionUnknown) {
            throw new IllegalStateException("a tail CAS of this handle had an unknown outcome (its queue pair failed): "
                + "whether its queue node is in the queue is unknown, so the handle cannot queue again; see reset()");
        }
    }

    /**
     * One tail CAS, its late outcome kept. Before the first CAS after the slot WRITEs the slot must be placed: the CAS
     * follows it on the same queue pair (R7), unless the queue pair was replaced since, when the slot is rewritten.
     */
    private long casTail(long expected, long desired) {
        if (!slotWritten || endpoint.queuePairEpoch(tail.nodeId()) != slotEpoch) {
            writeSlot(); // the queue pair that carried the slot WRITEs was replaced: R7 no longer orders them
        }
        try {
            return endpoint.cas(tail, expected, desired);
        } catch (VerbsTimeoutException e) {
            if (e.request() != null) {
                pendingCas = e.request();
                pendingExpected = expected;
            }
            throw e;
        } catch (RemoteAccessException e) {
            positionUnknown |= e.isIndeterminate();
            throw e;
        }
    }

    /**
     * Settles an earlier tail CAS.
     *
     * @return its old value if it succeeded, else -1 (refused: no effect)
     */
    private long settleCas() {
        UnsettledRequest u = pendingCas;
        settleWithinBudget(endpoint, u, "tail CAS at " + tail);
        pendingCas = null;
        if (u.outcome() == UnsettledRequest.Outcome.INDETERMINATE) {
            positionUnknown = true;
            checkUsable();
        }
        return u.outcome() == UnsettledRequest.Outcome.SUCCEEDED ? u.value() : -1;
    }

    @Override
    protected void acquire() {
        checkUsable();
        if (!queued) {
            long expected;
            long prev;
            if (pendingCas != null) {
                expected = pendingExpected;
                prev = settleCas();
                if (prev == -1) {
                    prev = casTail(expected, me); // refused, no effect: the same CAS again
                }
            } else {
                // Initialise our queue node before publishing it (R2 orders these stores before the CAS below).
                qnode.putLong(QNODE_LOCKED_OFFSET, 1);
                qnode.putLong(QNODE_NEXT_OFFSET, 0);
                expected = 0;
                prev = casTail(expected, me);
            }
            while (prev != expected) {
                expected = prev; // a swap built from CAS: retry with the tail we saw
                prev = casTail(expected, me);
            }
            queued = true;
            predecessor = prev;
            linked = prev == 0;
        }
        if (!linked) {
            link(); // behind the predecessor; then wait on our own memory for its handover WRITE
        }
        Backoff backoff = backoff();
        backoff.reset();
        while (predecessor != 0 && qnode.getLong(QNODE_LOCKED_OFFSET) != 0) {
            backoff.pause();
        }
        queued = false;
    }

    /**
     * WRITE pred.next := me, once. A link whose wait timed out is settled, never posted again: a second copy could land
     * in the predecessor's next tenure (after it reset its next word for a later queue) and make it hand over to a
     * handle that is not waiting; one whose queue pair failed may land at any time, so the handle stops.
     */
    private void link() {
        if (pendingLink != null) {
            UnsettledRequest.Outcome o = settleWithinBudget(endpoint, pendingLink, "link WRITE");
            pendingLink = null;
            if (o == UnsettledRequest.Outcome.SUCCEEDED) {
                linked = true;
                return;
            }
            if (o == UnsettledRequest.Outcome.INDETERMINATE) {
                positionUnknown = true;
                checkUsable();
            }
            // REFUSED: it never executed, so posting it again makes one copy
        }
        RemoteAddress next = qnodeOf(predecessor).plus(QNODE_NEXT_OFFSET);
        try {
            endpoint.writeLong(next, me, false);
        } catch (VerbsTimeoutException e) {
            pendingLink = e.request(); // null if it was never posted (past the deadline): then posted again
            throw e;
        } catch (RemoteAccessException e) {
            positionUnknown |= e.isIndeterminate();
            throw e;
        }
        linked = true;
    }

    /**
     * A release verb (the tail CAS or the handover WRITE) whose outcome is unknown: it may have passed the lock on, so
     * this handle must not claim to hold it, and cannot tell whether it may queue again.
     */
    private void releaseUnknown() {
        positionUnknown = true;
        dropHeld();
    }

    @Override
    protected LockResult attempt() {
        checkUsable();
        if (queued) {
            // Queued by an earlier lock() that did not finish: holding once the predecessor hands over.
            if (!linked) {
                link();
            }
            if (predecessor == 0 || qnode.getLong(QNODE_LOCKED_OFFSET) == 0) {
                queued = false;
                return LockResult.ACQUIRED;
            }
            return LockResult.CONTENDED;
        }
        if (pendingCas != null) {
            long expected = pendingExpected;
            long old = settleCas();
            if (old == expected) {
                if (expected == 0) {
                    return LockResult.ACQUIRED; // the late CAS took the free lock
                }
                queued = true; // a late CAS of an interrupted lock() queued us
                predecessor = old;
                linked = false;
                return attempt();
            }
        }
        qnode.putLong(QNODE_LOCKED_OFFSET, 1);
        qnode.putLong(QNODE_NEXT_OFFSET, 0);
        if (casTail(0, me) == 0) {
            return LockResult.ACQUIRED;
        }
        return LockResult.CONTENDED;
    }

    @Override
    protected boolean releasePublishes() {
        return false; // what to flush depends on whether there is a successor: release() flushes
    }

    @Override
    protected void release() {
        // A release CAS of an earlier unlock() whose completion came late is this release's CAS: settled here, never by
        // the next lock(), which would take its result (our own index) for an acquiring CAS's and queue behind itself.
        long settled = -1;
        if (pendingCas != null) {
            try {
                settled = settleCas();
            } catch (IllegalStateException e) {
                if (positionUnknown) {
                    dropHeld(); // its queue pair failed: it may have freed the tail
                }
                throw e;
            }
        }
        if (pendingHandover != null) {
            UnsettledRequest.Outcome o = settleWithinBudget(endpoint, pendingHandover, "handover WRITE");
            pendingHandover = null;
            if (o == UnsettledRequest.Outcome.SUCCEEDED) {
                return; // the late handover landed: released (a second copy could grant the successor's next wait)
            }
            if (o == UnsettledRequest.Outcome.INDETERMINATE) {
                releaseUnknown();
                throw new IllegalStateException("the handover WRITE of an earlier unlock() had an unknown outcome (its "
                    + "queue pair failed): the lock may have passed on, so this handle no longer holds it");
            }
            // REFUSED: it never executed: hand over again below
        }
        long successor = qnode.getLong(QNODE_NEXT_OFFSET);
        if (successor == 0) {
            if (isOrderedRelease()) {
                endpoint.flush(-1); // every queue pair that carried a WRITE of the critical section (R7)
            }
            // Nobody queued: free the tail (the next acquirer's CAS follows this one: rao).
            long old;
            try {
                old = settled != -1 ? settled : casTail(me, 0);
            } catch (RemoteAccessException e) {
                if (e.isIndeterminate()) {
                    releaseUnknown(); // the CAS may have freed the tail and another handle may hold the lock
                }
                throw e;
            }
            if (old == me || old == 0) {
                return; // freed (0: an operator reset the queue while we held the lock)
            }
            // Someone swapped the tail but has not linked yet: wait for its WRITE of our next word, within the budget.
            long start = endpoint.nanoTime();
            long budget = endpoint.waitBudgetNs();
            Backoff backoff = backoff();
            backoff.reset();
            while ((successor = qnode.getLong(QNODE_NEXT_OFFSET)) == 0) {
                if (endpoint.nanoTime() - start >= budget) {
                    throw new VerbsTimeoutException("the successor queued at " + tail + " has not linked within "
                        + budget + " ns (crashed?); this handle still holds the lock");
                }
                backoff.pause();
            }
        }
        RemoteAddress succ = qnodeOf(successor);
        if (isOrderedRelease()) {
            // Placed before the handover: every WRITE of the critical section, the successor's node included, so that
            // a handover posted again on a new queue pair after an error cannot overtake one (R7, R10).
            endpoint.flush(-1);
        }
        try {
            endpoint.writeLong(succ.plus(QNODE_LOCKED_OFFSET), 0, false);
        } catch (VerbsTimeoutException e) {
            pendingHandover = e.request(); // settled by the next unlock(), never posted a second time
            throw e;
        } catch (RemoteAccessException e) {
            if (e.isIndeterminate()) {
                releaseUnknown(); // it may land at any time: the successor may hold the lock
            }
            throw e;
        }
    }

    @Override
    protected void closeHandle() {
        if (pendingCas != null) {
            long expected = pendingExpected;
            try {
                if (settleCas() == expected && expected == 0) {
                    casTail(me, 0); // a late CAS took the free lock after the handle gave up: give it back
                }
            } catch (IllegalStateException e) {
                // the outcome is unknown: nothing can be undone
            }
        }
        qnode.deregister();
        // Give the index back, so that a new handle may claim it (a failure leaves it claimed: see releaseIndex).
        RemoteAddress word = McsLockDescriptor.slot(base, index).plus(McsLockDescriptor.SLOT_CLAIM_OFFSET);
        long generation = McsLockDescriptor.generation(me);
        try {
            endpoint.cas(word, McsLockDescriptor.claim(generation, ownerTag(endpoint), true),
                McsLockDescriptor.claim(generation, 0, false));
        } catch (RuntimeException e) {
            // the index stays claimed; an operator can free it with releaseIndex()
        }
    }

    /** @return this handle's index */
    public int index() {
        return index;
    }

    /** @return whether a tail CAS of this handle had an unknown outcome (the handle can no longer queue) */
    public boolean isPositionUnknown() {
        return positionUnknown;
    }

    /**
     * Operator recovery for a lock stalled by a crashed holder or waiter: frees the tail. Only call it once every
     * client in the queue is known to be gone: a live holder or waiter would lose mutual exclusion or wait for ever.
     *
     * @param endpoint any endpoint
     * @param base the lock's base address
     * @return the tail replaced
     */
    public static long reset(Endpoint endpoint, RemoteAddress base) {
        RemoteAddress t = aligned(base, "lock").plus(TAIL_OFFSET);
        while (true) {
            long current = endpoint.readLong(t);
            if (endpoint.cas(t, current, 0) == current) {
                return current;
            }
        }
    }

    /**
     * Operator recovery for an index whose handle crashed (or whose claim had an unknown outcome): gives the index
     * back so that a new handle may attach with it. Only call it once that handle is known to be gone and not in the
     * queue (after {@link #reset} if it was).
     *
     * @param endpoint any endpoint
     * @param base the lock's base address
     * @param capacity the capacity the lock was created with
     * @param index the index to free
     * @return whether it was claimed
     */
    public static boolean releaseIndex(Endpoint endpoint, RemoteAddress base, int capacity, int index) {
        if (index < 0 || index >= capacity) {
            throw new IllegalArgumentException("index " + index + " outside 0.." + (capacity - 1));
        }
        RemoteAddress word = McsLockDescriptor.slot(aligned(base, "lock"), index)
            .plus(McsLockDescriptor.SLOT_CLAIM_OFFSET);
        while (true) {
            long current = endpoint.readLong(word);
            if (!McsLockDescriptor.isClaimed(current)) {
                return false;
            }
            long free = McsLockDescriptor.claim(McsLockDescriptor.claimGeneration(current), 0, false);
            if (endpoint.cas(word, current, free) == current) {
                return true;
            }
        }
    }
}
