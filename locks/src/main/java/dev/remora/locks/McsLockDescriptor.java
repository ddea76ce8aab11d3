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
 *  |   tail: 0 = free, else the id of the last queued handle       |  offset 0 (remote CAS only: R14)
 *  +---------------------------------------------------------------+
 *  |   slot[i].claim: generation | owner tag | 1 while claimed     |  offset 8 + 24 i (remote CAS only: R14)
 *  +---------------------------------------------------------------+
 *  |   slot[i].key: node id (high 32 bits) | qnode rkey (low 32)   |  offset 16 + 24 i
 *  +---------------------------------------------------------------+
 *  |   slot[i].address: qnode virtual address                      |  offset 24 + 24 i
 *  +---------------------------------------------------------------+
 *   region access: REMOTE_ATOMIC (tail, claims), REMOTE_READ, REMOTE_WRITE (key and address, written by the handle
 *   that holds the claim)
 * </pre>
 * A handle's id, in the tail and in a queue node's next word, names its index and the generation of its claim:
 * <pre>
 *   63                                      21 20                  0
 *  +------------------------------------------+---------------------+
 *  |   claim generation (1 .. 2^43 - 1)       |   index + 1         |
 *  +------------------------------------------+---------------------+
 * </pre>
 * The claim word:
 * <pre>
 *   63                                21 20                      1   0
 *  +------------------------------------+-------------------------+---+
 *  |   generation (0 .. 2^42 - 1)       |   owner tag (20 bits)   | c |
 *  +------------------------------------+-------------------------+---+
 * </pre>
 * A handle claims its index when it attaches (CAS on the claim word: unclaimed generation g to claimed g + 1 with its
 * endpoint's owner tag) and gives it back when it closes (to unclaimed g + 1); a second live handle with the same
 * index finds the word claimed under another tag and is refused. The tag lets an attach retried on the same endpoint
 * after a claim CAS with an unknown outcome recognise its own claim (a best-effort check: two endpoints' tags collide
 * with probability 2^-20). The generation in an id tells a cached queue-node address from a slot that a later
 * handle of the same index has rewritten since.
 *
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
    public static final int SLOT_LENGTH = 24;
    /** Offset of a slot's claim word in the slot. */
    public static final int SLOT_CLAIM_OFFSET = 0;
    /** Offset of a slot's key word in the slot. */
    public static final int SLOT_KEY_OFFSET = 8;
    /** Offset of a slot's address word in the slot. */
    public static final int SLOT_ADDRESS_OFFSET = 16;
    /** Bits of an id that hold index + 1. */
    public static final int INDEX_BITS = 21;
    /** The largest claim generation; the next claim of an index at it is refused. */
    public static final long MAX_GENERATION = (1L << (63 - INDEX_BITS)) - 1;
    /** Bits of a claim word's owner tag. */
    public static final int TAG_BITS = 20;
    private static final long TAG_MASK = (1L << TAG_BITS) - 1;
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
     * @param index a handle's index
     * @param generation the generation of its claim, positive
     * @return its id
     */
    public static long id(long index, long generation) {
        if (index < 0 || index >= MAX_CAPACITY || generation < 1 || generation > MAX_GENERATION) {
            throw new IllegalArgumentException("no MCS id for index " + index + ", generation " + generation);
        }
        return (generation << INDEX_BITS) | (index + 1);
    }

    /**
     * @param id a handle's id (non-zero)
     * @return its index
     */
    public static int index(long id) {
        return (int) (id & ((1L << INDEX_BITS) - 1)) - 1;
    }

    /**
     * @param id a handle's id (non-zero)
     * @return the generation of its claim
     */
    public static long generation(long id) {
        return id >>> INDEX_BITS;
    }

    /**
     * @param generation a claim generation, at most {@link #MAX_GENERATION}
     * @param tag the claiming endpoint's owner tag (its low {@link #TAG_BITS} bits are kept)
     * @param claimed whether a live handle holds it
     * @return the claim word
     */
    public static long claim(long generation, long tag, boolean claimed) {
        return (generation << (TAG_BITS + 1)) | ((tag & TAG_MASK) << 1) | (claimed ? 1 : 0);
    }

    /**
     * @param claim a claim word
     * @return its owner tag
     */
    public static long claimTag(long claim) {
        return (claim >>> 1) & TAG_MASK;
    }

    /**
     * @param claim a claim word
     * @return whether a live handle holds it
     */
    public static boolean isClaimed(long claim) {
        return (claim & 1) != 0;
    }

    /**
     * @param claim a claim word
     * @return its generation
     */
    public static long claimGeneration(long claim) {
        return claim >>> (TAG_BITS + 1);
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
