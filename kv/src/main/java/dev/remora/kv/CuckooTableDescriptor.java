package dev.remora.kv;

/**
 * Layout of a {@link CuckooMap}'s table in its home node's registered memory (docs/kv.md, "Layout"). Every word is
 * 8 bytes, 8-byte aligned, in the host's byte order; a "tagged word" carries 32 bits of data in its low half and a
 * 32-bit tag in its high half, so that an aligned word, which never tears (R18), carries its write's tag beside its
 * bytes.
 *
 * <pre>
 *  table region
 *  +--------------------------------------------------------------+  0
 *  | table header: magic, R, S, K, V, C, lease, margin (8 words)   |  HEADER_OFFSET
 *  +--------------------------------------------------------------+  64
 *  | client registry: next client id (FETCH_ADD only)              |  REGISTRY_OFFSET
 *  +--------------------------------------------------------------+  72 (padded to 128)
 *  | intent logs: C logs of logWords(K, V) words each              |  LOGS_OFFSET, logOffset(c, K, V)
 *  +--------------------------------------------------------------+  LOGS_OFFSET + C * logBytes(K, V)
 *  | row 0 | row 1 | ... | row R-1                                 |  rowsOffset(C, K, V), rowOffset(r, ...)
 *  +--------------------------------------------------------------+
 *
 *  row r (rowBytes(S, K, V) = 16 + S * slotBytes(K, V))
 *  +---------------------------------------------------------------+
 *  | lock word: 0 = free, else (client id + 1) &lt;&lt; 48 | op sequence  |  +0  LOCK_IN_ROW     CAS only
 *  +---------------------------------------------------------------+
 *  | version word: uint64, only FETCH_ADDed                         |  +8  VERSION_IN_ROW  FETCH_ADD only
 *  +---------------------------------------------------------------+
 *  | slot 0 | slot 1 | ... | slot S-1                              |  +16 SLOTS_IN_ROW, slotInRow(s, K, V)
 *  +---------------------------------------------------------------+
 *
 *  slot (slotBytes(K, V) = 8 * (1 + ceil(K / 4) + ceil(V / 4)))
 *    0                              31 32                            63
 *  +-------------------------------+-------------------------------+
 *  | kind:8 keyLen:8 valueLen:16   |             tag               |  slot header (word 0)
 *  +-------------------------------+-------------------------------+
 *  |       key bytes 0..3          |             tag               |  key words 1 .. keyWords(K)
 *  |       ...                     |             tag               |
 *  +-------------------------------+-------------------------------+
 *  |       value bytes 0..3        |             tag               |  value words, from valueWordIndex(K)
 *  |       ...                     |             tag               |
 *  +-------------------------------+-------------------------------+
 *
 *  intent log of client c (logBytes(K, V) = 8 * logWords(K, V)); every word's tag = the op's sequence (low 32 bits)
 *  +-------------------------------+-------------------------------+
 *  | rows:8 images:8 (16 zero)     |          op sequence          |  log header (word 0)
 *  +-------------------------------+-------------------------------+
 *  | held-with lock word, low 32   |          op sequence          |  words 1, 2: the lock word the op's rows
 *  | held-with lock word, high 32  |          op sequence          |    after the first hold (its own, or the
 *  +-------------------------------+-------------------------------+    repaired op's for a repair)
 *  | row index                     |          op sequence          |  per row held, 3 words, ascending rows:
 *  | version before the op, low 32 |          op sequence          |    the row and the version the op
 *  | version before the op, high 32|          op sequence          |    read under its lock
 *  +-------------------------------+-------------------------------+
 *  | row ordinal:8 slot:16 (8 zero)|          op sequence          |  per slot image, 1 + slotWords(K, V) words:
 *  | low half of slot word 0       |          op sequence          |    where it goes (the row's position in the
 *  | ...                           |          op sequence          |    list above) and the slot words' low halves
 *  +-------------------------------+-------------------------------+    (their tag is that row's version + 1)
 * </pre>
 *
 * <p>A log is written by WRITEs of its used prefix (header, held-with word, rows, images, packed in this order; at
 * most {@link #MAX_TRANSFER_BYTES} a WRITE, posted in order), at most {@link #MAX_LOG_ROWS} rows and
 * {@link #MAX_LOG_IMAGES} images; whole means every word of that prefix carries the op's sequence. A client's own
 * update logs its own lock word as held-with; a repair logs the repaired op's held-with word, since it takes over
 * only the op's first row and the others stay locked with that word (docs/kv.md, "Crashes"). Lock word, version
 * word and client registry are changed by atomics only (CAS, FETCH_ADD), never by a WRITE (R14).
 *
 * <p>Tags compare modulo 2^32 ({@link #tagNotAfter}). The region needs {@code REMOTE_READ}, {@code REMOTE_WRITE},
 * {@code REMOTE_ATOMIC} and {@code LOCAL_WRITE}.
 */
public final class CuckooTableDescriptor {
    /** The first header word of a table: "RemoraKV" in ASCII, big-endian. */
    public static final long MAGIC = 0x52656d6f72614b56L;

