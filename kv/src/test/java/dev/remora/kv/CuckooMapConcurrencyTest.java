package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Operation;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
        AtomicInteger busy = new AtomicInteger();
        AtomicInteger full = new AtomicInteger();
        AtomicInteger casOk = new AtomicInteger();
        AtomicInteger kicks = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        try (Fabric fabric = SimFabric.open()) {
            Node home = fabric.addNode("home");
            Node a = fabric.addNode("a");
            Node b = fabric.addNode("b");
            RemoteAddress table;
            String[] keys = new String[keyCount];
            try (Endpoint ep = Endpoint.open(home);
                 CuckooMap creator = CuckooMap.create(ep, home, new Params().rows(rows).slotsPerRow(slots).clients(8))) {
                table = creator.address();
                chooseKeys(creator, keys, slots == 1 ? 5 : rows);
            }
            Node[] placement = {home, a, a, b, b};
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < placement.length; c++) {
                int id = c;
                Node node = placement[c];
                Thread t = new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node); CuckooMap m = CuckooMap.attach(ep, table)) {
                        go.await();
                        run(id, m, rec, keys, new AtomicInteger[] {busy, full, casOk, kicks});
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
            + "%d TABLE_FULL, %s in %d ms%n", rows, slots, keyCount, ops.size(), casOk.get(), kicks.get(), busy.get(),
            full.get(), result.verdict(),
            (System.nanoTime() - start) / 1_000_000);
        assertEquals(Verdict.LINEARIZABLE, result.verdict(), result.cause());
        assertEquals(5 * OPS_PER_CLIENT - busy.get() - full.get(), ops.size(), "BUSY and TABLE_FULL are fail");
        assertTrue(casOk.get() > 0, "some compareAndSet succeeded");
        assertTrue(busy.get() < ops.size() / 10, "BUSY answers: " + busy.get());
        if (slots == 1) {
            assertTrue(kicks.get() > 0, "puts kicked keys while others read and wrote");
        }
    }

    private static void run(int id, CuckooMap m, HistoryRecorder rec, String[] keys,
                            AtomicInteger[] counters) {
        AtomicInteger busy = counters[0];
        AtomicInteger full = counters[1];
        AtomicInteger casOk = counters[2];
        AtomicInteger kicks = counters[3];
        int keyCount = keys.length;
        Random rnd = new Random(1000 + id);
        RecordedMap map = new RecordedMap(m, rec::invoke);
        String[] seen = new String[keyCount]; // the value last seen, null for absent
        for (int i = 0; i < OPS_PER_CLIENT; i++) {
            int k = rnd.nextInt(keyCount);
            String key = keys[k];
            String fresh = "c" + id + "-" + i;
            Result r;
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    r = map.get(key);
                    seen[k] = r.status() == Status.BUSY ? seen[k] : RecordedMap.text(r.value());
                }
                case 1 -> {
                    long before = m.kicks();
                    r = map.put(key, fresh);
                    kicks.addAndGet((int) (m.kicks() - before));
                }
                case 2 -> r = map.delete(key);
                default -> {
                    String expected = rnd.nextInt(4) == 0 ? null : seen[k];
                    String replacement = rnd.nextInt(5) == 0 ? null : fresh;
                    r = map.compareAndSet(key, expected, replacement);
                    if (r.status() == Status.OK) {
                        casOk.incrementAndGet();
                        seen[k] = replacement;
                    } else if (r.status() == Status.CAS_MISMATCH) {
                        seen[k] = RecordedMap.text(r.value());
                    }
                }
            }
            if (r.status() == Status.BUSY) {
                busy.incrementAndGet();
            } else if (r.status() == Status.TABLE_FULL) {
                full.incrementAndGet();
            }
        }
    }

    /** Keys whose two rows are both below {@code rowLimit}, no two keys with the same pair of rows. */
    private static void chooseKeys(CuckooMap m, String[] keys, int rowLimit) {
        java.util.Set<Integer> pairs = new java.util.HashSet<>();
        int n = 0;
        for (int i = 0; n < keys.length; i++) {
            assertTrue(i < 100_000, "no keys found");
            byte[] kb = ("k" + i).getBytes(StandardCharsets.UTF_8);
            int r1 = m.row1(kb);
            int r2 = m.row2(kb, r1);
            if (r1 < rowLimit && r2 < rowLimit && pairs.add(Math.min(r1, r2) * 1000 + Math.max(r1, r2))) {
                keys[n++] = "k" + i;
            }
        }
    }
}
