package dev.remora.objects;

/**
 * Layout of an {@link SpscRing} in the consumer's registered memory.
 *
 * <pre>
 *   offset   0 +--------------------------------------------------------------+
 *              | tail: int64, bytes ever published (the producer WRITEs it)   |
 *   offset  64 +--------------------------------------------------------------+  (own cache line)
 *              | head: int64, bytes ever consumed (the consumer's CPU stores  |
 *              | it; the producer READs it when its cached copy says full)    |
 *   offset 128 +--------------------------------------------------------------+
 *              | capacity: int64, bytes of the slot area (set at creation)    |
 *   offset 192 +--------------------------------------------------------------+
 *              | slot area: capacity bytes, a sequence of records             |
 *              |   record = length: int64 | payload, padded to 8 bytes        |
 *              |   length PAD (-1): the rest of this lap is unused, go to 0   |
 *              +--------------------------------------------------------------+
 * </pre>
 *
 * Positions ({@code tail}, {@code head}) grow forever; a position's record starts at
 * {@code SLOTS_OFFSET + position % capacity}. A record never straddles the end of the area: when it does not fit
 * before the end, a PAD length word is written at the position and the record starts at offset 0 of the area. Every
 * record is 8-byte aligned and at least 8 bytes long, so the PAD word always fits. A payload is at most
 * {@code (capacity / 2 rounded down to a multiple of 8) - 8} bytes, so that its record is at most {@code capacity / 2}
 * bytes, the bound on a batch's records (with {@code capacity / 2 - 8}, a longest payload's record would exceed half a
 * capacity that is an odd multiple of 8, and {@code offer} would refuse it); so any record fits into an empty ring
 * whatever the position (it fits before the end, or after the pad). The region needs {@code LOCAL_WRITE}, {@code REMOTE_WRITE} and {@code REMOTE_READ}, and must not
 * be registered with relaxed ordering (R19 would drop the order of data and tail, R6).
 */
public final class SpscRingDescriptor {
    /** Offset of the tail word. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of the head word. */
    public static final int HEAD_OFFSET = 64;
    /** Offset of the capacity word. */
    public static final int CAPACITY_OFFSET = 128;
    /** Offset of the slot area. */
    public static final int SLOTS_OFFSET = 192;
    /** Bytes of a record's length word. */
    public static final int LENGTH_WORD = 8;
    /** The length word of a padding record. */
    public static final long PAD = -1;
    /** Smallest capacity. */
    public static final int MIN_CAPACITY = 32;

    private SpscRingDescriptor() {
    }

    /**
     * @param capacity bytes of the slot area
     * @return bytes of the whole region
     */
    public static long regionLength(int capacity) {
        return SLOTS_OFFSET + (long) capacity;
    }

    /**
     * @param capacity bytes of the slot area
     * @return the largest payload a ring of this capacity accepts
     */
    public static int maxPayload(int capacity) {
        return (capacity / 2 & ~7) - LENGTH_WORD;
    }

    /**
     * @param payloadLength bytes of payload
     * @return bytes of its record (length word and payload padded to 8)
     */
    public static int recordLength(int payloadLength) {
        return LENGTH_WORD + ((payloadLength + 7) & ~7);
    }
}
