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
import java.util.Objects;

/**
 * A hash map of byte-array keys and values in one memory node's registered region, read and written by clients
 * with one-sided verbs only: a two-choice cuckoo table of {@code R} rows of {@code S} slots, values inline, rows
 * locked by CAS for updates, GETs lock-free (docs/kv.md; layout: {@link CuckooTableDescriptor}).
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
 * </table>
 *
 * <p>A writer that finds, in a row it holds, a slot whose tag is {@value #REFRESH_AGE} or more versions behind the
 * row's first rewrites it unchanged (one more doorbell 2, and a new doorbell 1), so that no tag falls 2^31 behind and
 * compares as ahead modulo 2^32 (docs/kv.md, "Old slots are refreshed").
 *
 * <p>A lock CAS that fails releases the locks taken (CAS me &rarr; 0) and retries with back-off; after
 * {@value #MAX_LOCK_ATTEMPTS} attempts the update answers {@link Status#BUSY}, having changed nothing. A holder posts
 * doorbell 2 only within {@code lease - margin} of posting its lock CASes, and otherwise releases and retries.
 * Crash repair (a lock held past its lease taken over and the intent log rolled forward) is not built yet: a client
 * that crashes between its two doorbells leaves its rows locked, and writers of those rows answer BUSY; one that
 * crashes inside doorbell 2, after a slot WRITE and before that row's bump, also leaves GETs of the row BUSY.
 *
 * <p><b>Errors.</b> A verb that fails throws {@link RemoteAccessException}, one that does not complete in the
 * endpoint's wait budget {@link VerbsTimeoutException}; for an update both are indeterminate (record {@code info}):
 * it took effect or it did not, and it may have left its rows locked. After a timeout the handle refuses further calls
 * ({@link IllegalStateException}), since the NIC may still read or write its buffers (R3, R4).
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

    // Local buffer: atomic results, then the rows an op reads, then the staging of the log and slot images.
    private static final int LOCK_RESULTS = 0;
    private static final int BUMP_RESULTS = 8 * CuckooTableDescriptor.MAX_LOG_ROWS;
    private static final int UNLOCK_RESULTS = 16 * CuckooTableDescriptor.MAX_LOG_ROWS;
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
    private final long rowsOffset;
    private final RemoteAddress log;
    private final MemoryRegion local;
    private final long stagingAt;
    private MemoryRegion search;
    private final WaitTag tag;
    private final WorkRequest[] wrs;
    private long sequence;
    private long kicks;
    private boolean broken;
    private boolean closed;

    // The rows the current update holds, ascending, and the lock word it holds them with.
    private final int[] held = new int[CuckooTableDescriptor.MAX_LOG_ROWS];
    private int heldCount;
    private long me;

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
        this.rowsOffset = CuckooTableDescriptor.rowsOffset(clients, keyCapacity, valueCapacity);
        this.log = table.plus(CuckooTableDescriptor.logOffset(client, keyCapacity, valueCapacity));
        this.stagingAt = ROWS_AT + (long) CuckooTableDescriptor.MAX_LOG_ROWS * rowBytes;
        long localBytes = stagingAt + CuckooTableDescriptor.logBytes(keyCapacity, valueCapacity)
            + (long) CuckooTableDescriptor.MAX_LOG_IMAGES * slotBytes;
        this.local = endpoint.node().allocate(localBytes, Access.LOCAL_WRITE);
        this.tag = endpoint.newTag("cuckoo-map");
        this.wrs = new WorkRequest[Math.max(MAX_SEARCH_ROWS, 4 * CuckooTableDescriptor.MAX_LOG_ROWS)];
        for (int i = 0; i < wrs.length; i++) {
            wrs[i] = new WorkRequest();
        }
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
        return region.remote(0);
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

    // ---------------------------------------------------------------------------------------------- reads

    /**
     * The value of a key: one doorbell of FETCH_ADD(version h1, 0), FETCH_ADD(version h2, 0), READ row h1, READ row
     * h2 (one round trip), repeated with back-off while the snapshot shows a writer inside a row.
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
            doorbell(4, "GET");
            long v1 = local.getLong(LOCK_RESULTS);
            long v2 = local.getLong(LOCK_RESULTS + 8);
            if (rowIsSnapshot(local, row0At, v1) && rowIsSnapshot(local, row1At, v2)) {
                int s = find(local, row0At, key);
                if (s >= 0) {
                    return new Result(Status.OK, valueOf(local, row0At, s));
                }
                s = find(local, row1At, key);
                if (s >= 0) {
                    return new Result(Status.OK, valueOf(local, row1At, s));
                }
                return new Result(Status.NOT_FOUND, null);
            }
            pause(attempt);
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
                pause(attempt);
                continue;
            }
            Image[] stale = staleImages();
            if (stale.length > 0) {
                if (endpoint.nanoTime() - lockedAt >= leaseNs - marginNs) {
                    release();
                } else {
                    commit(stale); // an update of its own: the slots' contents unchanged, their tags fresh
                }
                continue;
            }
            int o1 = ordinal(r1);
            int o2 = ordinal(r2);
            long at1 = heldRowAt(o1);
            long at2 = heldRowAt(o2);
            int o = o1;
            int s = find(local, at1, key);
            if (s < 0) {
                o = o2;
                s = find(local, at2, key);
            }
            byte[] current = s >= 0 ? valueOf(local, heldRowAt(o), s) : null;
            Image[] images;
            Result result;
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
                int f1 = freeSlots(at1);
                int f2 = freeSlots(at2);
                if (f1 > 0 || f2 > 0) {
                    int oo = f1 >= f2 ? o1 : o2;
                    images = new Image[] {new Image(oo, firstFree(heldRowAt(oo)), image(key, value))};
                } else if (path != null && pathHolds(path)) {
                    images = kickImages(path, key, value);
                    kicks++;
                } else {
                    release();
                    path = search(r1, r2, at1, at2);
                    if (path == null) {
                        return new Result(Status.TABLE_FULL, null);
                    }
                    continue;
                }
            }
            if (endpoint.nanoTime() - lockedAt >= leaseNs - marginNs) {
                release(); // the locks may be repaired by now: do not post step 2 past lease - margin
                pause(attempt);
                continue;
            }
            commit(images);
            return result;
        }
        return new Result(Status.BUSY, null);
    }

    /**
     * Doorbell 1: CAS(lock, 0 &rarr; me) of each row in row order, then a READ of each. Returns the time the CASes
     * were posted when every lock was taken, else releases the ones taken and returns {@code Long.MIN_VALUE}.
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
        doorbell(2 * n, "lock CASes and READs");
        int taken = 0;
        for (int i = 0; i < n; i++) {
            if (local.getLong(LOCK_RESULTS + 8L * i) == 0) {
                held[taken++] = sorted[i];
            }
        }
        heldCount = taken;
        if (taken == n) {
            return postedAt;
        }
        release();
        return Long.MIN_VALUE;
    }

    /** Unlock CASes (me &rarr; 0) of every row held, one doorbell; nothing was written. */
    private void release() {
        int n = heldCount;
        if (n == 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            wrs[i].cas(local, UNLOCK_RESULTS + 8L * i, lockAddress(held[i]), me, 0).flags(0);
        }
        doorbell(n, "unlock CASes");
        checkUnlocked(n);
        heldCount = 0;
    }

    /**
     * Doorbell 2: the intent log, the slot images in order, FETCH_ADD(version, +1) and CAS(lock, me &rarr; 0) of every
     * row held.
     */
    private void commit(Image[] images) {
        int n = heldCount;
        int tagOfOp = (int) sequence;
        long logAt = stagingAt;
        int w = 0;
        local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp,
            CuckooTableDescriptor.logHeader(n, images.length)));
        for (int i = 0; i < n; i++) {
            long version = local.getLong(heldRowAt(i) + CuckooTableDescriptor.VERSION_IN_ROW);
            local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp, held[i]));
            local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp, (int) version));
            local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp, (int) (version >>> 32)));
        }
        for (Image im : images) {
            local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp,
                CuckooTableDescriptor.logPlacement(im.ordinal(), im.slot())));
            for (int d : im.data()) {
                local.putLong(logAt + 8L * w++, CuckooTableDescriptor.tagged(tagOfOp, d));
            }
        }
        int logBytes = 8 * w;
        long imagesAt = logAt + CuckooTableDescriptor.logBytes(keyCapacity, valueCapacity);
        for (int k = 0; k < images.length; k++) {
            Image im = images[k];
            // The row's version read under its lock: nobody else bumps it while we hold the lock.
            long version = local.getLong(heldRowAt(im.ordinal()) + CuckooTableDescriptor.VERSION_IN_ROW);
            int t = (int) (version + 1);
            long at = imagesAt + (long) k * slotBytes;
            for (int i = 0; i < slotWords; i++) {
                local.putLong(at + 8L * i, CuckooTableDescriptor.tagged(t, im.data()[i]));
            }
        }
        // The staging is complete before the post: the NIC reads it after the doorbell (R2).
        int c = 0;
        wrs[c++].write(local, logAt, logBytes, log).flags(0);
        for (int k = 0; k < images.length; k++) {
            Image im = images[k];
            // R6: this WRITE lands only after the log and every earlier slot image of this list are placed whole.
            wrs[c++].write(local, imagesAt + (long) k * slotBytes, slotBytes,
                rowAddress(held[im.ordinal()]).plus(CuckooTableDescriptor.slotInRow(im.slot(), keyCapacity,
                    valueCapacity))).flags(0);
        }
        for (int i = 0; i < n; i++) {
            // R7: the version bump executes only after every slot WRITE before it on this queue pair is placed.
            wrs[c++].faa(local, BUMP_RESULTS + 8L * i, versionAddress(held[i]), 1).flags(0);
        }
        for (int i = 0; i < n; i++) {
            // R9: the unlock does not pass the bumps before it, so a row is free only once its new version is out.
            wrs[c++].cas(local, UNLOCK_RESULTS + 8L * i, lockAddress(held[i]), me, 0).flags(0);
        }
        doorbell(c, "log, slot WRITEs, version bumps and unlocks");
        checkUnlocked(n);
        heldCount = 0;
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
            long at = heldRowAt(o);
            int version = (int) local.getLong(at + CuckooTableDescriptor.VERSION_IN_ROW);
            for (int s = 0; s < slots && n < found.length; s++) {
                long t = slotTag(local, at, s);
                if (t != TORN && ((version - (int) t) & 0xFFFF_FFFFL) >= REFRESH_AGE) {
                    found[n++] = new Image(o, s, dataOf(local, at, s));
                }
            }
        }
        return Arrays.copyOf(found, n);
    }

    private void checkUnlocked(int n) {
        for (int i = 0; i < n; i++) {
            long was = local.getLong(UNLOCK_RESULTS + 8L * i);
            if (was != me) {
                throw new IllegalStateException("lock of row " + held[i] + " at " + table + " held as 0x"
                    + Long.toHexString(me) + " was 0x" + Long.toHexString(was) + " at release");
            }
        }
    }

    private int ordinal(int row) {
        for (int i = 0; i < heldCount; i++) {
            if (held[i] == row) {
                return i;
            }
        }
        throw new IllegalStateException("row " + row + " not held");
    }

    private long heldRowAt(int ordinal) {
        return ROWS_AT + (long) ordinal * rowBytes;
    }

    // ----------------------------------------------------------------------------------------------- kicks

    /**
     * Breadth-first search from the two full rows (read under their locks, now released) for a chain of keys, each
     * movable to its other row, ending at a row with a free slot. One doorbell of READs per level; the rows read
     * are not locked, so the path is only a candidate that {@link #pathHolds} checks under the locks.
     *
     * @return a path, or null if none was found within {@value CuckooTableDescriptor#MAX_KICK_DEPTH} kicks and
     *     {@value #MAX_SEARCH_ROWS} rows
     */
    private Path search(int r1, int r2, long at1, long at2) {
        if (search == null) {
            search = endpoint.node().allocate((long) MAX_SEARCH_ROWS * rowBytes, Access.LOCAL_WRITE);
        }
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
                MemoryRegion buf = depth == 1 ? local : search;
                long at = depth == 1 ? (node == 0 ? at1 : at2) : (long) (node - levelStart) * rowBytes;
                for (int s = 0; s < slots && readRows < MAX_SEARCH_ROWS; s++) {
                    if (slotTag(buf, at, s) == TORN) {
                        continue;
                    }
                    int header = CuckooTableDescriptor.dataOf(buf.getLong(at + slotAt(s)));
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
            doorbell(m, "kick search READs");
            for (int i = 0; i < m; i++) {
                int f = firstFreeIn(search, (long) i * rowBytes);
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
            long at = heldRowAt(ordinal(p.rows()[i]));
            if (find(local, at, p.keys()[i]) != p.slots()[i]) {
                return false;
            }
        }
        long last = heldRowAt(ordinal(p.rows()[p.kicks()]));
        return slotTag(local, last, p.freeSlot()) != TORN && isEmpty(local, last, p.freeSlot());
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
            images[c++] = new Image(to, slot, dataOf(local, heldRowAt(from), p.slots()[i - 1]));
        }
        images[c] = new Image(ordinal(p.rows()[0]), p.slots()[0], image(key, value));
        return images;
    }

    // ------------------------------------------------------------------------------------------- slot codec

    private static final long TORN = Long.MIN_VALUE;

    private long slotAt(int slot) {
        return CuckooTableDescriptor.slotInRow(slot, keyCapacity, valueCapacity);
    }

    /** @return the slot's one tag (unsigned), or {@link #TORN} if its words carry more than one */
    private long slotTag(MemoryRegion buf, long rowAt, int slot) {
        long at = rowAt + slotAt(slot);
        int t = CuckooTableDescriptor.tagOf(buf.getLong(at));
        for (int i = 1; i < slotWords; i++) {
            if (CuckooTableDescriptor.tagOf(buf.getLong(at + 8L * i)) != t) {
                return TORN; // words of two writes: the READ met a slot WRITE (R18)
            }
        }
        return t & 0xFFFF_FFFFL;
    }

    /**
     * The GET's check (docs/kv.md, "GET"): every slot's words carry one tag, none above the version read before the
     * row; then the row as read is the row at the instant the READs began.
     */
    private boolean rowIsSnapshot(MemoryRegion buf, long rowAt, long version) {
        for (int s = 0; s < slots; s++) {
            long t = slotTag(buf, rowAt, s);
            if (t == TORN || !CuckooTableDescriptor.tagNotAfter((int) t, version)) {
                return false;
            }
        }
        return true;
    }

    /** @return the slot holding {@code key} (whole, inline, equal bytes), or -1 */
    private int find(MemoryRegion buf, long rowAt, byte[] key) {
        for (int s = 0; s < slots; s++) {
            if (slotTag(buf, rowAt, s) == TORN) {
                continue;
            }
            long at = rowAt + slotAt(s);
            int header = CuckooTableDescriptor.dataOf(buf.getLong(at));
            if (CuckooTableDescriptor.kindOf(header) != CuckooTableDescriptor.KIND_INLINE
                || CuckooTableDescriptor.keyLengthOf(header) != key.length) {
                continue;
            }
            boolean equal = true;
            for (int i = 0; i < key.length && equal; i++) {
                equal = byteAt(buf, at + 8, i) == key[i];
            }
            if (equal) {
                return s;
            }
        }
        return -1;
    }

    private static byte byteAt(MemoryRegion buf, long wordsAt, int i) {
        int low = CuckooTableDescriptor.dataOf(buf.getLong(wordsAt + 8L * (i / CuckooTableDescriptor.BYTES_PER_WORD)));
        return (byte) (low >>> (8 * (i % CuckooTableDescriptor.BYTES_PER_WORD)));
    }

    private byte[] keyOf(MemoryRegion buf, long rowAt, int slot) {
        long at = rowAt + slotAt(slot);
        int length = CuckooTableDescriptor.keyLengthOf(CuckooTableDescriptor.dataOf(buf.getLong(at)));
        if (length > keyCapacity) {
            return null;
        }
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            k[i] = byteAt(buf, at + 8, i);
        }
        return k;
    }

    private byte[] valueOf(MemoryRegion buf, long rowAt, int slot) {
        long at = rowAt + slotAt(slot);
        int length = CuckooTableDescriptor.valueLengthOf(CuckooTableDescriptor.dataOf(buf.getLong(at)));
        if (length > valueCapacity) {
            throw new IllegalStateException("slot " + slot + " of a row at " + table + " claims a value of " + length
                + " bytes, above the capacity " + valueCapacity);
        }
        byte[] v = new byte[length];
        long valueAt = at + 8L * CuckooTableDescriptor.valueWordIndex(keyCapacity);
        for (int i = 0; i < length; i++) {
            v[i] = byteAt(buf, valueAt, i);
        }
        return v;
    }

    private boolean isEmpty(MemoryRegion buf, long rowAt, int slot) {
        int header = CuckooTableDescriptor.dataOf(buf.getLong(rowAt + slotAt(slot)));
        return CuckooTableDescriptor.kindOf(header) == CuckooTableDescriptor.KIND_EMPTY;
    }

    private int firstFreeIn(MemoryRegion buf, long rowAt) {
        for (int s = 0; s < slots; s++) {
            if (slotTag(buf, rowAt, s) != TORN && isEmpty(buf, rowAt, s)) {
                return s;
            }
        }
        return -1;
    }

    private int firstFree(long rowAt) {
        return firstFreeIn(local, rowAt);
    }

    private int freeSlots(long rowAt) {
        int n = 0;
        for (int s = 0; s < slots; s++) {
            if (slotTag(local, rowAt, s) != TORN && isEmpty(local, rowAt, s)) {
                n++;
            }
        }
        return n;
    }

    /** @return the low halves of a slot's words as read (a key moving to another row keeps them, with a new tag) */
    private int[] dataOf(MemoryRegion buf, long rowAt, int slot) {
        int[] d = new int[slotWords];
        long at = rowAt + slotAt(slot);
        for (int i = 0; i < slotWords; i++) {
            d[i] = CuckooTableDescriptor.dataOf(buf.getLong(at + 8L * i));
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

    /** Posts {@code wrs[0..n)} with one doorbell and waits for them (the last is signaled: one round trip). */
    private void doorbell(int n, String what) {
        QueuePair qp = endpoint.queuePair(table.nodeId());
        if (tag.post(qp, wrs, n) != QueuePair.POSTED) {
            throw new RemoteAccessException(WcStatus.GENERAL_ERR, what + " to " + table + ": the send queue is full");
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
                + "buffers");
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