    /** Offset of the table header. */
    public static final int HEADER_OFFSET = 0;
    /** Offset of the header word holding {@link #MAGIC}. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the header word holding the number of rows R. */
    public static final int ROWS_WORD_OFFSET = 8;
    /** Offset of the header word holding the slots per row S. */
    public static final int SLOTS_WORD_OFFSET = 16;
    /** Offset of the header word holding the key capacity K in bytes. */
    public static final int KEY_CAPACITY_WORD_OFFSET = 24;
    /** Offset of the header word holding the value capacity V in bytes. */
    public static final int VALUE_CAPACITY_WORD_OFFSET = 32;
    /** Offset of the header word holding the number of client ids C. */
    public static final int CLIENTS_WORD_OFFSET = 40;
    /** Offset of the header word holding the lease L in nanoseconds. */
    public static final int LEASE_WORD_OFFSET = 48;
    /** Offset of the header word holding the margin M in nanoseconds. */
    public static final int MARGIN_WORD_OFFSET = 56;
    /** Offset of the client registry: the next client id, drawn with FETCH_ADD(+1). */
    public static final int REGISTRY_OFFSET = 64;
    /** Offset of the first intent log (the registry padded to 128 bytes). */
    public static final int LOGS_OFFSET = 128;

    /** Offset of the lock word in a row. */
    public static final int LOCK_IN_ROW = 0;
    /** Offset of the version word in a row. */
    public static final int VERSION_IN_ROW = 8;
    /** Offset of slot 0 in a row. */
    public static final int SLOTS_IN_ROW = 16;

    /** Key or value bytes per tagged word. */
    public static final int BYTES_PER_WORD = 4;
    /** Smallest key capacity. */
    public static final int MIN_KEY_CAPACITY = 16;
    /** Largest key capacity: the slot header's keyLen field has 8 bits. */
    public static final int MAX_KEY_CAPACITY = 255;
    /** Smallest value capacity: an extent reference (16 bytes) always fits. */
    public static final int MIN_VALUE_CAPACITY = 32;
    /**
     * Largest value capacity (the valueLen field has 16 bits; the map caps inline values lower, since every GET reads
     * two whole rows and larger values belong in extents).
     */
    public static final int MAX_VALUE_CAPACITY = 4096;
    /** Largest number of client ids: the lock word holds {@code client id + 1} in 16 bits. */
    public static final int MAX_CLIENTS = 0xFFFF;
    /** Bit position of {@code client id + 1} in a lock word. */
    public static final int LOCK_CLIENT_SHIFT = 48;
    /** Mask of the op sequence in a lock word. */
    public static final long LOCK_SEQUENCE_MASK = (1L << LOCK_CLIENT_SHIFT) - 1;

    /** Slot kind: no key. */
    public static final int KIND_EMPTY = 0;
    /** Slot kind: the value is in the value words. */
    public static final int KIND_INLINE = 1;
    /** Slot kind: the value words hold an extent reference (node, offset, length, version); not written yet. */
    public static final int KIND_EXTENT = 2;

    /** Most kicks on one insert's path (the path's rows beyond the new key's row). */
    public static final int MAX_KICK_DEPTH = 5;
    /** Most rows one op holds: a kick path of {@link #MAX_KICK_DEPTH} kicks and the new key's two rows. */
    public static final int MAX_LOG_ROWS = MAX_KICK_DEPTH + 2;
    /** Most slot images one op writes: the new key and every key it kicks. */
    public static final int MAX_LOG_IMAGES = MAX_KICK_DEPTH + 1;
    /** Words per row entry of a log. */
    public static final int LOG_ROW_WORDS = 3;
    /** Index of the held-with lock word's low half in a log (its high half follows). */
    public static final int LOG_HELD_WITH_WORD = 1;
    /** Index of the first row entry in a log: after the header and the held-with word's two halves. */
    public static final int LOG_ROWS_WORD = 3;
    /**
     * Most bytes the map moves in one READ or WRITE of a log: longer logs go in several, posted in order (R6 lands
     * WRITEs of one queue pair in order, so the log is still whole before any slot image of the same doorbell).
     */
    public static final int MAX_TRANSFER_BYTES = 512;

    private CuckooTableDescriptor() {
    }

    /** @return the tagged words of a key of {@code keyCapacity} bytes */
    public static int keyWords(int keyCapacity) {
        return (keyCapacity + BYTES_PER_WORD - 1) / BYTES_PER_WORD;
    }

    /** @return the tagged words of a value of {@code valueCapacity} bytes */
    public static int valueWords(int valueCapacity) {
        return (valueCapacity + BYTES_PER_WORD - 1) / BYTES_PER_WORD;
    }

    /** @return the index of the first value word in a slot */
    public static int valueWordIndex(int keyCapacity) {
        return 1 + keyWords(keyCapacity);
    }

