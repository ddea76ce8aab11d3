package dev.remora.kv;

import dev.remora.check.HistoryRecorder;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.testkit.Histories;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that abandon their operation at random points, on the fast fabric: four client threads on three nodes (one
 * on the table's home, two on node a, one on node b) get, put, delete and compareAndSet six keys of a table of eight
 * one-slot rows (kicks, TABLE_FULL), and now and then one "crashes": at a doorbell drawn at random (the lock CASes, a
 * release, a doorbell 2 of an update or a kick, any doorbell of a repair) it posts a random prefix of the doorbell's
 * requests (none, some, all), which land, and abandons the handle for good; the thread then attaches a new handle (a
 * restarted client, with a new client id) and goes on. The others repair what it left when they run into it. At the
 * end a new client runs {@link CuckooMap#recover()} and GETs every key. The history (each abandoned operation open,
 * so {@code info}) must be linearizable with the map model (recorded by {@link RecordedMap}), and the table's memory, read directly, must be quiescent
 * (no row locked, no slot torn or unpublished, no key twice) and hold what the final GETs returned.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapCrashConcurrencyTest {
    private static final int OPS_PER_CLIENT = 120;
    private static final int ROWS = 8;
    /** A lease long next to this machine's scheduling hiccups (a holder keeps its locks microseconds). */
    private static final long LEASE_NS = 100_000_000;
    private static final long MARGIN_NS = 50_000_000;
    private static final List<Set<Point>> CRASH_POINTS = List.of(EnumSet.of(Point.LOCK), EnumSet.of(Point.RELEASE),
        EnumSet.of(Point.COMMIT, Point.KICK, Point.REFRESH), EnumSet.of(Point.KICK),
        EnumSet.of(Point.REPAIR_UNLOCK, Point.REPAIR_TAKE, Point.REPAIR_ROLL_FORWARD, Point.REPAIR_FINISH));

    @Test
    void abandonedOperationsAreRepairedAndHistoriesStayLinearizable() throws Exception {
        Params p = new Params().rows(ROWS).slotsPerRow(1).clients(64).lease(LEASE_NS, MARGIN_NS);
        HistoryRecorder rec = Histories.recorder(System::nanoTime, e -> e instanceof CrashHooks.ClientCrashed);
        AtomicInteger abandoned = new AtomicInteger();
        AtomicInteger repairs = new AtomicInteger();
        AtomicInteger kicks = new AtomicInteger();
        long start = System.nanoTime();
        try (SimFabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node a = fabric.addNode("a");
            Node b = fabric.addNode("b");
            MemoryRegion table = CuckooMap.allocateRegion(home, p);
            String[] keys = KvTestKeys.distinctRowPairs(6, ROWS, 5);
            Node[] placement = {home, a, a, b};
            Parallel.run(placement.length, Duration.ofSeconds(45), id -> {
                Random rnd = new Random(2000 + id);
                try (Endpoint ep = Endpoint.open(placement[id])) {
                    CuckooMap m = CuckooMap.attach(ep, table.remote(0));
                    RecordedMap map = new RecordedMap(m, rec.client()::invoke);
                    String[] seen = new String[keys.length]; // null: absent
                    for (int i = 0; i < OPS_PER_CLIENT; i++) {
                        if (m.hook == null && rnd.nextInt(30) == 0) {
                            // armed until the client reaches such a doorbell
                            m.hook = CrashHooks.at(CRASH_POINTS.get(rnd.nextInt(CRASH_POINTS.size())), rnd.nextInt(4) - 1);
                        }
                        try {
                            operate(map, rnd, keys, "c" + id + "-" + i, seen);
                        } catch (CrashHooks.ClientCrashed e) {
                            abandoned.incrementAndGet();
                            repairs.addAndGet((int) m.repairs());
                            kicks.addAndGet((int) m.kicks());
                            m = CuckooMap.attach(ep, table.remote(0)); // the client restarts with a new id
                            map.restart(m, rec.client()::invoke);
                            java.util.Arrays.fill(seen, null);
                        }
                    }
                    repairs.addAndGet((int) m.repairs());
                    kicks.addAndGet((int) m.kicks());
                    m.close();
                }
            });
            String[] finals = new String[keys.length];
            try (Endpoint ep = Endpoint.open(b); CuckooMap last = CuckooMap.attach(ep, table.remote(0))) {
                repairs.addAndGet(last.recover());
                RecordedMap map = new RecordedMap(last, rec.client()::invoke);
                for (int k = 0; k < keys.length; k++) {
                    Result r = map.get(keys[k]);
                    assertTrue(r.status() != Status.BUSY, "a final GET after recover answered BUSY");
                    finals[k] = RecordedMap.text(r.value());
                }
            }
            Map<String, String> memory = TableMemory.checkQuiescent(table::getLong, p);
            for (int k = 0; k < keys.length; k++) {
                assertEquals(finals[k], memory.get(keys[k]), "key " + keys[k] + " in memory");
            }
        }
        Histories.assertLinearizable(rec.history(), Models.map());
        System.out.printf("[kv] fast fabric, abandoned operations: %d operations, %d abandoned, %d repairs, %d kicks, "
            + "linearizable, in %d ms%n", rec.history().operations().size(), abandoned.get(), repairs.get(),
            kicks.get(), (System.nanoTime() - start) / 1_000_000);
        assertTrue(abandoned.get() >= 3, "clients abandoned operations: " + abandoned.get());
        assertTrue(repairs.get() > 0, "someone repaired what they left");
    }

    private static void operate(RecordedMap map, Random rnd, String[] keys, String fresh, String[] seen) {
        int k = rnd.nextInt(keys.length);
        String key = keys[k];
        Result r;
        String after; // the key's value after an OK (null: absent)
        switch (rnd.nextInt(4)) {
            case 0 -> {
                r = map.get(key);
                after = RecordedMap.text(r.value());
            }
            case 1 -> {
                r = map.put(key, fresh);
                after = fresh;
            }
            case 2 -> {
                r = map.delete(key);
                after = null;
            }
            default -> {
                r = map.compareAndSet(key, rnd.nextInt(4) == 0 ? null : seen[k], fresh);
                after = fresh;
            }
        }
        switch (r.status()) {
            case OK -> seen[k] = after;
            case NOT_FOUND -> seen[k] = null;
            case CAS_MISMATCH -> seen[k] = RecordedMap.text(r.value());
            default -> {
            }
        }
    }
}
