package dev.remora.locks;

import dev.remora.verbs.RemoteAddress;

/**
 * The memory layout of an {@link McsLock}: a tail word and a slot table in the home node's registered memory, and one
 * queue node per handle in the handle's own node's memory.
 *
 * <p>Home (participant {@code i} is a handle's index, {@code 0 <= i < capacity}):
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |   tail: 0 = free, else index + 1 of the last queued handle    |  offset 0 (remote CAS only: R14)
 *  +---------------------------------------------------------------+
 *  |   slot[i].key: node id (high 32 bits) | qnode rkey (low 32)   |  offset 8 + 16 i
 *  +---------------------------------------------------------------+
 *  |   slot[i].address: qnode virtual address                      |  offset 16 + 16 i
 *  +---------------------------------------------------------------+
 *   region access: REMOTE_ATOMIC (tail), REMOTE_READ, REMOTE_WRITE (slots, written once by their handle)
 * </pre>
 * A handle's queue node:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |   locked: 1 while waiting; the predecessor WRITEs 0            |  offset 0
 *  +---------------------------------------------------------------+
 *  |   next: 0, or index + 1 of the successor (it WRITEs this)      |  offset 8
 *  +---------------------------------------------------------------+
 *   region access: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ; each word has one remote writer, read by the owner's CPU
 * </pre>
 */
public final class McsLockDescriptor {
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
    /** The most handles a lock can have. */
    public static final int MAX_CAPACITY = 1 << 20;

    private McsLockDescriptor() {
    }

    /**
     * @param capacity the most handles
     * @return the bytes a lock for them occupies at its home
     */
    public static int length(int capacity) {
        return SLOTS_OFFSET + SLOT_LENGTH * capacity;
    }

    /**
     * @param base the lock's base address
     * @param index a handle's index
     * @return the address of its slot
     */
    public static RemoteAddress slot(RemoteAddress base, long index) {
        return base.plus(SLOTS_OFFSET + SLOT_LENGTH * index);
    }

    /**
     * @param qnode a queue node's address
     * @return the slot's key word for it: node id (high 32 bits) and rkey (low 32)
     */
    public static long slotKey(RemoteAddress qnode) {
        return ((long) qnode.nodeId() << 32) | (qnode.rkey() & 0xFFFF_FFFFL);
    }

    /**
     * @param key a slot's key word
     * @param address a slot's address word
     * @return the queue node they name
     */
    public static RemoteAddress qnode(long key, long address) {
        return new RemoteAddress((int) (key >>> 32), (int) key, address);
    }
}
