package dev.remora.objects;

/**
 * Layout of an {@link MpscRing} in the consumer's registered memory.
 *
 * <pre>
 *   offset   0 +--------------------------------------------------------------+
 *              | tail: int64, positions ever reserved (producers FETCH_ADD 1) |
 *   offset  64 +--------------------------------------------------------------+  (own cache line)
 *              | head: int64, positions ever consumed or skipped (consumer's  |
 *              | CPU stores it; producers READ it when their copy says full)  |
 *   offset 128 +--------------------------------------------------------------+
 *              | slots: int64 | slot payload bytes: int64 | skip timeout ns   |  (set at creation)
 *   offset 192 +--------------------------------------------------------------+
 *              | slot 0 | slot 1 | ... | slot (slots - 1)                     |
 *              +--------------------------------------------------------------+
 *   slot, SLOT_LENGTH(payload) bytes:
 *              +0  sequence: int64   0 = never used; p + 1 = committed for position p;
 *                                    -(p + 1) = position p skipped by the consumer
 *              +8  length: int64     payload bytes, 0..payload
 *              +16 payload, padded to 8 bytes
 * </pre>
 *
 * Position {@code p} lives in slot {@code p % slots}. Slots have a fixed size (a reservation is one FETCH_ADD of 1,
 * so every position must have the same size); a message is at most the slot payload. The tail word is touched only
 * by remote atomics, never by a CPU store (R14). The region needs {@code LOCAL_WRITE}, {@code REMOTE_WRITE},
 * {@code REMOTE_READ} and {@code REMOTE_ATOMIC}, without relaxed ordering (R19).
 */
public final class MpscRingDescriptor {
    /** Offset of the tail (reservation) word. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of the head word. */
    public static final int HEAD_OFFSET = 64;
    /** Offset of the slot count word. */
    public static final int SLOTS_WORD_OFFSET = 128;
    /** Offset of the slot payload size word. */
    public static final int PAYLOAD_WORD_OFFSET = 136;
    /** Offset of the skip timeout word. */
    public static final int SKIP_TIMEOUT_OFFSET = 144;
    /** Offset of slot 0. */
    public static final int SLOTS_OFFSET = 192;
    /** Offset of the sequence word in a slot. */
    public static final int SEQUENCE_IN_SLOT = 0;
    /** Offset of the length word in a slot. */
    public static final int LENGTH_IN_SLOT = 8;
    /** Offset of the payload in a slot. */
    public static final int PAYLOAD_IN_SLOT = 16;

    private MpscRingDescriptor() {
    }

    /**
     * @param payload slot payload bytes
     * @return bytes of one slot
     */
    public static int slotLength(int payload) {
        return PAYLOAD_IN_SLOT + ((payload + 7) & ~7);
    }

    /**
     * @param slots number of slots
     * @param payload slot payload bytes
     * @return bytes of the whole region
     */
    public static long regionLength(int slots, int payload) {
        return SLOTS_OFFSET + (long) slots * slotLength(payload);
    }

    /** @return the sequence value that commits position {@code p} */
    static long committed(long p) {
        return p + 1;
    }

    /** @return the sequence value that marks position {@code p} skipped */
    static long skipped(long p) {
        return -(p + 1);
    }
}
