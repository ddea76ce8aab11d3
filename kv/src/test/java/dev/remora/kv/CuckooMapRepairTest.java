package dev.remora.kv;

import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash repair, step by step, on the fast fabric: a client is made to crash at a chosen doorbell (it posts only a
 * prefix of the doorbell's requests, which land, then stops for good), and another client repairs what it left
 * (docs/kv.md, "Crashes"): from a GET or from a writer, by roll-forward or by unlocking only, a kick, a repairer that
 * crashes in turn, a repairer past its lease that puts the word back, and {@link CuckooMap#recover()}. Each checks
 * the outcome, the table's memory read directly (no row locked, no slot torn or unpublished, no key twice), and the
 * doorbells the repair rang (its round trips).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapRepairTest {
    private static final long LEASE_NS = 30_000_000;
    private static final long MARGIN_NS = 10_000_000;

    private SimFabric fabric;
    private Node home;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final Map<CuckooMap, Endpoint> endpointOf = new java.util.IdentityHashMap<>();

    @BeforeEach
    void open() {
        fabric = SimFabric.open();
        home = fabric.addNode("home");
    }

    @AfterEach
    void close() {
        for (Endpoint ep : endpoints) {
            ep.close();
        }
        fabric.close();
    }

    private CuckooMap client(MemoryRegion table) {
        Endpoint ep = Endpoint.open(fabric.addNode("client" + endpoints.size()));
        endpoints.add(ep);
        CuckooMap m = CuckooMap.attach(ep, table.remote(0));
        endpointOf.put(m, ep);
        return m;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void sleepPastLease() throws InterruptedException {
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LEASE_NS) + 5);
    }

    /** Records the doorbells a client rings, and its endpoint's statistics before each. */
    static final class Doorbells implements CuckooMap.Hook {
        final List<Point> rung = new ArrayList<>();
        final List<VerbsStatistics> before = new ArrayList<>();
        private final Endpoint ep;

        Doorbells(Endpoint ep) {
            this.ep = ep;
        }

        @Override
        public int beforePost(Point point, int requests) {
            rung.add(point);
            before.add(ep == null ? VerbsStatistics.ZERO : ep.statistics());
            return requests;
        }

        /** @return the verbs of the doorbells from {@code from} up to (not including) the next {@code until} after it */
        VerbsStatistics costFrom(Point from, Point until) {
            int i = rung.indexOf(from);
            int j = i + 1;
            while (rung.get(j) != until) {
                j++;
            }
            return before.get(j).minus(before.get(i));
        }
    }

    private Map<String, String> quiescent(MemoryRegion table, Params p) {
        return TableMemory.checkQuiescent(table::getLong, p);
    }

    /**
     * A client crashes inside doorbell 2 after its log and slot image landed, before the bumps: the slot is tagged
     * above its row's version, so GETs reject the row (BUSY) for the lease; then a GET repairs it by rolling the op
     * forward (3 round trips: READ of the log; its own log, takeover, version; images, version CASes, unlocks) and
     * returns the new value.
     */
    @Test
    void aGetRollsForwardARowLeftUnpublishedInsideDoorbell2() throws Exception {
        Params p = new Params().rows(16).slotsPerRow(2).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap reader = client(table);
        assertEquals(Status.OK, a.put(b("k"), b("old")).status());
        a.hook = CrashHooks.at(Set.of(Point.COMMIT), 2); // the log and the image land; no bump, no unlock
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(b("k"), b("new")));
        Doorbells rung = new Doorbells(endpointOf.get(reader));
        reader.hook = rung;
        Result r = reader.lookup(b("k"));
        // Within the lease every GET is rejected (the row is unpublished): BUSY, or, if the call outlasted the lease
        // (a slow machine), the value after its own repair; never the old value.
        assertTrue(r.status() == Status.BUSY || r.equals(new Result(Status.OK, b("new"))), r.toString());
        if (r.status() == Status.BUSY) {
            sleepPastLease();
            r = reader.lookup(b("k"));
        }
        assertEquals(new Result(Status.OK, b("new")), r, "rolled forward: the op took effect whole");
        List<Point> repair = rung.rung.stream().filter(x -> x != Point.GET).toList();
        assertEquals(List.of(Point.REPAIR_READ_LOG, Point.REPAIR_TAKE, Point.REPAIR_ROLL_FORWARD), repair);
        VerbsStatistics cost = rung.costFrom(Point.REPAIR_READ_LOG, Point.GET);
        assertEquals(3, cost.roundTrips(), "READ of the log; own log, takeover, version; roll-forward: " + cost);
        assertEquals(3, cost.doorbells(), cost.toString());
        assertEquals(Point.GET, rung.rung.get(rung.rung.size() - 1), "the GET that answers follows the repair");
        assertEquals(1, reader.repairs());
        assertEquals(Map.of("k", "new"), quiescent(table, p));
    }

    /**
     * A client crashes between its doorbells: its rows stay locked, its log does not name the op. A writer of the
     * same key finds the locks held by one word for the lease and unlocks each row (2 round trips: READ of the log,
     * the unlock CAS), bumping nothing; the crashed op never took effect.
     */
    @Test
    void aWriterUnlocksRowsLeftLockedBetweenTheDoorbells() {
        Params p = new Params().rows(16).slotsPerRow(2).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap writer = client(table);
        assertEquals(Status.OK, a.put(b("k"), b("old")).status());
        a.hook = CrashHooks.at(Set.of(Point.COMMIT), 0);
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(b("k"), b("new")));
        long[] versions = versions(table, p);
        Doorbells rung = new Doorbells(endpointOf.get(writer));
        writer.hook = rung;
        Result r = writer.put(b("k"), b("mine"));
        for (int i = 0; i < 1000 && r.status() == Status.BUSY; i++) {
            r = writer.put(b("k"), b("mine")); // BUSY until the lease has passed since the first sighting
        }
        assertEquals(new Result(Status.OK, b("old")), r, "the crashed op wrote nothing");
        assertEquals(2, writer.repairs(), "both rows of the key unlocked");
        List<Point> repairs = rung.rung.stream().filter(x -> x.name().startsWith("REPAIR")).toList();
        assertEquals(List.of(Point.REPAIR_READ_LOG, Point.REPAIR_UNLOCK, Point.REPAIR_READ_LOG, Point.REPAIR_UNLOCK),
            repairs);
        assertEquals(2, rung.costFrom(Point.REPAIR_READ_LOG, Point.REPAIR_READ_LOG).roundTrips(),
            "an unlock-only repair: READ of the log, the unlock CAS");
        long[] after = versions(table, p);
        int bumped = 0;
        for (int i = 0; i < after.length; i++) {
            bumped += (int) (after[i] - versions[i]);
        }
        assertEquals(2, bumped, "only the writer's own op bumped (its two rows); the unlock-only repairs bumped none");
        assertEquals(Map.of("k", "mine"), quiescent(table, p));
    }

    private static long[] versions(MemoryRegion table, Params p) {
        long[] v = new long[p.rows()];
        for (int r = 0; r < p.rows(); r++) {
            v[r] = table.getLong(CuckooTableDescriptor.rowOffset(r, p.slotsPerRow(), p.clients(), p.keyCapacity(),
                p.valueCapacity()) + CuckooTableDescriptor.VERSION_IN_ROW);
        }
        return v;
    }

    /** Four one-slot rows: X in row 0 or 1, Z and W filling rows 2 and 3, K (rows 0 and 2) kicks X to its other row. */
    private static final int ROWS = 4;

    /** @return the {@code skip}-th key "k0", "k1", ... whose rows h1, h2 are {@code a}, {@code b} (in either order) */
    private static byte[] keyWithRows(int a, int b, int skip) {
        return keyWithRows(a, b, skip, false);
    }

    private static byte[] keyWithRows(int a, int b, int skip, boolean ordered) {
        for (int i = 0, found = 0; i < 100_000; i++) {
            byte[] k = ("k" + i).getBytes(StandardCharsets.UTF_8);
            int r1 = CuckooMap.row1(k, ROWS);
            int r2 = CuckooMap.row2(k, r1, ROWS);
            boolean match = ordered ? r1 == a && r2 == b : Math.min(r1, r2) == a && Math.max(r1, r2) == b;
            if (match && found++ == skip) {
                return k;
            }
        }
        throw new IllegalStateException("no key with rows " + a + ", " + b);
    }

    /**
     * A client crashes inside a kick's doorbell 2 after the moving key's copy landed in its new row and before its old
     * slot was overwritten: the key is in two slots, under the locks, the new one unpublished. A GET of the moving key
     * is rejected for the lease, then rolls the kick forward; every key is then in exactly one slot.
     */
    @Test
    void aKickCutShortAfterTheCopyIsRolledForwardWithEveryKeyInOneSlot() throws Exception {
        Params p = new Params().rows(ROWS).slotsPerRow(1).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap reader = client(table);
        byte[] x = keyWithRows(0, 1, 0, true); // h1 = 0: an empty table puts X in row 0
        byte[] k = keyWithRows(0, 2, 0);
        assertEquals(Status.OK, a.put(x, b("x")).status());
        assertEquals(Status.OK, a.put(keyWithRows(2, 3, 0), b("z")).status());
        assertEquals(Status.OK, a.put(keyWithRows(2, 3, 1), b("w")).status());
        // K's rows 0 and 2 are full: its insert moves X to row 1 (the copy first, then K over X's old slot).
        a.hook = CrashHooks.at(Set.of(Point.KICK), 2); // the log and the copy of the moving key land
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(k, b("k")));
        sleepPastLease();
        Result r = reader.lookup(x);
        for (int i = 0; i < 100 && r.status() == Status.BUSY; i++) {
            r = reader.lookup(x);
        }
        assertEquals(new Result(Status.OK, b("x")), r);
        assertArrayEquals(b("k"), reader.get(k), "the kick was rolled forward: the new key is in");
        Map<String, String> contents = quiescent(table, p);
        assertEquals("x", contents.get(new String(x, StandardCharsets.UTF_8)));
        assertEquals("k", contents.get(new String(k, StandardCharsets.UTF_8)));
        assertTrue(reader.repairs() >= 1);
    }

    /**
     * A repairer crashes in turn, inside its roll-forward after one image landed: the op's first row holds the
     * repairer's word, its log names the same op. A third client repairs the repair (taking the first row over from
     * the crashed repairer's word) and the op takes effect whole.
     */
    @Test
    void aRepairerThatCrashesIsRepairedInTurn() throws Exception {
        Params p = new Params().rows(16).slotsPerRow(2).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap repairer = client(table);
        CuckooMap third = client(table);
        assertEquals(Status.OK, a.put(b("k"), b("old")).status());
        a.hook = CrashHooks.at(Set.of(Point.COMMIT), 1); // only the log lands: the rows stay locked, nothing written
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(b("k"), b("new")));
        // The repairer's update of the key waits out the lease, takes the op over and crashes in its roll-forward.
        repairer.hook = CrashHooks.at(Set.of(Point.REPAIR_ROLL_FORWARD), 1); // one image lands, no bump, no unlock
        assertThrows(CrashHooks.ClientCrashed.class, () -> {
            for (int i = 0; i < 1000; i++) {
                repairer.put(b("k"), b("first"));
            }
        });
        Doorbells rung = new Doorbells(null);
        third.hook = rung;
        Result r = third.lookup(b("k"));
        long deadline = System.nanoTime() + 30 * LEASE_NS; // a bound, not a wait
        while (r.status() == Status.BUSY && System.nanoTime() < deadline) {
            Thread.sleep(1);
            r = third.lookup(b("k"));
        }
        assertEquals(new Result(Status.OK, b("new")), r, "the crashed op, rolled forward by the third client");
        assertTrue(rung.rung.contains(Point.REPAIR_ROLL_FORWARD), "the third client rolled forward: " + rung.rung);
        Map<String, String> contents = quiescent(table, p);
        assertEquals("new", contents.get("k"));
    }

    /**
     * A repairer whose roll-forward would be posted past {@code lease - margin} of its takeover puts the held-with word
     * back on the first row, having written nothing; a later repair finishes the op.
     */
    @Test
    void aRepairerPastItsLeasePutsTheWordBackAndALaterRepairFinishes() throws Exception {
        Params p = new Params().rows(16).slotsPerRow(2).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap slow = client(table);
        CuckooMap later = client(table);
        assertEquals(Status.OK, a.put(b("k"), b("old")).status());
        a.hook = CrashHooks.at(Set.of(Point.COMMIT), 2);
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(b("k"), b("new")));
        Doorbells rung = new Doorbells(null);
        slow.hook = new CuckooMap.Hook() {
            @Override
            public int beforePost(Point point, int requests) {
                return rung.beforePost(point, requests);
            }

            @Override
            public void afterPost(Point point) {
                if (point == Point.REPAIR_TAKE) {
                    try {
                        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LEASE_NS - MARGIN_NS) + 5);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        };
        slow.lookup(b("k"));
        sleepPastLease();
        slow.lookup(b("k"));
        assertTrue(rung.rung.contains(Point.REPAIR_RESTORE), "the slow repairer put the word back: " + rung.rung);
        assertTrue(!rung.rung.contains(Point.REPAIR_ROLL_FORWARD), "and wrote nothing: " + rung.rung);
        Result r = later.lookup(b("k"));
        long deadline = System.nanoTime() + 30 * LEASE_NS; // a bound, not a wait
        while (r.status() == Status.BUSY && System.nanoTime() < deadline) {
            Thread.sleep(1);
            r = later.lookup(b("k"));
        }
        assertEquals(new Result(Status.OK, b("new")), r);
        assertEquals(Map.of("k", "new"), quiescent(table, p));
    }

    /**
     * {@link CuckooMap#recover()} repairs every row a crashed client left locked, also those no call of its own
     * touches: two crashed ops (one before doorbell 2, one inside it), repaired in one call.
     */
    @Test
    void recoverRepairsEveryRowACrashedClientLeftLocked() {
        Params p = new Params().rows(64).slotsPerRow(2).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        CuckooMap b = client(table);
        CuckooMap survivor = client(table);
        byte[] first = b("first");
        byte[] second = null;
        int f1 = CuckooMap.row1(first, p.rows());
        List<Integer> firstRows = List.of(f1, CuckooMap.row2(first, f1, p.rows()));
        for (int i = 0; second == null; i++) {
            byte[] k = b("second" + i);
            int s1 = CuckooMap.row1(k, p.rows());
            if (java.util.Collections.disjoint(firstRows, List.of(s1, CuckooMap.row2(k, s1, p.rows())))) {
                second = k; // the two ops share no row
            }
        }
        byte[] other = second;
        a.hook = CrashHooks.at(Set.of(Point.COMMIT), 0);
        assertThrows(CrashHooks.ClientCrashed.class, () -> a.put(first, b("1")));
        b.hook = CrashHooks.at(Set.of(Point.COMMIT), 2);
        assertThrows(CrashHooks.ClientCrashed.class, () -> b.put(other, b("2")));
        int repaired = survivor.recover();
        assertEquals(3, repaired, "two rows unlocked for the first op, one takeover for the second");
        Map<String, String> contents = quiescent(table, p);
        assertEquals(Map.of(new String(second, StandardCharsets.UTF_8), "2"), contents,
            "the second op was rolled forward; the first wrote nothing");
        assertNull(survivor.get(first));
        assertArrayEquals(b("2"), survivor.get(second));
        assertEquals(0, survivor.recover(), "nothing left to repair");
    }

    /**
     * A doorbell that writes the table and fails breaks the handle: its intent log must stay as it is for a repairer
     * of rows it may hold, so it refuses further calls. (Before, only a timeout broke the handle: after a failed
     * doorbell 2 a next update would overwrite the log, and a repairer of the first op's rows would then find a log
     * that does not name it and unlock them with its images half-written.)
     */
    @Test
    void aFailedWriteDoorbellBreaksTheHandle() {
        Params p = new Params().rows(16).lease(LEASE_NS, MARGIN_NS);
        MemoryRegion table = CuckooMap.allocateRegion(home, p);
        CuckooMap a = client(table);
        assertEquals(Status.OK, a.put(b("k"), b("v")).status());
        a.hook = new CuckooMap.Hook() {
            @Override
            public int beforePost(Point point, int requests) {
                if (point == Point.COMMIT) {
                    table.deregister(); // the home refuses the doorbell's requests: REM_ACCESS_ERR
                }
                return requests;
            }
        };
        assertThrows(RemoteAccessException.class, () -> a.put(b("k"), b("w")));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.lookup(b("k")));
        assertTrue(e.getMessage().contains("broken"), e.getMessage());
    }
}
