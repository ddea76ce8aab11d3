package dev.remora.kv;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A hash map of byte-array keys and values in one memory node's registered region, read and written by clients
 * with one-sided verbs only: a two-choice cuckoo table of {@code R} rows of {@code S} slots, values inline, rows
 * locked by CAS for updates, GETs lock-free, rows left locked by a crashed client repaired by the next client that
 * finds them so (docs/kv.md; layout: {@link CuckooTableDescriptor}). The memory node's CPU takes no part after
 * {@link #allocate}.
 *
 * <p>A key of at most {@code K} bytes lives in one of its two rows {@code h1}, {@code h2} (two hashes of its bytes,
 * {@code h2 != h1}). Every write of a slot writes its whole image, all words tagged {@code v + 1} where {@code v} is
 * the row's version, which the writer then bumps; a GET accepts a row only if every slot's words carry one tag, none
 * above the version it read first, so it never returns a mix of two writes nor another key's value.
 *
 * <table>
 *   <caption>Verbs and round trips per method (uncontended)</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #get}, {@link #lookup}</td><td>one doorbell: FETCH_ADD(version h1, 0), FETCH_ADD(version h2, 0),
 *       READ row h1, READ row h2; again with back-off while a writer is inside a row, at most
 *       {@value #MAX_GET_ATTEMPTS} times</td><td>1</td></tr>
 *   <tr><td>{@link #put}, {@link #update}, {@link #delete}, {@link #compareAndSet}</td><td>doorbell 1: CAS(lock, 0
 *       &rarr; me) of both rows in row order, READ of both rows; doorbell 2: WRITE of the intent log, WRITE of the
 *       slot image, FETCH_ADD(version, +1) and CAS(lock, me &rarr; 0) of both rows. When nothing is to be written
 *       (a miss, a mismatch) doorbell 2 is the unlock CASes only</td><td>2</td></tr>
 *   <tr><td>{@link #put} of a new key into two full rows (a kick)</td><td>the above up to the READ, the unlock
 *       CASes, one doorbell of READs per level of the breadth-first search (at most {@value
 *       CuckooTableDescriptor#MAX_KICK_DEPTH} levels, {@value #MAX_SEARCH_ROWS} rows), then doorbell 1 and 2 over
 *       every row of the path and the key's other row</td><td>4 + levels</td></tr>
 *   <tr><td>a repair (inside any call that finds a lock word unchanged for the lease; {@link #recover})</td><td>READ
 *       of the holder's intent log; then either CAS(lock, word &rarr; 0) (the log does not name the op: it wrote
 *       nothing), or WRITE of this handle's log, CAS(first row's lock, word &rarr; mine), FETCH_ADD(its version, 0),
 *       then WRITEs of the logged images, CAS(version, v &rarr; v + 1) and unlock CASes of the op's rows</td>
 *       <td>2 or 3</td></tr>
 * </table>
 *
 * <p>A writer that finds, in a row it holds, a slot whose tag is {@value #REFRESH_AGE} or more versions behind the
 * row's first rewrites it unchanged (one more doorbell 2, and a new doorbell 1), so that no tag falls 2^31 behind and
 * compares as ahead modulo 2^32 (docs/kv.md, "Old slots are refreshed").
 *
 * <p><b>Contention and crashes.</b> A lock CAS that fails releases the locks taken (CAS me &rarr; 0), then, with
 * back-off, READs only the lock words it found held (one doorbell each time) until they are free, and tries again;
 * after {@value #MAX_LOCK_ATTEMPTS} attempts and readings the update answers {@link Status#BUSY}, having changed
 * nothing. A holder posts doorbell 2 only within {@code lease - margin} of posting its lock CASes, and otherwise
 * releases and retries. Each handle remembers, per row, the lock word it last saw held there (a lock CAS that
 * failed, a READ of that lock word while it waited, the lock word of a row a GET rejected) and since when; a call
 * that sees the same word again at least a lease later repairs the row (docs/kv.md, "Crashes"): it rolls the
 * holder's logged op forward, or only unlocks if the log does not name the op. So a client that crashed at any step
 * costs the others {@link Status#BUSY} answers for about a lease, never a lost acknowledged write, a duplicate key or
 * a row locked for good; what a handle remembers survives its calls, so a GET or update that answered BUSY repairs on
 * a later call once the lease has passed. {@link #recover} repairs a whole table.
 *
 * <p><b>Errors.</b> A verb that fails throws {@link RemoteAccessException}, one that does not complete in the
 * endpoint's wait budget {@link VerbsTimeoutException}; for an update both are indeterminate (record {@code info}):
 * it took effect or it did not, and if its rows stay locked, the next client repairs them after the lease. After a
 * timeout, or a failure of any verb that writes the table, the handle refuses further calls
 * ({@link IllegalStateException}): the NIC may still use its buffers (R3, R4), and its intent log must stay as it is
 * for a repairer (a failed GET leaves the handle usable).
 *
 * <p>One handle per thread ({@link #attach} draws a client id from the table's registry; the table has
 * {@code clients} ids, never reused). Bad input (null, a key or value longer than the capacity) throws
 * {@link IllegalArgumentException} naming the limit.
 */
public final class CuckooMap implements AutoCloseable {
    /** Snapshots a GET reads before it answers BUSY. */
    public static final int MAX_GET_ATTEMPTS = 256;
    /** Attempts at the locks an update makes before it answers BUSY. */
    public static final int MAX_LOCK_ATTEMPTS = 1 << 12;
    /** Most rows one breadth-first search for a kick path reads. */
    public static final int MAX_SEARCH_ROWS = 128;
    /**
     * A slot whose tag is this many versions or more behind its row's is rewritten unchanged (with a fresh tag) by the
     * next writer that holds the row, so that no tag ever falls 2^31 behind and reads as ahead modulo 2^32.
     */
    public static final long REFRESH_AGE = 1L << 30;
    /** Most rows whose lock words a handle remembers (the oldest is forgotten first). */
    static final int MAX_WATCHED = 1024;

    private static final long HASH1_SEED = 0x9E3779B97F4A7C15L;
    private static final long HASH2_SEED = 0xC2B2AE3D27D4EB4FL;

    /** What an operation did. */
    public enum Status {
        /** Done: found (get), written (put, update, delete), or compared equal and written (compareAndSet). */
        OK,
        /** The key is not in the map (get, update, delete); nothing was written. */
        NOT_FOUND,
        /** A new key found no free slot within the kick search's bounds; nothing was written. */
        TABLE_FULL,
        /** The rows stayed contended (locked, or written under every snapshot) for the attempt bound; nothing changed. */
        BUSY,
        /** compareAndSet: the current value (or absence) differs from the expected one; nothing was written. */
        CAS_MISMATCH
    }

    /**
     * The outcome of an operation.
     *
     * @param status what it did
     * @param value get/lookup: the value found; put, update, delete: the value the key had before (null if absent);
     *     compareAndSet: the value before on OK, the current value on CAS_MISMATCH (null if absent); null otherwise
     */
    public record Result(Status status, byte[] value) {
        /** @return whether the status is {@link Status#OK} */
        public boolean isOk() {
            return status == Status.OK;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Result r && r.status == status && Arrays.equals(r.value, value);
        }

        @Override
        public int hashCode() {
            return status.hashCode() * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return status + (value == null ? "" : "(" + value.length + " bytes)");
        }
    }

    /** The table's shape, fixed at creation. */
    public static final class Params {
        /** Default lease: how long a lock word may stay unchanged before a waiter may repair it. */
        public static final long LEASE_NS_DEFAULT = 100_000_000L;
        /** Default margin under the lease a holder keeps for drift and the delivery of its WRITEs. */
        public static final long MARGIN_NS_DEFAULT = 20_000_000L;

        private int rows = 1024;
        private int slotsPerRow = 4;
        private int keyCapacity = 16;
        private int valueCapacity = 32;
        private int clients = 64;
        private long leaseNs = LEASE_NS_DEFAULT;
        private long marginNs = MARGIN_NS_DEFAULT;

        /** Defaults: 1,024 rows of 4 slots, 16-byte keys, 32-byte values, 64 clients. */
        public Params() {
        }

        /** @param n rows, a power of two, at least 2 @return this */
        public Params rows(int n) {
            this.rows = n;
            return this;
        }

        /** @param n slots per row, 1 to 64 @return this */
        public Params slotsPerRow(int n) {
            this.slotsPerRow = n;
            return this;
        }

        /** @param bytes key capacity, {@value CuckooTableDescriptor#MIN_KEY_CAPACITY} to
         *     {@value CuckooTableDescriptor#MAX_KEY_CAPACITY} @return this */
        public Params keyCapacity(int bytes) {
            this.keyCapacity = bytes;
            return this;
        }

        /** @param bytes value capacity, {@value CuckooTableDescriptor#MIN_VALUE_CAPACITY} to
         *     {@value CuckooTableDescriptor#MAX_VALUE_CAPACITY} @return this */
        public Params valueCapacity(int bytes) {
            this.valueCapacity = bytes;
            return this;
        }

        /** @param n client ids (handles ever attached), 1 to {@value CuckooTableDescriptor#MAX_CLIENTS} @return this */
        public Params clients(int n) {
            this.clients = n;
            return this;
        }

        /** @param nanos the lease, positive @param margin the margin, 0 &le; margin &lt; lease @return this */
        public Params lease(long nanos, long margin) {
            this.leaseNs = nanos;
            this.marginNs = margin;
            return this;
        }

        /** @return rows */
        public int rows() {
            return rows;
        }

        /** @return slots per row */
        public int slotsPerRow() {
            return slotsPerRow;
        }

        /** @return key capacity in bytes */
        public int keyCapacity() {
            return keyCapacity;
        }

        /** @return value capacity in bytes */
        public int valueCapacity() {
            return valueCapacity;
        }

        /** @return client ids */
        public int clients() {
            return clients;
        }

        /** @return the lease in nanoseconds */
        public long leaseNs() {
            return leaseNs;
        }

        /** @return the margin in nanoseconds */
        public long marginNs() {
            return marginNs;
        }

        /**
         * @return this
         * @throws IllegalArgumentException naming the setting out of its range
         */
        public Params conclude() {
            if (rows < 2 || Integer.bitCount(rows) != 1) {
                throw new IllegalArgumentException("rows must be a power of two, at least 2: " + rows);
            }
            if (slotsPerRow < 1 || slotsPerRow > 64) {
                throw new IllegalArgumentException("slotsPerRow must be in 1..64: " + slotsPerRow);
            }
            if (keyCapacity < CuckooTableDescriptor.MIN_KEY_CAPACITY
                || keyCapacity > CuckooTableDescriptor.MAX_KEY_CAPACITY) {
                throw new IllegalArgumentException("keyCapacity must be in " + CuckooTableDescriptor.MIN_KEY_CAPACITY
                    + ".." + CuckooTableDescriptor.MAX_KEY_CAPACITY + ": " + keyCapacity);
            }
            if (valueCapacity < CuckooTableDescriptor.MIN_VALUE_CAPACITY
                || valueCapacity > CuckooTableDescriptor.MAX_VALUE_CAPACITY) {
                throw new IllegalArgumentException("valueCapacity must be in " + CuckooTableDescriptor.MIN_VALUE_CAPACITY
                    + ".." + CuckooTableDescriptor.MAX_VALUE_CAPACITY + ": " + valueCapacity);
            }
            if (clients < 1 || clients > CuckooTableDescriptor.MAX_CLIENTS) {
                throw new IllegalArgumentException("clients must be in 1.." + CuckooTableDescriptor.MAX_CLIENTS + ": "
                    + clients);
            }
            if (leaseNs <= 0 || marginNs < 0 || marginNs >= leaseNs) {
                throw new IllegalArgumentException("lease must be positive and margin in 0..lease-1: lease " + leaseNs
                    + " ns, margin " + marginNs + " ns");
            }
            long bytes = CuckooTableDescriptor.tableBytes(rows, slotsPerRow, clients, keyCapacity, valueCapacity);
            if (CuckooTableDescriptor.rowBytes(slotsPerRow, keyCapacity, valueCapacity) * (long) MAX_SEARCH_ROWS
                > Integer.MAX_VALUE || bytes <= 0) {
                throw new IllegalArgumentException("rows of " + slotsPerRow + " slots of " + keyCapacity + "+"
                    + valueCapacity + " bytes are too large");
            }
            return this;
        }
    }

    /**
     * Where a handle is in its protocol: each doorbell it rings, for tests that crash a client at a chosen step and
     * for {@link #lastPoint()}. Package-private: no production behaviour depends on it.
     */
    enum Point {
        /** A GET's doorbell. */
        GET(false),
        /** A kick search's READs. */
        SEARCH(false),
        /** {@link #recover}'s READs of lock words. */
        SCAN(false),
        /** Doorbell 1: lock CASes and READs. */
        LOCK(true),
        /** READs of the lock words a failed lock attempt found held, before the next attempt. */
        PROBE(false),
        /** Unlock CASes of rows held, nothing written. */
        RELEASE(true),
        /** Doorbell 2 of an update of one slot. */
        COMMIT(true),
        /** Doorbell 2 of an insert along a kick path. */
        KICK(true),
        /** Doorbell 2 of a refresh of old slots. */
        REFRESH(true),
        /** Repair: the READ of the holder's log. */
        REPAIR_READ_LOG(false),
        /** Repair: the unlock of a row whose op wrote nothing. */
        REPAIR_UNLOCK(true),
        /** Repair: the WRITE of the repairer's log, the takeover CAS of the op's first row and its version. */
        REPAIR_TAKE(true),
        /** Repair: the word put back on the first row by a repairer past its lease, having written nothing. */
        REPAIR_RESTORE(true),
        /** Repair: the images rewritten, the versions bumped, the rows unlocked. */
        REPAIR_ROLL_FORWARD(true),
        /** Repair: the versions bumped and the rows unlocked (every image was placed already). */
        REPAIR_FINISH(true);

        /** Whether the doorbell may change the table (its failure breaks the handle). */
        final boolean writes;

        Point(boolean writes) {
            this.writes = writes;
        }
    }

    /**
     * A test's view of each doorbell: before posting (how many of its requests to post) and after posting, before the
     * handle waits. Package-private, null in production; a hook may throw to abandon the call (a client crash), and
     * one that posts fewer requests than asked must throw from {@link #afterPost}.
     */
    interface Hook {
        /**
         * @param point the doorbell
         * @param requests how many requests it has
         * @return how many of them, from the first, to post
         */
        default int beforePost(Point point, int requests) {
            return requests;
        }

        /** @param point the doorbell just posted */
        default void afterPost(Point point) {
        }
    }

    // Local buffer: atomic results, then the rows an op reads, then the staging of its log and slot images, then a
    // peer's log read by a repair.
    private static final int LOCK_RESULTS = 0;
    private static final int BUMP_RESULTS = 8 * CuckooTableDescriptor.MAX_LOG_ROWS;
    private static final int UNLOCK_RESULTS = 16 * CuckooTableDescriptor.MAX_LOG_ROWS;
    private static final int TAKE_RESULT = 24 * CuckooTableDescriptor.MAX_LOG_ROWS;
    private static final int VERSION_RESULT = TAKE_RESULT + 8;
    private static final int ROWS_AT = 256;

    private final Endpoint endpoint;
    private final RemoteAddress table;
    private final int rows;
    private final int slots;
    private final int keyCapacity;
    private final int valueCapacity;
    private final int clients;
    private final long leaseNs;
    private final long marginNs;
    private final int client;
    private final int slotWords;
    private final int slotBytes;
    private final int rowBytes;
    private final int rowWords;
    private final long rowsOffset;
    private final RemoteAddress log;
    private final MemoryRegion local;
    private final long logAt;
    private final long imagesAt;
    private final long peerLogAt;
    private MemoryRegion search;
    private final WaitTag tag;
    private final WorkRequest[] wrs;
    private long sequence;
    private long kicks;
    private long repairs;
    private boolean broken;
    private boolean closed;

    // The rows the current update holds, ascending, and the lock word it holds them with; a copy of them as read.
    private final int[] held = new int[CuckooTableDescriptor.MAX_LOG_ROWS];
    private int heldCount;
    private long me;
    // The rows the last lock attempt found held by others.
    private final int[] contended = new int[CuckooTableDescriptor.MAX_LOG_ROWS];
    private int contendedCount;
    private final long[] rowsCopy;
    private long[] searchCopy;
    private final long[] logCopy;

    // Rows whose lock word this handle saw held: the word, and since when (the fabric's clock).
    private final java.util.LinkedHashMap<Integer, Watch> watched = new java.util.LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Watch> eldest) {
            return size() > MAX_WATCHED; // forgetting a row only restarts its clock at the next sighting
        }
    };

    /** A row's lock word as last seen held, since when, and whether it is due for repair. */
    private static final class Watch {
        long word;
        long since;
        boolean due;
    }
    /** The rows of the op the last repair finished (empty if it finished none). */
    private int[] lastRepaired = new int[0];

    /**
     * The seed design's write path, which tests run to show what its defects break. Package-private; production
     * handles are always {@link #SAFE}.
     */
    enum Variant {
        /** The map's doorbell 2: log, images, bumps, unlocks. */
        SAFE,
        /** The seed design's order: the bumps and unlocks before the slot WRITEs (released before written). */
        SEED_EARLY_UNLOCK,
        /** The seed design's versions: each row's version reset to 0 when it is unlocked. */
        SEED_VERSION_RESET,
        /**
         * A PUT of a key present in its rows that lets the rows go between its read and its write: it releases them
         * after doorbell 1, locks them again, and writes (and returns as the previous value) what the first read
         * found, so a PUT that ran in between is overwritten without being seen: a lost update, which a history
         * shows only through the previous values the PUTs return.
         */
        LOST_UPDATE
    }

    /** Tests only: see {@link Hook}. */
    Hook hook;
    /** Tests only: see {@link Variant}. */
    Variant variant = Variant.SAFE;
    private Point point = Point.GET;

    private CuckooMap(Endpoint endpoint, RemoteAddress table, long[] header, int client) {
        this.endpoint = endpoint;
        this.table = table;
        this.rows = (int) header[1];
        this.slots = (int) header[2];
        this.keyCapacity = (int) header[3];
        this.valueCapacity = (int) header[4];
        this.clients = (int) header[5];
        this.leaseNs = header[6];
        this.marginNs = header[7];
        this.client = client;
        this.slotWords = CuckooTableDescriptor.slotWords(keyCapacity, valueCapacity);
        this.slotBytes = CuckooTableDescriptor.slotBytes(keyCapacity, valueCapacity);
        this.rowBytes = CuckooTableDescriptor.rowBytes(slots, keyCapacity, valueCapacity);
        this.rowWords = rowBytes / 8;
        this.rowsOffset = CuckooTableDescriptor.rowsOffset(clients, keyCapacity, valueCapacity);
        this.log = table.plus(CuckooTableDescriptor.logOffset(client, keyCapacity, valueCapacity));
        int logBytes = CuckooTableDescriptor.logBytes(keyCapacity, valueCapacity);
        this.logAt = ROWS_AT + (long) CuckooTableDescriptor.MAX_LOG_ROWS * rowBytes;
        this.imagesAt = logAt + logBytes;
        this.peerLogAt = imagesAt + (long) CuckooTableDescriptor.MAX_LOG_IMAGES * slotBytes;
        this.local = endpoint.node().allocate(peerLogAt + logBytes, Access.LOCAL_WRITE);
        this.tag = endpoint.newTag("cuckoo-map");
        int logChunks = (logBytes + CuckooTableDescriptor.MAX_TRANSFER_BYTES - 1) / CuckooTableDescriptor.MAX_TRANSFER_BYTES;
        this.wrs = new WorkRequest[Math.max(MAX_SEARCH_ROWS,
            logChunks + CuckooTableDescriptor.MAX_LOG_IMAGES + 4 * CuckooTableDescriptor.MAX_LOG_ROWS)];
        for (int i = 0; i < wrs.length; i++) {
            wrs[i] = new WorkRequest();
        }
        this.rowsCopy = new long[CuckooTableDescriptor.MAX_LOG_ROWS * rowWords];
        this.logCopy = new long[CuckooTableDescriptor.logWords(keyCapacity, valueCapacity)];
    }
    /**
     * Allocates an empty table in {@code home}'s memory (its CPU writes the header; the rows are zero: every slot
     * {@code EMPTY}, every lock free, every version 0) and attaches a handle for {@code endpoint}'s thread. Then
     * the home's CPU takes no further part. Two round trips (the handle's attach).
     *
     * @param endpoint the calling thread's endpoint (on any node)
     * @param home the node whose memory holds the table
     * @param params the table's shape
     * @return a handle; {@link #address()} is what other clients {@link #attach}
     */
    public static CuckooMap create(Endpoint endpoint, Node home, Params params) {
        Objects.requireNonNull(endpoint, "endpoint");
        return attach(endpoint, allocate(home, params));
    }

    /**
     * Allocates an empty table in {@code home}'s memory, as {@link #create} does, without attaching a handle: no
     * verbs, only the home's CPU stores.
     *
     * @param home the node whose memory holds the table
     * @param params the table's shape
     * @return the table's address, for {@link #attach}
     */
    public static RemoteAddress allocate(Node home, Params params) {
        return allocateRegion(home, params).remote(0);
    }

    /** {@link #allocate}, returning the region itself (tests read the table's memory directly after a run). */
    static MemoryRegion allocateRegion(Node home, Params params) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(params, "params").conclude();
        long bytes = CuckooTableDescriptor.tableBytes(params.rows(), params.slotsPerRow(), params.clients(),
            params.keyCapacity(), params.valueCapacity());
        MemoryRegion region = home.allocate(bytes, Access.ALL);
        region.putLong(CuckooTableDescriptor.ROWS_WORD_OFFSET, params.rows());
        region.putLong(CuckooTableDescriptor.SLOTS_WORD_OFFSET, params.slotsPerRow());
        region.putLong(CuckooTableDescriptor.KEY_CAPACITY_WORD_OFFSET, params.keyCapacity());
        region.putLong(CuckooTableDescriptor.VALUE_CAPACITY_WORD_OFFSET, params.valueCapacity());
        region.putLong(CuckooTableDescriptor.CLIENTS_WORD_OFFSET, params.clients());
        region.putLong(CuckooTableDescriptor.LEASE_WORD_OFFSET, params.leaseNs());
        region.putLong(CuckooTableDescriptor.MARGIN_WORD_OFFSET, params.marginNs());
        // The magic last, sequentially consistent: a client that reads it (after the address was handed over) reads
        // the whole header (R1: the home's stores drain in order; R5: the NIC reads memory).
        region.putLongVolatile(CuckooTableDescriptor.MAGIC_OFFSET, CuckooTableDescriptor.MAGIC);
        return region;
    }

    /**
     * Attaches a handle for the thread that owns {@code endpoint}: one READ of the table header and one
     * FETCH_ADD(+1) of the client registry (the handle's client id), two round trips.
     *
     * @param endpoint the calling thread's endpoint
     * @param table the table's address, from {@link #address()} of the creating handle
     * @return the handle
     * @throws IllegalArgumentException if no table is at {@code table}
     * @throws IllegalStateException if all of the table's client ids are taken
     */
    public static CuckooMap attach(Endpoint endpoint, RemoteAddress table) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(table, "table");
        long[] header = new long[8];
        try (MemoryRegion buffer = endpoint.node().allocate(64, Access.LOCAL_WRITE)) {
            endpoint.read(table.plus(CuckooTableDescriptor.HEADER_OFFSET), buffer, 0, 64);
            for (int i = 0; i < header.length; i++) {
                header[i] = buffer.getLong(8L * i);
            }
        }
        if (header[0] != CuckooTableDescriptor.MAGIC) {
            throw new IllegalArgumentException("no cuckoo table at " + table + ": magic word 0x"
                + Long.toHexString(header[0]));
        }
        int clients = (int) header[5];
        long id = endpoint.faa(table.plus(CuckooTableDescriptor.REGISTRY_OFFSET), 1); // rao: ids are distinct (R14)
        if (id < 0 || id >= clients) {
            throw new IllegalStateException("cuckoo table at " + table + " has " + clients
                + " client ids and all are taken");
        }
        return new CuckooMap(endpoint, table, header, (int) id);
    }

    /** @return the table's address, to hand to {@link #attach} */
    public RemoteAddress address() {
        return table;
    }

    /** @return this handle's client id */
    public int clientId() {
        return client;
    }

    /** @return the number of rows */
    public int rows() {
        return rows;
    }

    /** @return the slots per row */
    public int slotsPerRow() {
        return slots;
    }

    /** @return the capacity in key-value pairs: rows &times; slots */
    public int capacity() {
        return rows * slots;
    }

    /** @return how many inserts of this handle moved keys along a kick path */
    public long kicks() {
        return kicks;
    }

    /** @return the largest key, in bytes */
    public int keyCapacity() {
        return keyCapacity;
    }

    /** @return the largest value, in bytes */
    public int valueCapacity() {
        return valueCapacity;
    }


    /**
     * Whether this handle refuses further calls: a doorbell of it timed out, or one that writes the table failed
     * (see the class comment, "Errors"). A client then attaches a new handle, with a new client id.
     *
     * @return true once broken; never reset
     */
    public boolean isBroken() {
        return broken;
    }

    /** @return how many lock words of crashed (or stalled) ops this handle took over or cleared */
    public long repairs() {
        return repairs;
    }

    /** Tests only: the last doorbell this handle rang (or is ringing). */
    Point lastPoint() {
        return point;
    }

    // ---------------------------------------------------------------------------------------------- reads

    /**
     * The value of a key: one doorbell of FETCH_ADD(version h1, 0), FETCH_ADD(version h2, 0), READ row h1, READ row
     * h2 (one round trip), repeated with back-off while the snapshot shows a writer inside a row; a row whose lock
     * word stays the same for the table's lease is repaired first (see the class comment).
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @return a copy of the value, or null if the key is not in the map
     * @throws CuckooMapBusyException after {@value #MAX_GET_ATTEMPTS} rejected snapshots
     */
    public byte[] get(byte[] key) {
        Result r = lookup(key);
        if (r.status() == Status.BUSY) {
            throw new CuckooMapBusyException("get at " + table + ": " + MAX_GET_ATTEMPTS
                + " snapshots of the key's rows in a row were read while a writer was inside one");
        }
        return r.value();
    }

    /**
     * Whether the map holds a key: {@link #lookup} without copying the value. One round trip.
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @return true if the key is in the map
     * @throws CuckooMapBusyException after {@value #MAX_GET_ATTEMPTS} rejected snapshots
     */
    public boolean containsKey(byte[] key) {
        return get(key) != null;
    }

    /**
     * The value of a key, with the outcome named: one round trip per snapshot, as {@link #get}.
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @return OK with the value, NOT_FOUND, or BUSY after {@value #MAX_GET_ATTEMPTS} rejected snapshots
     */
    public Result lookup(byte[] key) {
        checkKey(key);
        checkUsable();
        int r1 = row1(key);
        int r2 = row2(key, r1);
        long row0At = ROWS_AT;
        long row1At = ROWS_AT + rowBytes;
        for (int attempt = 0; attempt < MAX_GET_ATTEMPTS; attempt++) {
            wrs[0].faa(local, LOCK_RESULTS, versionAddress(r1), 0).flags(0);
            wrs[1].faa(local, LOCK_RESULTS + 8, versionAddress(r2), 0).flags(0);
            // R9: the READs do not pass the FETCH_ADDs before them on this queue pair, so every word they read is
            // read after both versions were; the check below relies on it.
            wrs[2].read(local, row0At, rowBytes, rowAddress(r1)).flags(0);
            wrs[3].read(local, row1At, rowBytes, rowAddress(r2)).flags(0);
            long postedAt = endpoint.nanoTime();
            doorbell(Point.GET, 4, "GET");
            long completedAt = endpoint.nanoTime();
            long v1 = local.getLong(LOCK_RESULTS);
            long v2 = local.getLong(LOCK_RESULTS + 8);
            copyIn(row0At, rowsCopy, 0, 2 * rowWords);
            boolean ok1 = rowIsSnapshot(rowsCopy, 0, v1);
            boolean ok2 = rowIsSnapshot(rowsCopy, rowWords, v2);
            if (ok1 && ok2) {
                int s = find(rowsCopy, 0, key);
                if (s >= 0) {
                    return new Result(Status.OK, valueOf(rowsCopy, 0, s));
                }
                s = find(rowsCopy, rowWords, key);
                if (s >= 0) {
                    return new Result(Status.OK, valueOf(rowsCopy, rowWords, s));
                }
                return new Result(Status.NOT_FOUND, null);
            }
            // A rejected row's lock word (read by the same READ) names the writer inside it; one that stays for the
            // lease is a crashed writer's, and its row would stay rejected until repaired.
            if (!ok1) {
                watch(r1, rowsCopy[CuckooTableDescriptor.LOCK_IN_ROW / 8], postedAt, completedAt);
            }
            if (!ok2) {
                watch(r2, rowsCopy[rowWords + CuckooTableDescriptor.LOCK_IN_ROW / 8], postedAt, completedAt);
            }
            if (!repairDue()) {
                pause(attempt);
            }
        }
        return new Result(Status.BUSY, null);
    }

    // --------------------------------------------------------------------------------------------- updates

    private enum Kind { PUT, UPDATE, DELETE, CAS }

    /**
     * Inserts or replaces: two round trips (doorbell 1: lock CASes and READs of both rows; doorbell 2: log, slot
     * image, version bumps, unlocks), more when both rows are full and keys are kicked (see the class table).
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @param value at most {@link #valueCapacity()} bytes (copied)
     * @return OK with the previous value (null if the key was new), TABLE_FULL, or BUSY
     */
    public Result put(byte[] key, byte[] value) {
        checkKey(key);
        checkValue(value, "value");
        return mutate(Kind.PUT, key, null, value);
    }

    /**
     * Replaces the value of a key that is in the map: two round trips.
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @param value at most {@link #valueCapacity()} bytes (copied)
     * @return OK with the previous value, NOT_FOUND (nothing written), or BUSY
     */
    public Result update(byte[] key, byte[] value) {
        checkKey(key);
        checkValue(value, "value");
        return mutate(Kind.UPDATE, key, null, value);
    }

    /**
     * Removes a key: its slot is written {@code EMPTY} with zero words. Two round trips.
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @return OK with the removed value, NOT_FOUND (nothing written), or BUSY
     */
    public Result delete(byte[] key) {
        checkKey(key);
        return mutate(Kind.DELETE, key, null, null);
    }

    /**
     * Atomically replaces a key's value if it equals {@code expected}, compared under the rows' locks: two round trips
     * (more if it inserts into two full rows).
     *
     * @param key at most {@link #keyCapacity()} bytes
     * @param expected the value required, or null to require that the key is absent
     * @param replacement the new value, or null to remove the key
     * @return OK with the previous value (null if absent), CAS_MISMATCH with the current value (null if absent),
     *     TABLE_FULL (an insert found no room), or BUSY
     */
    public Result compareAndSet(byte[] key, byte[] expected, byte[] replacement) {
        checkKey(key);
        if (expected != null) {
            checkValue(expected, "expected");
        }
        if (replacement != null) {
            checkValue(replacement, "replacement");
        }
        return mutate(Kind.CAS, key, expected, replacement);
    }

    /** A kick path found by the search: rows p0..pk, keys moving p(i) to p(i+1), a free slot in pk. */
    private record Path(int[] rows, int[] slots, byte[][] keys, int freeSlot) {
        int kicks() {
            return keys.length;
        }
    }

    /** One slot image to write: where (ordinal in {@link #held}, slot) and the low halves of its words. */
    private record Image(int ordinal, int slot, int[] data) {
    }

    private Result mutate(Kind kind, byte[] key, byte[] expected, byte[] value) {
        checkUsable();
        int r1 = row1(key);
        int r2 = row2(key, r1);
        Path path = null;
        int[] want = new int[CuckooTableDescriptor.MAX_LOG_ROWS];
        for (int attempt = 0; attempt < MAX_LOCK_ATTEMPTS; attempt++) {
            int n = 0;
            want[n++] = r1;
            want[n++] = r2;
            if (path != null) {
                for (int r : path.rows()) {
                    if (r != r1 && r != r2) {
                        want[n++] = r;
                    }
                }
            }
            long lockedAt = lockAndRead(want, n);
            if (lockedAt == Long.MIN_VALUE) {
                // Test before the next CAS: read only the lock words found held until they are free, or one is
                // due for repair (and repaired); each reading counts as an attempt.
                while (!repairDue() && attempt < MAX_LOCK_ATTEMPTS - 1) {
                    pause(attempt++);
                    if (contendedAreFree()) {
                        break;
                    }
                }
                continue;
            }
            // Doorbell 2 is posted before this on the fabric's clock, or not at all (docs/kv.md, "Crashes").
            long deadline = lockedAt + leaseNs - marginNs;
            Image[] stale = staleImages();
            if (stale.length > 0) {
                // An update of its own: the slots' contents unchanged, their tags fresh.
                if (!commit(Point.REFRESH, stale, deadline)) {
                    release();
                }
                continue;
            }
            int o1 = ordinal(r1);
            int o2 = ordinal(r2);
            int at1 = heldBase(o1);
            int at2 = heldBase(o2);
            int o = o1;
            int s = find(rowsCopy, at1, key);
            if (s < 0) {
                o = o2;
                s = find(rowsCopy, at2, key);
            }
            byte[] current = s >= 0 ? valueOf(rowsCopy, heldBase(o), s) : null;
            Image[] images;
            Result result;
            Point commitPoint = Point.COMMIT;
            switch (kind) {
                case UPDATE, DELETE -> {
                    if (s < 0) {
                        release();
                        return new Result(Status.NOT_FOUND, null);
                    }
                    images = new Image[] {new Image(o, s, image(key, kind == Kind.DELETE ? null : value))};
                    result = new Result(Status.OK, current);
                }
                case CAS -> {
                    if (expected == null ? current != null : !Arrays.equals(expected, current)) {
                        release();
                        return new Result(Status.CAS_MISMATCH, current);
                    }
                    result = new Result(Status.OK, current);
                    if (value == null && s < 0) {
                        release(); // absent and to stay absent: nothing to write
                        return result;
                    }
                    images = s >= 0 ? new Image[] {new Image(o, s, image(key, value))} : null;
                }
                default -> {
                    result = new Result(Status.OK, current);
                    images = s >= 0 ? new Image[] {new Image(o, s, image(key, value))} : null;
                }
            }
            if (images == null) {
                // A new key: the row with more free slots, else a kick along the path if it still holds.
                int f1 = freeSlots(rowsCopy, at1);
                int f2 = freeSlots(rowsCopy, at2);
                if (f1 > 0 || f2 > 0) {
                    int oo = f1 >= f2 ? o1 : o2;
                    images = new Image[] {new Image(oo, firstFreeIn(rowsCopy, heldBase(oo)), image(key, value))};
                } else if (path != null && pathHolds(path)) {
                    images = kickImages(path, key, value);
                    commitPoint = Point.KICK;
                } else {
                    long[] firstRows = new long[2 * rowWords];
                    System.arraycopy(rowsCopy, at1, firstRows, 0, rowWords);
                    System.arraycopy(rowsCopy, at2, firstRows, rowWords, rowWords);
                    release();
                    path = search(r1, r2, firstRows);
                    if (path == null) {
                        return new Result(Status.TABLE_FULL, null);
                    }
                    continue;
                }
            }
            if (variant == Variant.LOST_UPDATE && kind == Kind.PUT && s >= 0 && commitPoint == Point.COMMIT) {
                release(); // the defect: the rows are let go between the read and the write
                long again = lockAndRead(want, n);
                if (again == Long.MIN_VALUE) {
                    pause(attempt);
                    continue;
                }
                deadline = again + leaseNs - marginNs;
            }
            if (!commit(commitPoint, images, deadline)) {
                release(); // the locks may be repaired by now: do not post doorbell 2 past lease - margin
                pause(attempt);
                continue;
            }
            if (commitPoint == Point.KICK) {
                kicks++;
            }
            return result;
        }
        return new Result(Status.BUSY, null);
    }

    /**
     * Doorbell 1: CAS(lock, 0 &rarr; me) of each row in row order, then a READ of each. Returns the time the CASes
     * were posted when every lock was taken (the rows as read are in {@link #rowsCopy}), else releases the ones taken,
     * watches the lock words found, and returns {@code Long.MIN_VALUE}.
     */
    private long lockAndRead(int[] want, int n) {
        heldCount = 0;
        int[] sorted = Arrays.copyOf(want, n);
        Arrays.sort(sorted);
        sequence++;
        me = CuckooTableDescriptor.lockWord(client, sequence);
        for (int i = 0; i < n; i++) {
            // R16: a CAS that fails writes nothing, so a lock someone else holds is left alone.
            wrs[i].cas(local, LOCK_RESULTS + 8L * i, lockAddress(sorted[i]), 0, me).flags(0);
        }
        for (int i = 0; i < n; i++) {
            // R9: each READ follows the lock CASes before it on this queue pair: a row is read only once it is held.
            wrs[n + i].read(local, ROWS_AT + (long) i * rowBytes, rowBytes, rowAddress(sorted[i])).flags(0);
        }
        long postedAt = endpoint.nanoTime();
        doorbell(Point.LOCK, 2 * n, "lock CASes and READs");
        long completedAt = endpoint.nanoTime();
        int taken = 0;
        contendedCount = 0;
        for (int i = 0; i < n; i++) {
            long was = local.getLong(LOCK_RESULTS + 8L * i);
            if (was == 0) {
                held[taken++] = sorted[i];
            } else {
                watch(sorted[i], was, postedAt, completedAt);
                contended[contendedCount++] = sorted[i];
            }
        }
        heldCount = taken;
        if (taken == n) {
            copyIn(ROWS_AT, rowsCopy, 0, n * rowWords);
            for (int i = 0; i < n; i++) {
                unwatch(sorted[i]);
            }
            return postedAt;
        }
        release();
        return Long.MIN_VALUE;
    }

    /**
     * READs of the lock words of the rows the last lock attempt found held (one doorbell), watched as they are read.
     *
     * @return whether all of them are free now
     */
    private boolean contendedAreFree() {
        for (int i = 0; i < contendedCount; i++) {
            wrs[i].read(local, LOCK_RESULTS + 8L * i, 8, lockAddress(contended[i])).flags(0);
        }
        long postedAt = endpoint.nanoTime();
        doorbell(Point.PROBE, contendedCount, "READs of lock words");
        long completedAt = endpoint.nanoTime();
        boolean free = true;
        for (int i = 0; i < contendedCount; i++) {
            long word = local.getLong(LOCK_RESULTS + 8L * i);
            watch(contended[i], word, postedAt, completedAt);
            free &= word == 0;
        }
        return free;
    }

    /**
     * Unlock CASes (me &rarr; 0) of every row held, one doorbell; nothing was written. A CAS that finds another word
     * is no error: a repairer cleared a lock this handle held past its lease, and since this op posted no doorbell 2
     * its log does not name it, so the repairer only unlocked.
     */
    private void release() {
        int n = heldCount;
        if (n == 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            wrs[i].cas(local, UNLOCK_RESULTS + 8L * i, lockAddress(held[i]), me, 0).flags(0);
        }
        doorbell(Point.RELEASE, n, "unlock CASes");
        heldCount = 0;
    }

    /**
     * Doorbell 2: the intent log, the slot images in order, FETCH_ADD(version, +1) and CAS(lock, me &rarr; 0) of every
     * row held, posted only before {@code deadline}.
     *
     * @return false, having posted nothing, if the deadline has passed
     */
    private boolean commit(Point doorbellPoint, Image[] images, long deadline) {
        int n = heldCount;
        long[] versions = new long[n];
        for (int i = 0; i < n; i++) {
            versions[i] = rowsCopy[heldBase(i) + CuckooTableDescriptor.VERSION_IN_ROW / 8];
        }
        int logWords = stageLog(sequence, me, held, versions, n, images);
        for (int k = 0; k < images.length; k++) {
            Image im = images[k];
            // The row's version read under its lock: nobody else bumps it while we hold the lock.
            int t = (int) (versions[im.ordinal()] + 1);
            long at = imagesAt + (long) k * slotBytes;
            for (int i = 0; i < slotWords; i++) {
                local.putLong(at + 8L * i, CuckooTableDescriptor.tagged(t, im.data()[i]));
            }
        }
        // Checked after staging, just before posting: the lease rule bounds when doorbell 2 is posted.
        if (endpoint.nanoTime() - deadline >= 0) {
            return false;
        }
        // The staging is complete before the post: the NIC reads it after the doorbell (R2).
        int c = postLogWrite(0, logWords);
        if (variant != Variant.SEED_EARLY_UNLOCK) {
            c = postImages(c, images);
        }
        for (int i = 0; i < n; i++) {
            // R7: the version bump executes only after every slot WRITE before it on this queue pair is placed.
            wrs[c++].faa(local, BUMP_RESULTS + 8L * i, versionAddress(held[i]), 1).flags(0);
        }
        for (int i = 0; i < n; i++) {
            // R9: the unlock does not pass the bumps before it, so a row is free only once its new version is out.
            wrs[c++].cas(local, UNLOCK_RESULTS + 8L * i, lockAddress(held[i]), me, 0).flags(0);
        }
        if (variant == Variant.SEED_EARLY_UNLOCK) {
            c = postImages(c, images);
        } else if (variant == Variant.SEED_VERSION_RESET) {
            for (int i = 0; i < n; i++) {
                wrs[c++].cas(local, TAKE_RESULT, versionAddress(held[i]), versions[i] + 1, 0).flags(0);
            }
        }
        doorbell(doorbellPoint, c, "log, slot WRITEs, version bumps and unlocks");
        for (int i = 0; i < n; i++) {
            long was = local.getLong(UNLOCK_RESULTS + 8L * i);
            if (was != me) {
                broken = true;
                throw new IllegalStateException("lock of row " + held[i] + " at " + table + " held as 0x"
                    + Long.toHexString(me) + " was 0x" + Long.toHexString(was) + " at its unlock: a repairer took "
                    + "it over, so doorbell 2 landed later than the lease allows (a clock or delivery beyond the "
                    + "margin)");
            }
        }
        heldCount = 0;
        return true;
    }

    /** Adds the slot image WRITEs of a commit, in order, from {@code wrs[c]}. */
    private int postImages(int c, Image[] images) {
        for (int k = 0; k < images.length; k++) {
            Image im = images[k];
            // R6: this WRITE lands only after the log and every earlier slot image of this list are placed whole.
            wrs[c++].write(local, imagesAt + (long) k * slotBytes, slotBytes, slotAddress(held[im.ordinal()],
                im.slot())).flags(0);
        }
        return c;
    }

    /**
     * Stages an intent log at {@link #logAt}: header, held-with word, rows with the versions read under their locks,
     * and the images, every word tagged with the op's sequence.
     *
     * @return the words staged (the used prefix)
     */
    private int stageLog(long seq, long heldWith, int[] logRows, long[] versions, int n, Image[] images) {
        int tagOfOp = (int) seq;
        int w = 0;
        long[] out = new long[CuckooTableDescriptor.usedLogWords(n, images.length, keyCapacity, valueCapacity)];
        out[w++] = CuckooTableDescriptor.tagged(tagOfOp, CuckooTableDescriptor.logHeader(n, images.length));
        out[w++] = CuckooTableDescriptor.tagged(tagOfOp, (int) heldWith);
        out[w++] = CuckooTableDescriptor.tagged(tagOfOp, (int) (heldWith >>> 32));
        for (int i = 0; i < n; i++) {
            out[w++] = CuckooTableDescriptor.tagged(tagOfOp, logRows[i]);
            out[w++] = CuckooTableDescriptor.tagged(tagOfOp, (int) versions[i]);
            out[w++] = CuckooTableDescriptor.tagged(tagOfOp, (int) (versions[i] >>> 32));
        }
        for (Image im : images) {
            out[w++] = CuckooTableDescriptor.tagged(tagOfOp, CuckooTableDescriptor.logPlacement(im.ordinal(),
                im.slot()));
            for (int d : im.data()) {
                out[w++] = CuckooTableDescriptor.tagged(tagOfOp, d);
            }
        }
        for (int i = 0; i < w; i++) {
            local.putLong(logAt + 8L * i, out[i]);
        }
        return w;
    }

    /** Adds the WRITEs of the staged log's first {@code words} words, in order, from {@code wrs[c]}. */
    private int postLogWrite(int c, int words) {
        int bytes = 8 * words;
        for (int off = 0; off < bytes; off += CuckooTableDescriptor.MAX_TRANSFER_BYTES) {
            // R6: the chunks land in order, and all of them before any slot WRITE posted after them.
            wrs[c++].write(local, logAt + off, Math.min(CuckooTableDescriptor.MAX_TRANSFER_BYTES, bytes - off),
                log.plus(off)).flags(0);
        }
        return c;
    }

    /**
     * The slots of the rows held whose tag is {@link #REFRESH_AGE} or more behind the row's version (every slot's
     * tag stays within 2^30 of it, so the GET's modular comparison never mistakes an old slot for a new one), at most
     * {@link CuckooTableDescriptor#MAX_LOG_IMAGES}, as images of their own contents.
     */
    private Image[] staleImages() {
        Image[] found = new Image[CuckooTableDescriptor.MAX_LOG_IMAGES];
        int n = 0;
        for (int o = 0; o < heldCount && n < found.length; o++) {
            int at = heldBase(o);
            int version = (int) rowsCopy[at + CuckooTableDescriptor.VERSION_IN_ROW / 8];
            for (int s = 0; s < slots && n < found.length; s++) {
                long t = slotTag(rowsCopy, at, s);
                if (t != TORN && ((version - (int) t) & 0xFFFF_FFFFL) >= REFRESH_AGE) {
                    found[n++] = new Image(o, s, dataOf(rowsCopy, at, s));
                }
            }
        }
        return Arrays.copyOf(found, n);
    }

    private int ordinal(int row) {
        for (int i = 0; i < heldCount; i++) {
            if (held[i] == row) {
                return i;
            }
        }
        throw new IllegalStateException("row " + row + " not held");
    }

    /** @return where row {@code held[ordinal]} starts in {@link #rowsCopy} */
    private int heldBase(int ordinal) {
        return ordinal * rowWords;
    }

    // --------------------------------------------------------------------------------------------- crashes

    /**
     * Notes a lock word seen held on a row (docs/kv.md, "Crashes", watching). A word seen again by a doorbell posted
     * at least a lease after the doorbell that first saw it completed is due for repair: it was on the row all that
     * time (a word, once gone, never returns but by a repairer's restore, which wrote nothing), so its holder is past
     * its lease and posts nothing more.
     */
    private void watch(int row, long word, long postedAt, long completedAt) {
        if (word == 0) {
            unwatch(row);
            return;
        }
        Watch w = watched.get(row);
        if (w != null && w.word == word) {
            if (postedAt - w.since >= leaseNs) {
                w.due = true;
            }
            return;
        }
        if (w == null) {
            w = new Watch();
            watched.put(row, w);
        }
        w.word = word;
        // The READ or CAS read the word before its doorbell completed: its holder locked no later than this.
        w.since = completedAt;
        w.due = false;
    }

    private void unwatch(int row) {
        if (!watched.isEmpty()) {
            watched.remove(row);
        }
    }

    /**
     * Repairs every watched row that is due (and forgets it: a repair that could not finish watches the row that
     * stands in its way instead).
     *
     * @return whether any was due
     */
    private boolean repairDue() {
        int n = 0;
        for (Watch w : watched.values()) {
            n += w.due ? 1 : 0;
        }
        if (n == 0) {
            return false;
        }
        int[] dueRows = new int[n];
        long[] dueWords = new long[n];
        int k = 0;
        for (var it = watched.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Watch> e = it.next();
            if (e.getValue().due) {
                dueRows[k] = e.getKey();
                dueWords[k++] = e.getValue().word;
                it.remove();
            }
        }
        java.util.Set<Integer> resolved = new java.util.HashSet<>();
        for (k = 0; k < n; k++) {
            if (!resolved.contains(dueRows[k])) {
                repair(dueRows[k], dueWords[k]);
                for (int r : lastRepaired) {
                    resolved.add(r); // one repair finished the whole op: its other rows need no second one
                }
            }
        }
        return true;
    }

    /**
     * Repairs row {@code y}, found locked with {@code word} for the lease (docs/kv.md, "Crashes", steps 1 to 3).
     *
     * @return whether it changed a lock word (took the op over and finished it, finished it, or cleared the row)
     */
    private boolean repair(int y, long word) {
        lastRepaired = new int[0];
        int holder = CuckooTableDescriptor.lockClient(word);
        if (holder < 0 || holder >= clients) {
            throw new IllegalStateException("row " + y + " at " + table + " is locked with 0x" + Long.toHexString(word)
                + ", which names client " + holder + " of a table of " + clients);
        }
        // Step 1: the holder's log. Its lease has passed, so whatever it posted has landed (docs/kv.md, timing).
        RemoteAddress peerLog = table.plus(CuckooTableDescriptor.logOffset(holder, keyCapacity, valueCapacity));
        int logBytes = 8 * logCopy.length;
        int c = 0;
        for (int off = 0; off < logBytes; off += CuckooTableDescriptor.MAX_TRANSFER_BYTES) {
            wrs[c++].read(local, peerLogAt + off, Math.min(CuckooTableDescriptor.MAX_TRANSFER_BYTES, logBytes - off),
                peerLog.plus(off)).flags(0);
        }
        doorbell(Point.REPAIR_READ_LOG, c, "READ of an intent log");
        LoggedOp op = parseLog(peerLogAt, CuckooTableDescriptor.lockSequence(word));
        if (op == null) {
            // Step 2: the log does not name the op, so none of its images landed (R6: its log would be whole first)
            // and none will: only unlock, bump nothing.
            wrs[0].cas(local, TAKE_RESULT, lockAddress(y), word, 0).flags(0);
            doorbell(Point.REPAIR_UNLOCK, 1, "unlock CAS of a row whose op wrote nothing");
            boolean cleared = local.getLong(TAKE_RESULT) == word;
            repairs += cleared ? 1 : 0;
            lastRepaired = new int[] {y};
            return cleared;
        }
        int r0 = op.rows[0];
        if (y != r0 && word != op.heldWith) {
            throw new IllegalStateException("row " + y + " at " + table + " is locked with 0x" + Long.toHexString(word)
                + ", whose log names rows " + Arrays.toString(op.rows) + " held with 0x"
                + Long.toHexString(op.heldWith));
        }
        long expect = y == r0 ? word : op.heldWith;
        // Step 3: this handle's own log (the same op), then the takeover of the op's first row and its version.
        sequence++;
        long mine = CuckooTableDescriptor.lockWord(client, sequence);
        int logWords = stageLog(sequence, op.heldWith, op.rows, op.versions, op.rows.length, op.images);
        c = postLogWrite(0, logWords);
        // R7: the takeover CAS executes only once this log is placed whole, so a repairer of this repair finds it.
        wrs[c++].cas(local, TAKE_RESULT, lockAddress(r0), expect, mine).flags(0);
        // R9: the version is read after the takeover CAS.
        wrs[c++].faa(local, VERSION_RESULT, versionAddress(r0), 0).flags(0);
        long postedAt = endpoint.nanoTime();
        doorbell(Point.REPAIR_TAKE, c, "repair: log, takeover CAS and version of the first row");
        long completedAt = endpoint.nanoTime();
        long old = local.getLong(TAKE_RESULT);
        long version0 = local.getLong(VERSION_RESULT);
        boolean imagesPlaced = version0 != op.versions[0];
        if (old == expect && !imagesPlaced) {
            // 3a: no bump yet, so no image phase has completed; this handle alone writes the op's rows now.
            if (endpoint.nanoTime() - (postedAt + leaseNs - marginNs) >= 0) {
                wrs[0].cas(local, TAKE_RESULT, lockAddress(r0), mine, op.heldWith).flags(0);
                doorbell(Point.REPAIR_RESTORE, 1, "repair: the first row's word put back");
                return false;
            }
            c = 0;
            for (int k = 0; k < op.images.length; k++) {
                Image im = op.images[k];
                int t = (int) (op.versions[im.ordinal()] + 1);
                long at = imagesAt + (long) k * slotBytes;
                for (int i = 0; i < slotWords; i++) {
                    local.putLong(at + 8L * i, CuckooTableDescriptor.tagged(t, im.data()[i]));
                }
            }
            for (int k = 0; k < op.images.length; k++) {
                Image im = op.images[k];
                // R6: the images land in the log's order (a moving key's destination before its source).
                wrs[c++].write(local, imagesAt + (long) k * slotBytes, slotBytes,
                    slotAddress(op.rows[im.ordinal()], im.slot())).flags(0);
            }
            c = postFinish(c, op, true, true, mine);
            doorbell(Point.REPAIR_ROLL_FORWARD, c, "repair: images, version CASes and unlocks");
            checkRepairUnlocked(op, mine);
        } else if (old == expect) {
            // 3b: the first row was bumped after every image was placed (R7): bumps and unlocks only.
            c = postFinish(0, op, false, true, mine);
            doorbell(Point.REPAIR_FINISH, c, "repair: version CASes and unlocks");
            checkRepairUnlocked(op, mine);
        } else if (imagesPlaced) {
            // 3c: every image is placed; the first row is free or someone else's now: the other rows' bumps and
            // unlocks, which CAS expecting the logged version and the held-with word, so late ones change nothing.
            c = postFinish(0, op, false, false, mine);
            doorbell(Point.REPAIR_FINISH, c, "repair: version CASes and unlocks");
            boolean cleared = false;
            for (int i = 1; i < op.rows.length; i++) {
                cleared |= local.getLong(UNLOCK_RESULTS + 8L * i) == op.heldWith;
            }
            for (int r : op.rows) {
                unwatch(r);
            }
            lastRepaired = op.rows;
            repairs += cleared ? 1 : 0;
            return cleared;
        } else {
            // 3d: a repairer holds the first row within its lease: watch it, and repair it if it stays.
            watch(r0, old, postedAt, completedAt);
            return false;
        }
        for (int r : op.rows) {
            unwatch(r);
        }
        lastRepaired = op.rows;
        repairs++;
        return true;
    }

    /**
     * Adds, from {@code wrs[c]}: CAS(version, v &rarr; v + 1) of each logged row in row order (the first row's only if
     * {@code bumpFirst}), CAS(lock, held-with &rarr; 0) of the rows after the first, and CAS(lock, mine &rarr; 0) of the
     * first if {@code unlockFirst}.
     */
    private int postFinish(int c, LoggedOp op, boolean bumpFirst, boolean unlockFirst, long mine) {
        int n = op.rows.length;
        for (int i = bumpFirst ? 0 : 1; i < n; i++) {
            // R7: after every image WRITE before it; a CAS, so that a row bumped already (or since) is not bumped
            // again.
            wrs[c++].cas(local, BUMP_RESULTS + 8L * i, versionAddress(op.rows[i]), op.versions[i],
                op.versions[i] + 1).flags(0);
        }
        for (int i = 1; i < n; i++) {
            // R9: a row is unlocked only after the bumps before it.
            wrs[c++].cas(local, UNLOCK_RESULTS + 8L * i, lockAddress(op.rows[i]), op.heldWith, 0).flags(0);
        }
        if (unlockFirst) {
            wrs[c++].cas(local, UNLOCK_RESULTS, lockAddress(op.rows[0]), mine, 0).flags(0);
        }
        return c;
    }

    private void checkRepairUnlocked(LoggedOp op, long mine) {
        long was = local.getLong(UNLOCK_RESULTS);
        if (was != mine) {
            broken = true;
            throw new IllegalStateException("repair of row " + op.rows[0] + " at " + table + " held as 0x"
                + Long.toHexString(mine) + " found 0x" + Long.toHexString(was) + " at its unlock: it was taken over, "
                + "so the repair's WRITEs landed later than the lease allows");
        }
    }

    /** An op as its intent log gives it: rows ascending, the versions read under their locks, the images. */
    private record LoggedOp(long heldWith, int[] rows, long[] versions, Image[] images) {
    }

    /**
     * Reads a log from the local buffer: null unless it is whole (every word of its used prefix tagged with the low
     * 32 bits of {@code sequence}) and well formed.
     */
    private LoggedOp parseLog(long at, long sequence) {
        int tagOfOp = (int) sequence;
        long header = local.getLong(at);
        if (CuckooTableDescriptor.tagOf(header) != tagOfOp) {
            return null;
        }
        int h = CuckooTableDescriptor.dataOf(header);
        int n = h & 0xFF;
        int m = (h >>> 8) & 0xFF;
        if (n < 1 || n > CuckooTableDescriptor.MAX_LOG_ROWS || m > CuckooTableDescriptor.MAX_LOG_IMAGES) {
            return null;
        }
        int used = CuckooTableDescriptor.usedLogWords(n, m, keyCapacity, valueCapacity);
        copyIn(at, logCopy, 0, used);
        for (int i = 0; i < used; i++) {
            if (CuckooTableDescriptor.tagOf(logCopy[i]) != tagOfOp) {
                return null; // not whole: by R6 no image of the op had landed when this word was read, nor will
            }
        }
        long heldWith = (CuckooTableDescriptor.dataOf(logCopy[CuckooTableDescriptor.LOG_HELD_WITH_WORD])
            & 0xFFFF_FFFFL) | (long) CuckooTableDescriptor.dataOf(logCopy[CuckooTableDescriptor.LOG_HELD_WITH_WORD + 1])
            << 32;
        int[] logRows = new int[n];
        long[] versions = new long[n];
        int w = CuckooTableDescriptor.LOG_ROWS_WORD;
        for (int i = 0; i < n; i++) {
            logRows[i] = CuckooTableDescriptor.dataOf(logCopy[w++]);
            versions[i] = (CuckooTableDescriptor.dataOf(logCopy[w++]) & 0xFFFF_FFFFL)
                | (long) CuckooTableDescriptor.dataOf(logCopy[w++]) << 32;
            if (logRows[i] < 0 || logRows[i] >= rows || (i > 0 && logRows[i] <= logRows[i - 1])) {
                return null;
            }
        }
        Image[] images = new Image[m];
        for (int k = 0; k < m; k++) {
            int placement = CuckooTableDescriptor.dataOf(logCopy[w++]);
            int ordinal = placement & 0xFF;
            int slot = (placement >>> 8) & 0xFFFF;
            if (ordinal >= n || slot >= slots) {
                return null;
            }
            int[] data = new int[slotWords];
            for (int i = 0; i < slotWords; i++) {
                data[i] = CuckooTableDescriptor.dataOf(logCopy[w++]);
            }
            images[k] = new Image(ordinal, slot, data);
        }
        return new LoggedOp(heldWith, logRows, versions, images);
    }

    /**
     * Repairs every row of the table left locked by a crashed client: READs of every row's lock word (up to
     * {@value #MAX_SEARCH_ROWS} in a doorbell), then, for those held, READs of their lock words again with back-off
     * until each is free, or has been held by one word for the lease and is repaired (2 or 3 round trips each, see
     * the class table). It returns once no row is held, or once four leases have passed and every row still held has
     * changed hands since the scan (live clients lock and unlock rows meanwhile; those are left to them), and after
     * 64 leases in any case. A crashed client's lock CAS still in flight (R20) may lock a row after the scan, for as
     * long as the margin covers: a pass that must leave no row locked starts at least the margin after the crash.
     *
     * @return how many lock words it took over or cleared (ops repaired)
     */
    public int recover() {
        checkUsable();
        ensureSearch();
        long start = endpoint.nanoTime();
        long before = repairs;
        long scanned = start;
        for (int from = 0; from < rows; from += MAX_SEARCH_ROWS) {
            int m = Math.min(MAX_SEARCH_ROWS, rows - from);
            for (int i = 0; i < m; i++) {
                wrs[i].read(search, 8L * i, 8, lockAddress(from + i)).flags(0);
            }
            long postedAt = endpoint.nanoTime();
            doorbell(Point.SCAN, m, "READs of lock words");
            scanned = endpoint.nanoTime();
            for (int i = 0; i < m; i++) {
                watch(from + i, search.getLong(8L * i), postedAt, scanned);
            }
        }
        for (int round = 0; !watched.isEmpty(); round++) {
            long postedAt = endpoint.nanoTime();
            int[] all = watched.keySet().stream().mapToInt(Integer::intValue).toArray();
            int[] now = new int[Math.min(all.length, MAX_SEARCH_ROWS)];
            for (int i = 0, from = round * MAX_SEARCH_ROWS; i < now.length; i++) {
                now[i] = all[(from + i) % all.length]; // in turns, when more rows are watched than one doorbell
            }
            for (int i = 0; i < now.length; i++) {
                wrs[i].read(search, 8L * i, 8, lockAddress(now[i])).flags(0);
            }
            doorbell(Point.SCAN, now.length, "READs of lock words");
            long completedAt = endpoint.nanoTime();
            for (int i = 0; i < now.length; i++) {
                watch(now[i], search.getLong(8L * i), postedAt, completedAt);
            }
            repairDue();
            boolean onlyChanged = true;
            for (Watch w : watched.values()) {
                onlyChanged &= w.since > scanned;
            }
            long waited = postedAt - start;
            if (watched.isEmpty() || onlyChanged && waited >= 4 * leaseNs || waited >= 64 * leaseNs) {
                break;
            }
            pause(round);
        }
        return (int) (repairs - before);
    }

    // ----------------------------------------------------------------------------------------------- kicks

    private void ensureSearch() {
        if (search == null) {
            search = endpoint.node().allocate((long) MAX_SEARCH_ROWS * rowBytes, Access.LOCAL_WRITE);
            searchCopy = new long[MAX_SEARCH_ROWS * rowWords];
        }
    }

    /**
     * Breadth-first search from the two full rows (read under their locks, now released; {@code firstRows} holds
     * row h1, then row h2) for a chain of keys, each movable to its other row, ending at a row with a free slot. One
     * doorbell of READs per level; the rows read are not locked, so the path is only a candidate that
     * {@link #pathHolds} checks under the locks.
     *
     * @return a path, or null if none was found within {@value CuckooTableDescriptor#MAX_KICK_DEPTH} kicks and
     *     {@value #MAX_SEARCH_ROWS} rows
     */
    private Path search(int r1, int r2, long[] firstRows) {
        ensureSearch();
        int cap = 2 + MAX_SEARCH_ROWS;
        int[] nodeRow = new int[cap];
        int[] parent = new int[cap];
        int[] parentSlot = new int[cap];
        byte[][] moved = new byte[cap][];
        int count = 0;
        nodeRow[count] = r1;
        parent[count++] = -1;
        nodeRow[count] = r2;
        parent[count++] = -1;
        int levelStart = 0;
        int levelEnd = 2;
        int readRows = 0;
        for (int depth = 1; depth <= CuckooTableDescriptor.MAX_KICK_DEPTH; depth++) {
            int nextStart = count;
            for (int node = levelStart; node < levelEnd && readRows < MAX_SEARCH_ROWS; node++) {
                long[] buf = depth == 1 ? firstRows : searchCopy;
                int at = (node - levelStart) * rowWords;
                for (int s = 0; s < slots && readRows < MAX_SEARCH_ROWS; s++) {
                    if (slotTag(buf, at, s) == TORN) {
                        continue;
                    }
                    int header = CuckooTableDescriptor.dataOf(buf[slotBase(at, s)]);
                    if (CuckooTableDescriptor.kindOf(header) != CuckooTableDescriptor.KIND_INLINE) {
                        continue;
                    }
                    byte[] k = keyOf(buf, at, s);
                    if (k == null) {
                        continue;
                    }
                    int alt = otherRow(k, nodeRow[node]);
                    if (alt < 0 || visited(nodeRow, count, alt)) {
                        continue;
                    }
                    nodeRow[count] = alt;
                    parent[count] = node;
                    parentSlot[count] = s;
                    moved[count] = k;
                    count++;
                    readRows++;
                }
            }
            if (count == nextStart) {
                return null;
            }
            int m = count - nextStart;
            for (int i = 0; i < m; i++) {
                wrs[i].read(search, (long) i * rowBytes, rowBytes, rowAddress(nodeRow[nextStart + i])).flags(0);
            }
            doorbell(Point.SEARCH, m, "kick search READs");
            copyIn(search, 0, searchCopy, 0, m * rowWords);
            for (int i = 0; i < m; i++) {
                int f = firstFreeIn(searchCopy, i * rowWords);
                if (f >= 0) {
                    return pathTo(nextStart + i, f, nodeRow, parent, parentSlot, moved);
                }
            }
            levelStart = nextStart;
            levelEnd = count;
            if (readRows >= MAX_SEARCH_ROWS) {
                return null;
            }
        }
        return null;
    }

    private static boolean visited(int[] nodeRow, int count, int row) {
        for (int i = 0; i < count; i++) {
            if (nodeRow[i] == row) {
                return true;
            }
        }
        return false;
    }

    private static Path pathTo(int node, int free, int[] nodeRow, int[] parent, int[] parentSlot, byte[][] moved) {
        int k = 0;
        for (int n = node; parent[n] >= 0; n = parent[n]) {
            k++;
        }
        int[] rows = new int[k + 1];
        int[] slots = new int[k];
        byte[][] keys = new byte[k][];
        int n = node;
        for (int i = k; i > 0; i--) {
            rows[i] = nodeRow[n];
            slots[i - 1] = parentSlot[n];
            keys[i - 1] = moved[n];
            n = parent[n];
        }
        rows[0] = nodeRow[n];
        return new Path(rows, slots, keys, free);
    }

    /** Under the locks of every path row: each key is still where the search saw it, the last row's slot free. */
    private boolean pathHolds(Path p) {
        for (int i = 0; i < p.kicks(); i++) {
            int at = heldBase(ordinal(p.rows()[i]));
            if (find(rowsCopy, at, p.keys()[i]) != p.slots()[i]) {
                return false;
            }
        }
        int last = heldBase(ordinal(p.rows()[p.kicks()]));
        return slotTag(rowsCopy, last, p.freeSlot()) != TORN && isEmpty(rowsCopy, last, p.freeSlot());
    }

    /**
     * The images of a kick, in the order docs/kv.md gives: the last key moving into the free slot first, then each
     * earlier row's slot overwritten by the key moving in, the new key last (R6 lands them in this order, so a key
     * is in its new row before it leaves the old one).
     */
    private Image[] kickImages(Path p, byte[] key, byte[] value) {
        int k = p.kicks();
        Image[] images = new Image[k + 1];
        int c = 0;
        for (int i = k; i >= 1; i--) {
            int from = ordinal(p.rows()[i - 1]);
            int to = ordinal(p.rows()[i]);
            int slot = i == k ? p.freeSlot() : p.slots()[i];
            images[c++] = new Image(to, slot, dataOf(rowsCopy, heldBase(from), p.slots()[i - 1]));
        }
        images[c] = new Image(ordinal(p.rows()[0]), p.slots()[0], image(key, value));
        return images;
    }

    // ------------------------------------------------------------------------------------------- slot codec

    private static final long TORN = Long.MIN_VALUE;

    /** @return the index of a slot's first word in a copy of rows, the row starting at {@code rowBase} */
    private int slotBase(int rowBase, int slot) {
        return rowBase + CuckooTableDescriptor.SLOTS_IN_ROW / 8 + slot * slotWords;
    }

    /** @return the slot's one tag (unsigned), or {@link #TORN} if its words carry more than one */
    private long slotTag(long[] buf, int rowBase, int slot) {
        int at = slotBase(rowBase, slot);
        int t = CuckooTableDescriptor.tagOf(buf[at]);
        for (int i = 1; i < slotWords; i++) {
            if (CuckooTableDescriptor.tagOf(buf[at + i]) != t) {
                return TORN; // words of two writes: the READ met a slot WRITE (R18)
            }
        }
        return t & 0xFFFF_FFFFL;
    }

    /**
     * The GET's check (docs/kv.md, "GET"): every slot's words carry one tag, none above the version read before the
     * row; then the row as read is the row at the instant the READs began.
     */
    private boolean rowIsSnapshot(long[] buf, int rowBase, long version) {
        for (int s = 0; s < slots; s++) {
            long t = slotTag(buf, rowBase, s);
            if (t == TORN || !CuckooTableDescriptor.tagNotAfter((int) t, version)) {
                return false;
            }
        }
        return true;
    }

    /** @return the slot holding {@code key} (whole, inline, equal bytes), or -1 */
    private int find(long[] buf, int rowBase, byte[] key) {
        for (int s = 0; s < slots; s++) {
            if (slotTag(buf, rowBase, s) == TORN) {
                continue;
            }
            int at = slotBase(rowBase, s);
            int header = CuckooTableDescriptor.dataOf(buf[at]);
            if (CuckooTableDescriptor.kindOf(header) != CuckooTableDescriptor.KIND_INLINE
                || CuckooTableDescriptor.keyLengthOf(header) != key.length) {
                continue;
            }
            boolean equal = true;
            for (int i = 0; i < key.length && equal; i++) {
                equal = byteAt(buf, at + 1, i) == key[i];
            }
            if (equal) {
                return s;
            }
        }
        return -1;
    }

    private static byte byteAt(long[] buf, int wordsAt, int i) {
        int low = CuckooTableDescriptor.dataOf(buf[wordsAt + i / CuckooTableDescriptor.BYTES_PER_WORD]);
        return (byte) (low >>> (8 * (i % CuckooTableDescriptor.BYTES_PER_WORD)));
    }

    private byte[] keyOf(long[] buf, int rowBase, int slot) {
        int at = slotBase(rowBase, slot);
        int length = CuckooTableDescriptor.keyLengthOf(CuckooTableDescriptor.dataOf(buf[at]));
        if (length > keyCapacity) {
            return null;
        }
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            k[i] = byteAt(buf, at + 1, i);
        }
        return k;
    }

    private byte[] valueOf(long[] buf, int rowBase, int slot) {
        int at = slotBase(rowBase, slot);
        int length = CuckooTableDescriptor.valueLengthOf(CuckooTableDescriptor.dataOf(buf[at]));
        if (length > valueCapacity) {
            throw new IllegalStateException("slot " + slot + " of a row at " + table + " claims a value of " + length
                + " bytes, above the capacity " + valueCapacity);
        }
        byte[] v = new byte[length];
        int valueAt = at + CuckooTableDescriptor.valueWordIndex(keyCapacity);
        for (int i = 0; i < length; i++) {
            v[i] = byteAt(buf, valueAt, i);
        }
        return v;
    }

    private boolean isEmpty(long[] buf, int rowBase, int slot) {
        int header = CuckooTableDescriptor.dataOf(buf[slotBase(rowBase, slot)]);
        return CuckooTableDescriptor.kindOf(header) == CuckooTableDescriptor.KIND_EMPTY;
    }

    private int firstFreeIn(long[] buf, int rowBase) {
        for (int s = 0; s < slots; s++) {
            if (slotTag(buf, rowBase, s) != TORN && isEmpty(buf, rowBase, s)) {
                return s;
            }
        }
        return -1;
    }

    private int freeSlots(long[] buf, int rowBase) {
        int n = 0;
        for (int s = 0; s < slots; s++) {
            if (slotTag(buf, rowBase, s) != TORN && isEmpty(buf, rowBase, s)) {
                n++;
            }
        }
        return n;
    }

    /** @return the low halves of a slot's words as read (a key moving to another row keeps them, with a new tag) */
    private int[] dataOf(long[] buf, int rowBase, int slot) {
        int[] d = new int[slotWords];
        int at = slotBase(rowBase, slot);
        for (int i = 0; i < slotWords; i++) {
            d[i] = CuckooTableDescriptor.dataOf(buf[at + i]);
        }
        return d;
    }

    /** @return the low halves of a slot holding {@code key} and {@code value}, or an EMPTY slot if value is null */
    private int[] image(byte[] key, byte[] value) {
        int[] d = new int[slotWords];
        if (value == null) {
            return d; // EMPTY header, zero words
        }
        d[0] = CuckooTableDescriptor.slotHeader(CuckooTableDescriptor.KIND_INLINE, key.length, value.length);
        pack(key, d, 1);
        pack(value, d, CuckooTableDescriptor.valueWordIndex(keyCapacity));
        return d;
    }

    private static void pack(byte[] bytes, int[] d, int from) {
        for (int i = 0; i < bytes.length; i++) {
            d[from + i / CuckooTableDescriptor.BYTES_PER_WORD] |= (bytes[i] & 0xFF)
                << (8 * (i % CuckooTableDescriptor.BYTES_PER_WORD));
        }
    }
    // --------------------------------------------------------------------------------------------- hashing

    /** @return row h1 of a key */
    int row1(byte[] key) {
        return row1(key, rows);
    }

    /** @return row h2 of a key, never {@code h1} */
    int row2(byte[] key, int h1) {
        return row2(key, h1, rows);
    }

    /** @return row h1 of a key in a table of {@code rows} rows */
    static int row1(byte[] key, int rows) {
        return (int) (hash(key, HASH1_SEED) & (rows - 1));
    }

    /** @return row h2 of a key in a table of {@code rows} rows, never {@code h1} */
    static int row2(byte[] key, int h1, int rows) {
        long h = hash(key, HASH2_SEED);
        return (int) ((h1 + 1 + Long.remainderUnsigned(h, rows - 1)) & (rows - 1));
    }

    /** @return the key's row that is not {@code row}, or -1 if {@code row} is neither of its rows */
    private int otherRow(byte[] key, int row) {
        int h1 = row1(key);
        int h2 = row2(key, h1);
        return row == h1 ? h2 : row == h2 ? h1 : -1;
    }

    /** FNV-1a over the bytes from {@code seed}, then a 64-bit finaliser so that every bit mixes into the low ones. */
    private static long hash(byte[] key, long seed) {
        long h = seed ^ 0xcbf29ce484222325L;
        for (byte b : key) {
            h ^= b & 0xFF;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }


    // ----------------------------------------------------------------------------------------- plumbing

    private RemoteAddress rowAddress(int row) {
        return table.plus(rowsOffset + (long) row * rowBytes);
    }

    private RemoteAddress lockAddress(int row) {
        return rowAddress(row).plus(CuckooTableDescriptor.LOCK_IN_ROW);
    }

    private RemoteAddress versionAddress(int row) {
        return rowAddress(row).plus(CuckooTableDescriptor.VERSION_IN_ROW);
    }

    private RemoteAddress slotAddress(int row, int slot) {
        return rowAddress(row).plus(CuckooTableDescriptor.slotInRow(slot, keyCapacity, valueCapacity));
    }

    /** Copies words of the local buffer into a Java array, each word loaded once. */
    private void copyIn(long from, long[] to, int toAt, int words) {
        copyIn(local, from, to, toAt, words);
    }

    private static void copyIn(MemoryRegion region, long from, long[] to, int toAt, int words) {
        for (int i = 0; i < words; i++) {
            to[toAt + i] = region.getLong(from + 8L * i);
        }
    }

    /** Posts {@code wrs[0..n)} with one doorbell and waits for them (the last is signaled: one round trip). */
    private void doorbell(Point at, int n, String what) {
        point = at;
        QueuePair qp = endpoint.queuePair(table.nodeId());
        int post = hook == null ? n : hook.beforePost(at, n);
        if (post > 0 && tag.post(qp, wrs, post) != QueuePair.POSTED) {
            if (at.writes) {
                broken = true;
            }
            throw new RemoteAccessException(WcStatus.GENERAL_ERR, what + " to " + table + ": the send queue is full");
        }
        if (hook != null) {
            hook.afterPost(at);
            if (post < n) {
                throw new IllegalStateException("a test hook posted " + post + " of " + n + " requests and returned");
            }
        }
        // R11, R4: the last request completes after every earlier one of the list, and once it has, their results
        // (READ data, atomics' old values) are in the local buffer for the loads that follow.
        WaitStatus s = tag.await(endpoint.waitBudgetNs());
        if (s == WaitStatus.TIMED_OUT) {
            // R3, R4: requests not completed may still read the staging and write the local rows: never reuse them.
            broken = true;
            throw new VerbsTimeoutException(what + " to " + table + " did not complete in the wait budget; their "
                + "outcome is unknown");
        }
        if (s == WaitStatus.FAILED) {
            if (at.writes) {
                // The handle's intent log must stay as it is while rows it may have locked wait for a repairer.
                broken = true;
            }
            throw new RemoteAccessException(tag.lastError(), what + " to " + table + " failed; an update's outcome is "
                + "unknown");
        }
    }

    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("cuckoo map handle is closed");
        }
        if (broken) {
            throw new IllegalStateException("cuckoo map handle is broken: a timed-out doorbell may still use its "
                + "buffers, or a failed one left its intent log for a repairer");
        }
    }

    private void checkKey(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key is null");
        }
        if (key.length > keyCapacity) {
            throw new IllegalArgumentException("key of " + key.length + " bytes, at most keyCapacity " + keyCapacity);
        }
    }

    private void checkValue(byte[] value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is null");
        }
        if (value.length > valueCapacity) {
            throw new IllegalArgumentException(what + " of " + value.length + " bytes, at most valueCapacity "
                + valueCapacity);
        }
    }

    private static void pause(int attempt) {
        int spins = 1 << Math.min(attempt, 10);
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
        Thread.yield();
    }

    /** Frees the handle's local buffers; the table and the handle's client id stay. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!broken) {
            local.deregister();
            if (search != null) {
                search.deregister();
            }
        }
    }
}
