package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Params;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cuckoo map on the socket fabric between two OS processes: the table's memory is a region of a node in the
 * {@code NodeHost} child JVM ({@link HostedSocketFabric}), allocated there by remote control, and the clients are
 * threads of this JVM on two nodes of their own, so every verb crosses processes over loopback TCP and the child's
 * service thread alone executes them.
 *
 * <p>Four clients do get, put, delete and compareAndSet on a few keys, recorded by {@link RecordedMap} and checked
 * with the checker's map model, as in {@link CuckooMapConcurrencyTest} (every write with the value it replaced; BUSY
 * and TABLE_FULL are {@code fail}; a verb error fails the test); once on a roomy table, once
 * on 8 rows of one slot where inserts kick keys. Then, with nobody else active, each call's round trips are read from
 * the endpoint's statistics: GET 1 (hit or miss), every update 2. Each run is bounded at 5 s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CuckooMapCrossProcessTest {
    private static final int CLIENTS = 4;
    private static final int OPS_PER_CLIENT = 150;
    private static final long BOUND_NS = TimeUnit.SECONDS.toNanos(5);

    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    /**
     * Opens the fabric with the table's home node in the child JVM; the UCX provider's tests override it.
     *
     * @return the fabric
     */
    HostedSocketFabric open() {
        return HostedSocketFabric.open(HOST.host(), HostedSocketFabric.Placement.named("home"), Map.of());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return RecordedMap.text(b);
    }

    @ParameterizedTest(name = "{0} rows of {1} slots, {2} keys")
    @CsvSource({"64, 4, 4", "8, 1, 6"})
    void shouldGiveLinearizableHistoriesWithTheTableInAnotherProcess(int rows, int slots, int keyCount)
        throws Exception {
        HistoryRecorder rec = HistoryRecorder.inMemory();
        MapMix mix = new MapMix();
        AtomicLong gets = new AtomicLong();
        AtomicLong getRoundTrips = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime();
        try (HostedSocketFabric f = open()) {
            Node home = f.addNode("home");
            Node a = f.addNode("a");
            Node b = f.addNode("b");
            assertTrue(f.isInChild(home) && !f.isInChild(a) && !f.isInChild(b));
            RemoteAddress table = CuckooMap.allocate(home, new Params().rows(rows).slotsPerRow(slots).clients(16));
            String[] keys = KvTestKeys.distinctRowPairs(keyCount, rows, slots == 1 ? 5 : rows);
            Node[] placement = {a, a, b, b};
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            long deadline = start + BOUND_NS;
            for (int c = 0; c < CLIENTS; c++) {
                int id = c;
                Node node = placement[c];
                Thread t = new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node); CuckooMap m = CuckooMap.attach(ep, table)) {
                        go.await();
                        Client client = new Client(id, ep, m, rec, keys, deadline);
                        client.run(mix);
                        gets.addAndGet(client.gets);
                        getRoundTrips.addAndGet(client.getRoundTrips);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "kv-xp-client-" + c);
                threads.add(t);
                t.start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(t.isAlive(), t.getName() + " still running");
            }
        }
        long took = System.nanoTime() - start;
        assertTrue(errors.isEmpty(), "client errors: " + errors);
        int ops = rec.history().operations().size();
        CheckResult result = Checker.check(rec.history(), Models.map());
        System.out.printf("[kv cross-process] %d rows x %d slots, %d keys: %d operations, %d cas ok, %d puts kicked, "
                + "%d BUSY, %d TABLE_FULL, %.3f round trips per GET, %s in %d ms%n", rows, slots, keyCount, ops,
            mix.casOk.get(), mix.kicks.get(), mix.busy.get(), mix.full.get(), (double) getRoundTrips.get() / gets.get(),
            result.verdict(), took / 1_000_000);
        assertEquals(Verdict.LINEARIZABLE, result.verdict(), String.valueOf(result.cause()));
        assertEquals(CLIENTS * OPS_PER_CLIENT - mix.busy.get() - mix.full.get(), ops, "every operation completed "
            + "within the bound; BUSY and TABLE_FULL are fail");
        assertTrue(mix.casOk.get() > 0, "some compareAndSet succeeded");
        assertTrue(gets.get() > 0 && getRoundTrips.get() >= gets.get(), "a GET takes a round trip at least");
        assertTrue(mix.busy.get() < ops / 10, "BUSY answers: " + mix.busy.get());
        if (slots == 1) {
            assertTrue(mix.kicks.get() > 0, "puts kicked keys while others read and wrote");
        }
    }

    @Test
    void shouldTakeOneRoundTripPerGetAndTwoPerUncontendedUpdateAcrossProcesses() {
        try (HostedSocketFabric f = open()) {
            Node home = f.addNode("home");
            Node a = f.addNode("a");
            RemoteAddress table = CuckooMap.allocate(home, new Params().rows(64).clients(4));
            try (Endpoint ep = Endpoint.open(a); CuckooMap m = CuckooMap.attach(ep, table)) {
                byte[] k = bytes("key-1");
                byte[] absent = bytes("key-2");
                assertEquals(2, roundTrips(ep, () -> assertNull(m.put(k, bytes("v1")).value())), "PUT of a new key");
                assertEquals(1, roundTrips(ep, () -> assertArrayEquals(bytes("v1"), m.get(k))), "GET hit");
                assertEquals(1, roundTrips(ep, () -> assertEquals(Status.NOT_FOUND, m.lookup(absent).status())),
                    "GET miss");
                assertEquals(2, roundTrips(ep, () -> assertEquals(new Result(Status.OK, bytes("v1")),
                    m.put(k, bytes("v2")))), "PUT replacing");
                assertEquals(2, roundTrips(ep, () -> assertEquals(new Result(Status.OK, bytes("v2")),
                    m.update(k, bytes("v3")))), "UPDATE");
                assertEquals(2, roundTrips(ep, () -> assertEquals(new Result(Status.OK, bytes("v3")),
                    m.compareAndSet(k, bytes("v3"), bytes("v4")))), "compareAndSet");
                assertEquals(2, roundTrips(ep, () -> assertEquals(new Result(Status.OK, bytes("v4")), m.delete(k))),
                    "DELETE");
                assertEquals(1, roundTrips(ep, () -> assertNull(m.get(k))), "GET after the DELETE");
                long before = ep.statistics().roundTrips();
                for (int i = 0; i < 50; i++) {
                    assertTrue(m.put(bytes("k" + i), bytes("v" + i)).isOk());
                }
                for (int i = 0; i < 50; i++) {
                    assertEquals("v" + i, text(m.get(bytes("k" + i))));
                }
                assertEquals(50 * 2 + 50, ep.statistics().roundTrips() - before, "50 PUTs and 50 GETs");
            }
        }
    }

    private static long roundTrips(Endpoint ep, Runnable op) {
        VerbsStatistics before = ep.statistics();
        op.run();
        return ep.statistics().minus(before).roundTrips();
    }

    /** One client's operations, each recorded, and its GETs' round trips. */
    private static final class Client {
        final int id;
        final Endpoint ep;
        final CuckooMap m;
        final HistoryRecorder rec;
        final String[] keys;
        final long deadline;
        long gets;
        long getRoundTrips;

        Client(int id, Endpoint ep, CuckooMap m, HistoryRecorder rec, String[] keys, long deadline) {
            this.id = id;
            this.ep = ep;
            this.m = m;
            this.rec = rec;
            this.keys = keys;
            this.deadline = deadline;
        }

        void run(MapMix mix) {
            Random rnd = new Random(2000 + id);
            RecordedMap map = new RecordedMap(m, rec::invoke);
            String[] seen = new String[keys.length]; // null: absent
            for (int i = 0; i < OPS_PER_CLIENT; i++) {
                assertTrue(System.nanoTime() - deadline < 0, "client " + id + " still at operation " + i
                    + " after the bound");
                mix.step(m, map, key -> {
                    long rt0 = ep.statistics().roundTrips();
                    Result r = map.get(key);
                    getRoundTrips += ep.statistics().roundTrips() - rt0;
                    gets++;
                    return r;
                }, rnd, keys, seen, "c" + id + "-" + i);
            }
        }
    }
}
