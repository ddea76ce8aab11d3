package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent clients on three nodes (the table's home and two others; one client on the home, two on each other node)
 * doing get, put, delete and compareAndSet on a few keys, on the fast fabric; every operation is recorded with
 * {@link HistoryRecorder} and the history is checked against the checker's map model ({@link Models#map()}, every
 * key starting absent), as {@link RecordedMap} records them: a GET returns the value or absence, every PUT, DELETE and
 * compareAndSet the value it replaced (or found, on a mismatch), which the model checks; BUSY and TABLE_FULL (nothing
 * changed) are {@code fail}; a verb error would be {@code info}.
 *
 * <p>Two tables: one roomy (no kicks), one of 8 rows of one slot for 6 keys whose rows all lie in
 * 5 of the rows (no two keys with the same two), where inserts kick keys along paths while other clients read and
 * write them, and TABLE_FULL is answered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapConcurrencyTest {
    private static final int OPS_PER_CLIENT = 150;

    @ParameterizedTest(name = "{0} rows of {1} slots, {2} keys")
    @CsvSource({"64, 4, 3", "8, 1, 6"})
    void historiesAreLinearizable(int rows, int slots, int keyCount) throws Exception {
        HistoryRecorder rec = HistoryRecorder.inMemory();
        MapMix mix = new MapMix();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        try (Fabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node a = fabric.addNode("a");
            Node b = fabric.addNode("b");
            RemoteAddress table;
            try (Endpoint ep = Endpoint.open(home);
                 CuckooMap creator = CuckooMap.create(ep, home, new Params().rows(rows).slotsPerRow(slots).clients(8))) {
                table = creator.address();
            }
            String[] keys = KvTestKeys.distinctRowPairs(keyCount, rows, slots == 1 ? 5 : rows);
            Node[] placement = {home, a, a, b, b};
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < placement.length; c++) {
                int id = c;
                Node node = placement[c];
                Thread t = new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node); CuckooMap m = CuckooMap.attach(ep, table)) {
                        go.await();
                        run(id, m, rec, keys, mix);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "kv-client-" + c);
                threads.add(t);
                t.start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertTrue(!t.isAlive(), t.getName() + " still running");
            }
        }
        assertTrue(errors.isEmpty(), "client errors: " + errors);
        List<Operation> ops = rec.history().operations();
        CheckResult result = Checker.check(rec.history(), Models.map());
        System.out.printf("[kv] %d rows x %d slots, %d keys: %d operations, %d cas ok, %d puts kicked, %d BUSY, "
            + "%d TABLE_FULL, %s in %d ms%n", rows, slots, keyCount, ops.size(), mix.casOk.get(), mix.kicks.get(),
            mix.busy.get(), mix.full.get(), result.verdict(),
            (System.nanoTime() - start) / 1_000_000);
        assertEquals(Verdict.LINEARIZABLE, result.verdict(), result.cause());
        assertEquals(5 * OPS_PER_CLIENT - mix.busy.get() - mix.full.get(), ops.size(), "BUSY and TABLE_FULL are fail");
        assertTrue(mix.casOk.get() > 0, "some compareAndSet succeeded");
        assertTrue(mix.busy.get() < ops.size() / 10, "BUSY answers: " + mix.busy.get());
        if (slots == 1) {
            assertTrue(mix.kicks.get() > 0, "puts kicked keys while others read and wrote");
        }
    }

    private static void run(int id, CuckooMap m, HistoryRecorder rec, String[] keys, MapMix mix) {
        Random rnd = new Random(1000 + id);
        RecordedMap map = new RecordedMap(m, rec::invoke);
        String[] seen = new String[keys.length]; // the value last seen, null for absent
        for (int i = 0; i < OPS_PER_CLIENT; i++) {
            mix.step(m, map, map::get, rnd, keys, seen, "c" + id + "-" + i);
        }
    }
}
