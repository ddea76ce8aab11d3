package dev.remora.kv;

import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cuckoo map's contract on the fast in-process fabric: every operation's outcome, keys and values of every length
 * up to the capacities, no key ever answered with another key's value, TABLE_FULL, bad input, the round trips per
 * operation, and the load factor reached before the first TABLE_FULL.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapTest {
    private Fabric fabric;
    private Node home;
    private Endpoint ep;

    @BeforeEach
    void open() {
        fabric = SimFabric.open();
        home = fabric.addNode("home");
        ep = Endpoint.open(fabric.addNode("client"));
    }

    @AfterEach
    void close() {
        ep.close();
        fabric.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(int length, int seed) {
        byte[] a = new byte[length];
        for (int i = 0; i < length; i++) {
            a[i] = (byte) (seed * 31 + i * 7 + 1);
        }
        return a;
    }

    @Test
    void getPutUpdateDeleteAndCompareAndSet() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(16))) {
            assertNull(m.get(b("a")));
            assertEquals(new Result(Status.NOT_FOUND, null), m.lookup(b("a")));
            assertEquals(new Result(Status.NOT_FOUND, null), m.update(b("a"), b("x")));
            assertEquals(new Result(Status.NOT_FOUND, null), m.delete(b("a")));
            assertNull(m.get(b("a")), "update and delete of a missing key wrote nothing");

            assertEquals(new Result(Status.OK, null), m.put(b("a"), b("1")));
            assertArrayEquals(b("1"), m.get(b("a")));
            assertTrue(m.containsKey(b("a")));
            assertEquals(new Result(Status.OK, b("1")), m.put(b("a"), b("2")));
            assertEquals(new Result(Status.OK, b("2")), m.update(b("a"), b("3")));
            assertArrayEquals(b("3"), m.get(b("a")));

            assertEquals(new Result(Status.CAS_MISMATCH, b("3")), m.compareAndSet(b("a"), b("2"), b("4")));
            assertEquals(new Result(Status.CAS_MISMATCH, b("3")), m.compareAndSet(b("a"), null, b("4")));
            assertArrayEquals(b("3"), m.get(b("a")));
            assertEquals(new Result(Status.OK, b("3")), m.compareAndSet(b("a"), b("3"), b("4")));
            assertArrayEquals(b("4"), m.get(b("a")));
            assertEquals(new Result(Status.OK, b("4")), m.compareAndSet(b("a"), b("4"), null), "cas to null deletes");
            assertNull(m.get(b("a")));
            assertEquals(new Result(Status.CAS_MISMATCH, null), m.compareAndSet(b("a"), b("4"), b("5")));
            assertEquals(new Result(Status.OK, null), m.compareAndSet(b("a"), null, b("5")), "cas from null inserts");
            assertArrayEquals(b("5"), m.get(b("a")));
            assertEquals(new Result(Status.OK, null), m.compareAndSet(b("z"), null, null), "absent stays absent");
            assertNull(m.get(b("z")));

            assertEquals(new Result(Status.OK, b("5")), m.delete(b("a")));
            assertNull(m.get(b("a")));
            assertEquals(new Result(Status.OK, null), m.put(b("a"), new byte[0]));
            assertArrayEquals(new byte[0], m.get(b("a")), "an empty value is a value, not a miss");
        }
    }

    @Test
    void keysAndValuesOfEveryLengthRoundTrip() {
        Params p = new Params().rows(64).keyCapacity(19).valueCapacity(37);
        try (CuckooMap m = CuckooMap.create(ep, home, p)) {
            Map<Integer, byte[]> written = new HashMap<>();
            for (int k = 0; k <= 19; k++) {
                for (int v = 0; v <= 37; v += k % 2 == 0 ? 1 : 5) {
                    byte[] value = bytes(v, k);
                    assertEquals(Status.OK, m.put(bytes(k, 100), value).status());
                    assertArrayEquals(value, m.get(bytes(k, 100)), "key length " + k + ", value length " + v);
                }
                written.put(k, m.get(bytes(k, 100)));
            }
            for (var e : written.entrySet()) {
                assertArrayEquals(e.getValue(), m.get(bytes(e.getKey(), 100)), "key length " + e.getKey());
            }
        }
    }

    /** Keys that share bytes, prefixes and lengths: each one's GET returns its own value only. */
    @Test
    void aKeyNeverReturnsAnotherKeysValue() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(8).slotsPerRow(4))) {
            byte[][] keys = {b(""), b("a"), b("aa"), b("ab"), b("ba"), new byte[1], new byte[2], new byte[16],
                b("aaaaaaaaaaaaaaaa"), b("aaaaaaaaaaaaaaab"), b("baaaaaaaaaaaaaaa")};
            for (int i = 0; i < keys.length; i++) {
                assertEquals(Status.OK, m.put(keys[i], b("value of " + i)).status(), "key " + i);
            }
            for (int i = 0; i < keys.length; i++) {
                assertArrayEquals(b("value of " + i), m.get(keys[i]), "key " + i);
            }
            assertNull(m.get(b("aaa")));
            assertNull(m.get(new byte[3]));
            assertNull(m.get(b("aaaaaaaaaaaaaaac")));
            m.delete(b("a"));
            assertNull(m.get(b("a")));
            assertArrayEquals(b("value of 2"), m.get(b("aa")));
        }
    }

    @Test
    void aFullTableAnswersTableFullAndKeepsWhatItHolds() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(2).slotsPerRow(2))) {
            int inserted = 0;
            Status last = Status.OK;
            for (int i = 0; i < 10 && last == Status.OK; i++) {
                last = m.put(b("key" + i), b("v" + i)).status();
                inserted += last == Status.OK ? 1 : 0;
            }
            assertEquals(Status.TABLE_FULL, last);
            assertEquals(4, inserted, "two rows of two slots hold four keys");
            for (int i = 0; i < inserted; i++) {
                assertArrayEquals(b("v" + i), m.get(b("key" + i)));
            }
            assertNull(m.get(b("key" + inserted)), "the refused key was not written");
            assertEquals(Status.OK, m.put(b("key0"), b("again")).status(), "a full table still replaces");
            assertEquals(Status.TABLE_FULL, m.compareAndSet(b("new"), null, b("x")).status());
            assertEquals(Status.OK, m.delete(b("key1")).status());
            assertEquals(Status.OK, m.put(b("new"), b("x")).status(), "a deleted slot is reused");
        }
    }

    @Test
    void badInputNamesTheLimit() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(4).keyCapacity(16).valueCapacity(32))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.get(new byte[17]));
            assertTrue(e.getMessage().contains("keyCapacity 16"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> m.put(b("k"), new byte[33]));
            assertTrue(e.getMessage().contains("valueCapacity 32"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> m.put(null, b("v")));
            assertThrows(IllegalArgumentException.class, () -> m.put(b("k"), null));
            assertThrows(IllegalArgumentException.class, () -> m.update(b("k"), null));
            assertThrows(IllegalArgumentException.class, () -> m.delete(null));
            assertThrows(IllegalArgumentException.class, () -> m.lookup(null));
            assertThrows(IllegalArgumentException.class, () -> m.compareAndSet(b("k"), new byte[33], null));
            assertNull(m.get(b("k")), "nothing was written by the refused calls");
        }
        e(() -> new Params().rows(3).conclude(), "power of two");
        e(() -> new Params().rows(1).conclude(), "power of two");
        e(() -> new Params().keyCapacity(15).conclude(), "keyCapacity must be in 16..255");
        e(() -> new Params().keyCapacity(256).conclude(), "keyCapacity must be in 16..255");
        e(() -> new Params().valueCapacity(31).conclude(), "valueCapacity must be in 32..4096");
        e(() -> new Params().clients(0).conclude(), "clients");
        e(() -> new Params().slotsPerRow(0).conclude(), "slotsPerRow");
        e(() -> new Params().lease(10, 10).conclude(), "margin");
    }

    private static void e(Runnable r, String expected) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(x.getMessage().contains(expected), x.getMessage());
    }

    @Test
    void attachSharesTheTableAndClientIdsRunOut() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(4).clients(2));
             Endpoint other = Endpoint.open(fabric.addNode("other"))) {
            RemoteAddress a = m.address();
            try (CuckooMap n = CuckooMap.attach(other, a)) {
                assertEquals(0, m.clientId());
                assertEquals(1, n.clientId());
                m.put(b("k"), b("from m"));
                assertArrayEquals(b("from m"), n.get(b("k")));
                n.put(b("k"), b("from n"));
                assertArrayEquals(b("from n"), m.get(b("k")));
                assertThrows(IllegalStateException.class, () -> CuckooMap.attach(other, a));
            }
            assertThrows(IllegalArgumentException.class, () -> CuckooMap.attach(ep, a.plus(8)));
        }
    }

    /**
     * The intent log lands in the layout the descriptor fixes: every word of the used prefix tagged with the op's
     * sequence, the held-with word (the op's own lock word), the two rows held with the versions read under their
     * locks, and the slot image written; and the slot in the row carries the tag {@code version + 1}, which the row's
     * version now equals.
     */
    @Test
    void anUpdateWritesItsIntentLogAndTagsItsSlotWithTheNewVersion() {
        Params p = new Params().rows(16).slotsPerRow(2);
        try (CuckooMap m = CuckooMap.create(ep, home, p); Endpoint raw = Endpoint.open(fabric.addNode("raw"))) {
            m.put(b("first"), b("1"));
            m.put(b("k"), b("v"));
            int k = p.keyCapacity();
            int v = p.valueCapacity();
            int slotWords = CuckooTableDescriptor.slotWords(k, v);
            int used = CuckooTableDescriptor.usedLogWords(2, 1, k, v);
            long[] logWords = new long[used];
            RemoteAddress logAt = m.address().plus(CuckooTableDescriptor.logOffset(m.clientId(), k, v));
            for (int i = 0; i < used; i++) {
                logWords[i] = raw.readLong(logAt.plus(8L * i));
            }
            int seq = CuckooTableDescriptor.tagOf(logWords[0]);
            assertEquals(2, seq, "the handle's second op");
            for (long w : logWords) {
                assertEquals(seq, CuckooTableDescriptor.tagOf(w), "every log word carries the op's sequence");
            }
            assertEquals(CuckooTableDescriptor.logHeader(2, 1), CuckooTableDescriptor.dataOf(logWords[0]));
            long heldWith = (CuckooTableDescriptor.dataOf(logWords[1]) & 0xFFFF_FFFFL)
                | (long) CuckooTableDescriptor.dataOf(logWords[2]) << 32;
            assertEquals(CuckooTableDescriptor.lockWord(m.clientId(), seq), heldWith,
                "an update's rows are held with its own lock word");
            int r1 = m.row1(b("k"));
            int r2 = m.row2(b("k"), r1);
            int[] rows = {CuckooTableDescriptor.dataOf(logWords[3]), CuckooTableDescriptor.dataOf(logWords[6])};
            assertEquals(Math.min(r1, r2), rows[0], "rows held in row order");
            assertEquals(Math.max(r1, r2), rows[1]);
            int placement = CuckooTableDescriptor.dataOf(logWords[9]);
            int row = rows[placement & 0xFF];
            int slot = placement >>> 8;
            long loggedVersion = CuckooTableDescriptor.dataOf(logWords[4 + 3 * (placement & 0xFF)]) & 0xFFFF_FFFFL;
            RemoteAddress rowAt = m.address().plus(CuckooTableDescriptor.rowOffset(row, 2, p.clients(), k, v));
            assertEquals(loggedVersion + 1, raw.readLong(rowAt.plus(CuckooTableDescriptor.VERSION_IN_ROW)));
            assertEquals(0, raw.readLong(rowAt.plus(CuckooTableDescriptor.LOCK_IN_ROW)), "unlocked");
            RemoteAddress slotAt = rowAt.plus(CuckooTableDescriptor.slotInRow(slot, k, v));
            for (int i = 0; i < slotWords; i++) {
                long word = raw.readLong(slotAt.plus(8L * i));
                assertEquals((int) (loggedVersion + 1), CuckooTableDescriptor.tagOf(word), "slot word " + i);
                assertEquals(CuckooTableDescriptor.dataOf(logWords[10 + i]), CuckooTableDescriptor.dataOf(word),
                    "the logged image is the slot's, word " + i);
            }
            int header = CuckooTableDescriptor.dataOf(logWords[10]);
            assertEquals(CuckooTableDescriptor.KIND_INLINE, CuckooTableDescriptor.kindOf(header));
            assertEquals(1, CuckooTableDescriptor.keyLengthOf(header));
            assertEquals(1, CuckooTableDescriptor.valueLengthOf(header));
        }
    }

    /**
     * A slot that is not rewritten while its row's version advances would, after 2^31 bumps, compare as newer than the
     * version modulo 2^32 and every GET of the row would be rejected: writers refresh slots 2^30 behind. The versions
     * are advanced here by FETCH_ADD (the only way they change), 2^30 + 5 at a time: twice without a write in between
     * would leave the slot 2^31 + 10 behind.
     */
    @Test
    void writersRefreshSlotsFarBehindTheirRowsVersion() {
        Params p = new Params().rows(2).slotsPerRow(2);
        try (CuckooMap m = CuckooMap.create(ep, home, p); Endpoint raw = Endpoint.open(fabric.addNode("raw"))) {
            m.put(b("cold"), b("kept"));
            advanceVersions(raw, m, p, CuckooMap.REFRESH_AGE + 5);
            assertArrayEquals(b("kept"), m.get(b("cold")));
            m.put(b("hot"), b("1")); // the writer holds both rows and refreshes every slot 2^30 behind
            advanceVersions(raw, m, p, CuckooMap.REFRESH_AGE + 5);
            assertArrayEquals(b("kept"), m.get(b("cold")), "the cold slot was refreshed, so it reads as old");
            assertArrayEquals(b("1"), m.get(b("hot")));
            m.put(b("hot"), b("2"));
            assertArrayEquals(b("2"), m.get(b("hot")));
            assertArrayEquals(b("kept"), m.get(b("cold")));
        }
    }

    private static void advanceVersions(Endpoint raw, CuckooMap m, Params p, long by) {
        for (int r = 0; r < p.rows(); r++) {
            long row = CuckooTableDescriptor.rowOffset(r, p.slotsPerRow(), p.clients(), p.keyCapacity(),
                p.valueCapacity());
            raw.faa(m.address().plus(row + CuckooTableDescriptor.VERSION_IN_ROW), by);
        }
    }

    /** GET: one doorbell, one round trip; an update (replace or insert into a free slot): two. */
    @Test
    void roundTripsPerOperation() {
        try (CuckooMap m = CuckooMap.create(ep, home, new Params().rows(64))) {
            VerbsStatistics s0 = ep.statistics();
            m.put(b("k"), b("v"));
            VerbsStatistics put = ep.statistics().minus(s0);
            assertEquals(2, put.roundTrips(), put.toString());
            assertEquals(2, put.doorbells(), put.toString());
            assertEquals(4, put.compareAndSwaps(), "two lock CASes, two unlock CASes: " + put);
            assertEquals(2, put.fetchAndAdds(), "two version bumps: " + put);
            assertEquals(2, put.writes(), "the log and one slot image: " + put);
            assertEquals(2, put.reads(), put.toString());

            VerbsStatistics s1 = ep.statistics();
            assertArrayEquals(b("v"), m.get(b("k")));
            VerbsStatistics get = ep.statistics().minus(s1);
            assertEquals(1, get.roundTrips(), get.toString());
            assertEquals(1, get.doorbells(), get.toString());
            assertEquals(2, get.fetchAndAdds(), get.toString());
            assertEquals(2, get.reads(), get.toString());
            assertEquals(0, get.writes() + get.compareAndSwaps(), get.toString());

            VerbsStatistics s2 = ep.statistics();
            m.update(b("k"), b("w"));
            m.delete(b("k"));
            m.compareAndSet(b("k"), null, b("x"));
            VerbsStatistics updates = ep.statistics().minus(s2);
            assertEquals(6, updates.roundTrips(), "update, delete, compareAndSet: two each: " + updates);

            VerbsStatistics s3 = ep.statistics();
            assertNull(m.get(b("missing")));
            assertEquals(1, ep.statistics().minus(s3).roundTrips(), "a miss is one round trip too");
            System.out.println("[kv] round trips: put " + put.roundTrips() + ", get " + get.roundTrips()
                + ", update/delete/cas " + updates.roundTrips() / 3);
        }
    }

    /**
     * 4-slot rows: the load factor reached before the first TABLE_FULL, inserting distinct keys into 1,024 rows.
     * Kicks make it; without them two-choice 4-slot rows fill to well under 90 %.
     */
    @Test
    void fourSlotRowsFillBeyondNinetyPercentBeforeTheFirstTableFull() {
        Params p = new Params().rows(1024).slotsPerRow(4);
        try (CuckooMap m = CuckooMap.create(ep, home, p)) {
            int inserted = 0;
            long kicks = 0;
            for (int i = 0; i < m.capacity(); i++) {
                VerbsStatistics before = ep.statistics();
                Status s = m.put(b("key-" + i), b("v" + i)).status();
                if (s != Status.OK) {
                    assertEquals(Status.TABLE_FULL, s);
                    break;
                }
                kicks += ep.statistics().minus(before).roundTrips() > 2 ? 1 : 0;
                inserted++;
            }
            double load = inserted / (double) m.capacity();
            System.out.printf("[kv] 4-slot rows, 1024 rows: load %.4f (%d of %d) before the first TABLE_FULL; "
                + "%d inserts kicked%n", load, inserted, m.capacity(), kicks);
            assertTrue(load >= 0.9, "load factor " + load);
            assertTrue(kicks > 0, "some inserts kicked");
            for (int i = 0; i < inserted; i++) {
                assertArrayEquals(b("v" + i), m.get(b("key-" + i)), "key-" + i + " after the kicks");
            }
            assertFalse(m.containsKey(b("key-" + inserted)));
        }
    }
}