    /** @return the words of a slot: header, key words, value words */
    public static int slotWords(int keyCapacity, int valueCapacity) {
        return 1 + keyWords(keyCapacity) + valueWords(valueCapacity);
    }

    /** @return the bytes of a slot */
    public static int slotBytes(int keyCapacity, int valueCapacity) {
        return 8 * slotWords(keyCapacity, valueCapacity);
    }

    /** @return the bytes of a row: lock word, version word, {@code slots} slots */
    public static int rowBytes(int slots, int keyCapacity, int valueCapacity) {
        return SLOTS_IN_ROW + slots * slotBytes(keyCapacity, valueCapacity);
    }

    /** @return the offset of slot {@code slot} in a row */
    public static int slotInRow(int slot, int keyCapacity, int valueCapacity) {
        return SLOTS_IN_ROW + slot * slotBytes(keyCapacity, valueCapacity);
    }

    /** @return the words of one intent log: header, {@link #MAX_LOG_ROWS} rows, {@link #MAX_LOG_IMAGES} images */
    public static int logWords(int keyCapacity, int valueCapacity) {
        return usedLogWords(MAX_LOG_ROWS, MAX_LOG_IMAGES, keyCapacity, valueCapacity);
    }

    /** @return the words of a log entry holding {@code rows} rows and {@code images} slot images */
    public static int usedLogWords(int rows, int images, int keyCapacity, int valueCapacity) {
        return LOG_ROWS_WORD + LOG_ROW_WORDS * rows + images * (1 + slotWords(keyCapacity, valueCapacity));
    }

    /** @return the bytes of one intent log */
    public static int logBytes(int keyCapacity, int valueCapacity) {
        return 8 * logWords(keyCapacity, valueCapacity);
    }

    /** @return the offset of client {@code client}'s intent log */
    public static long logOffset(int client, int keyCapacity, int valueCapacity) {
        return LOGS_OFFSET + (long) client * logBytes(keyCapacity, valueCapacity);
    }

    /** @return the offset of row 0 */
    public static long rowsOffset(int clients, int keyCapacity, int valueCapacity) {
        return LOGS_OFFSET + (long) clients * logBytes(keyCapacity, valueCapacity);
    }

    /** @return the offset of row {@code row} */
    public static long rowOffset(int row, int slots, int clients, int keyCapacity, int valueCapacity) {
        return rowsOffset(clients, keyCapacity, valueCapacity) + (long) row * rowBytes(slots, keyCapacity, valueCapacity);
    }

    /** @return the bytes of a whole table */
    public static long tableBytes(int rows, int slots, int clients, int keyCapacity, int valueCapacity) {
        return rowOffset(rows, slots, clients, keyCapacity, valueCapacity);
    }

    /** @return the tag of a tagged word (its high half) */
    public static int tagOf(long word) {
        return (int) (word >>> 32);
    }

    /** @return the data of a tagged word (its low half) */
    public static int dataOf(long word) {
        return (int) word;
    }

    /** @return a tagged word */
    public static long tagged(int tag, int data) {
        return ((long) tag << 32) | (data & 0xFFFF_FFFFL);
    }

    /** @return the low half of a slot header */
    public static int slotHeader(int kind, int keyLength, int valueLength) {
        return (kind & 0xFF) | (keyLength & 0xFF) << 8 | (valueLength & 0xFFFF) << 16;
    }

    /** @return the kind field of a slot header's data */
    public static int kindOf(int header) {
        return header & 0xFF;
    }

    /** @return the keyLen field of a slot header's data */
    public static int keyLengthOf(int header) {
        return (header >>> 8) & 0xFF;
    }

    /** @return the valueLen field of a slot header's data */
    public static int valueLengthOf(int header) {
        return (header >>> 16) & 0xFFFF;
    }

    /** @return a held lock word: {@code (client + 1) << 48 | sequence} */
    public static long lockWord(int client, long sequence) {
        return ((long) (client + 1) << LOCK_CLIENT_SHIFT) | (sequence & LOCK_SEQUENCE_MASK);
    }

    /** @return the client id a held lock word names ({@code -1} for 0, a free lock) */
    public static int lockClient(long lockWord) {
        return (int) (lockWord >>> LOCK_CLIENT_SHIFT) - 1;
    }

    /** @return the op sequence a held lock word names */
    public static long lockSequence(long lockWord) {
        return lockWord & LOCK_SEQUENCE_MASK;
    }

    /** @return the low half of a log header */
    public static int logHeader(int rows, int images) {
        return (rows & 0xFF) | (images & 0xFF) << 8;
    }

    /** @return the low half of a log image's placement word */
    public static int logPlacement(int rowOrdinal, int slot) {
        return (rowOrdinal & 0xFF) | (slot & 0xFFFF) << 8;
    }

    /**
     * Whether tag {@code t} is at most version {@code v}, modulo 2^32: {@code t} was written before the version
     * {@code v} was read, unless 2^31 writes of the row came between.
     */
    public static boolean tagNotAfter(int t, long v) {
        return (t - (int) v) <= 0;
    }
}
