package dev.remora.testkit;

import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.model.RegisterModel;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.sim.SimContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The testkit's fixtures on real fabrics: names, endpoints closed with the cluster, crashes recorded {@code info}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TestkitTest {

    private static void roundTrip(Cluster c) {
        RemoteAddress word = c.node("home").allocate(Long.BYTES, Access.ALL).remote(0);
        Endpoint ep = c.endpoint("client");
        ep.writeLong(word, 7);
        assertEquals(7, ep.readLong(word));
        assertEquals(7, ep.cas(word, 7, 8));
        assertEquals(8, c.endpoint(c.node(1)).readLong(word), "a second endpoint on the same node");
    }

    @Test
    void shouldNameNodesAndCloseEndpointsOnEveryFabric() {
        for (Cluster c : new Cluster[] {Cluster.fast("home", "client"), Cluster.fastTwoMicroseconds("home", "client"),
            Cluster.socket("home", "client")}) {
            try (c) {
                assertEquals(2, c.size());
                assertEquals("home", c.node(0).name());
                assertThrows(IllegalArgumentException.class, () -> c.node("nobody"));
                assertThrows(IllegalArgumentException.class, () -> c.add("home"));
                roundTrip(c);
            }
            assertTrue(c.fabric().isClosed(), c + " closed its fabric");
            assertThrows(IllegalStateException.class, () -> c.endpoint("client"));
        }
        try (Cluster fast = Cluster.fast()) {
            assertEquals(Cluster.Kind.FAST, fast.kind());
            assertThrows(IllegalStateException.class, fast::det);
        }
        try (Cluster two = Cluster.fastTwoMicroseconds("a")) {
            assertEquals(SimContext.TWO_MICROSECONDS_NS,
                ((dev.remora.verbs.sim.SimFabric) two.fabric()).context().roundTripLatencyNs());
        }
    }

    @Test
    void shouldRecordAReadFromACrashedHomeAsInfo() {
        try (Cluster c = Cluster.fast(new SimContext().retryTimeoutNs(20_000_000L), "home", "client")) {
            RemoteAddress word = c.node("home").allocate(Long.BYTES, Access.ALL).remote(0);
            Endpoint ep = c.endpoint("client");
            HistoryRecorder rec = Histories.recorder(c);
            rec.run("write", null, 1L, () -> ep.writeLong(word, 1));
            assertEquals(1L, rec.call("read", null, null, () -> ep.readLong(word)));
            c.crash(c.node("home"));
            RemoteAccessException e = assertThrows(RemoteAccessException.class,
                () -> rec.call("read", null, null, () -> ep.readLong(word)));
            assertEquals(WcStatus.RETRY_EXC_ERR, e.status());
            History h = rec.history();
            assertTrue(h.operations().get(2).isIndeterminate(), "RETRY_EXC_ERR: outcome unknown");
            Histories.assertLinearizable(h, new RegisterModel(false, 0L));
            assertFalse(Histories.unknownOutcome(new RemoteAccessException(WcStatus.REM_ACCESS_ERR, "refused")));
            assertTrue(Histories.unknownOutcome(new IllegalStateException(e)), "as a cause too");
        }
    }

    @Test
    void shouldRunSpawnedThreadsOnADeterministicCluster() {
        try (Cluster c = Cluster.deterministic(3, "home", "client")) {
            assertEquals(Cluster.Kind.DETERMINISTIC, c.kind());
            RemoteAddress word = c.node("home").allocate(Long.BYTES, Access.ALL).remote(0);
            HistoryRecorder rec = Histories.recorder(c);
            Node client = c.node("client");
            c.det().spawn(client, "writer", () -> {
                try (Endpoint ep = Endpoint.open(client)) {
                    rec.run("write", null, 5L, () -> ep.writeLong(word, 5));
                    rec.call("read", null, null, () -> ep.readLong(word));
                }
            });
            assertTrue(c.det().run().finished());
            assertTrue(c.nanoTime() > 0, "virtual time moved");
            Histories.assertLinearizable(rec.history(), new RegisterModel(false, 0L));
        }
    }

    @Test
    void shouldBoundLoopsInCountAndTime() throws Exception {
        Bounded counted = Bounded.of(5, Duration.ofSeconds(10));
        int n = 0;
        while (counted.next()) {
            n++;
        }
        assertEquals(5, n);
        counted.requireAllIterations("five");
        long[] now = {0};
        Bounded timed = Bounded.of(1_000, 10, () -> now[0]);
        while (timed.next()) {
            now[0] += 3;
        }
        assertTrue(timed.timedOut());
        assertEquals(4, timed.iterations());
        assertThrows(AssertionError.class, () -> timed.requireAllIterations("timed"));
        assertThrows(AssertionError.class, () -> Bounded.await(() -> false, Duration.ofMillis(20), "never"));
        AtomicInteger polls = new AtomicInteger();
        assertEquals("x", Bounded.poll(() -> polls.incrementAndGet() < 3 ? null : "x", Duration.ofSeconds(5), "x"));

        AtomicInteger ran = new AtomicInteger();
        Parallel.run(4, Duration.ofSeconds(10), id -> ran.incrementAndGet());
        assertEquals(4, ran.get());
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
            () -> Parallel.run(3, Duration.ofSeconds(10), id -> {
                if (id == 1) {
                    throw new IllegalStateException("thread 1");
                }
            }));
        assertEquals("thread 1", thrown.getMessage());
        assertThrows(AssertionError.class, () -> Parallel.run(1, Duration.ofMillis(100), id -> Thread.sleep(5_000)));
    }
}
