package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the remote counter must do, on the fabrics a subclass opens: {@link RemoteCounterTest} on the fast software
 * fabric, {@link RemoteCounterCrossProcessTest} on the socket fabric between two processes. Every test adds a node
 * named {@code home} that holds the counter and client nodes; a subclass may place them apart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RemoteCounterContract {

    /** A named way to open a fresh fabric. */
    protected record Setting(String label, Supplier<Fabric> opener) {
        @Override
        public String toString() {
            return label;
        }
    }

    /** @return the fabrics the parameterized tests run on */
    protected abstract List<Setting> settings();

    /** @return a fresh fabric for the other tests */
    protected abstract Fabric openFabric();

    /**
     * @param retryTimeoutNs the transport retry timeout
     * @return a fresh fabric whose requests to a crashed node fail after that timeout
     */
    protected abstract Fabric openFabric(long retryTimeoutNs);

    /**
     * Crashes a node of a fabric from {@link #openFabric(long)}: it stops answering.
     *
     * @param fabric the fabric
     * @param node the node
     */
    protected abstract void crash(Fabric fabric, Node node);

    Stream<Setting> fabrics() {
        return settings().stream();
    }

    @ParameterizedTest
    @MethodSource("fabrics")
    void shouldCountSequentially(Setting setting) {
        try (Cluster cluster = Cluster.of(setting.opener().get(), "home", "client")) {
            RemoteAddress word = RemoteCounter.create(cluster.node("home"));
            RemoteCounter c = RemoteCounter.attach(cluster.endpoint("client"), word);
            assertEquals(0, c.get());
            assertEquals(1, c.incrementAndGet());
            assertEquals(11, c.addAndGet(10));
            assertEquals(11, c.getAndAdd(-5));
            assertEquals(6, c.get());
            assertEquals(word, c.address());
        }
    }

    @Test
    void shouldCostOneRoundTripPerOperation() {
        try (Cluster cluster = Cluster.of(openFabric(), "home", "client")) {
            Endpoint ep = cluster.endpoint("client");
            RemoteCounter c = RemoteCounter.attach(ep, RemoteCounter.create(cluster.node("home")));
            VerbsStatistics before = ep.statistics();
            for (int i = 0; i < 100; i++) {
                c.incrementAndGet();
            }
            c.get();
            VerbsStatistics used = ep.statistics().minus(before);
            assertEquals(101, used.roundTrips());
            assertEquals(100, used.fetchAndAdds());
            assertEquals(1, used.reads());
            assertEquals(101, used.doorbells());
        }
    }

    @ParameterizedTest
    @MethodSource("fabrics")
    void shouldNotLoseIncrementsFromManyThreadsOnTwoNodes(Setting setting) throws Exception {
        try (Cluster cluster = Cluster.of(setting.opener().get(), "home", "c1", "c2")) {
            Node[] clients = {cluster.node("c1"), cluster.node("c2")};
            RemoteAddress word = RemoteCounter.create(cluster.node("home"));
            int threads = 6;
            int each = 1_500;
            long[][] results = new long[threads][each];
            Parallel.run(threads, Duration.ofSeconds(50), id -> {
                RemoteCounter c = RemoteCounter.attach(cluster.endpoint(clients[id % 2]), word);
                for (int i = 0; i < each; i++) {
                    results[id][i] = c.incrementAndGet();
                }
            });
            Set<Long> seen = new HashSet<>();
            for (long[] row : results) {
                long previous = 0;
                for (long v : row) {
                    assertTrue(v > previous, "one thread's increments return increasing values");
                    previous = v;
                    assertTrue(seen.add(v), "value " + v + " returned twice");
                }
            }
            assertEquals((long) threads * each, RemoteCounter.attach(cluster.endpoint("c1"), word).get());
            assertEquals((long) threads * each, seen.size());
        }
    }

    @Test
    void shouldRejectMisalignedWord() {
        try (Cluster cluster = Cluster.of(openFabric(), "home")) {
            Endpoint ep = cluster.endpoint("home");
            RemoteAddress word = RemoteCounter.create(cluster.node("home")).plus(4);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RemoteCounter.attach(ep, word));
            assertTrue(e.getMessage().contains("aligned"), e.getMessage());
        }
    }

    @Test
    void shouldReportUnreachableHomeAsRetryExceeded() {
        try (Cluster cluster = Cluster.of(openFabric(50_000_000L), "home", "client")) {
            RemoteAddress word = RemoteCounter.create(cluster.node("home"));
            RemoteCounter c = RemoteCounter.attach(cluster.endpoint("client"), word);
            c.incrementAndGet();
            crash(cluster.fabric(), cluster.node("home"));
            RemoteAccessException e = assertThrows(RemoteAccessException.class, c::incrementAndGet);
            assertEquals(WcStatus.RETRY_EXC_ERR, e.status());
        }
    }
}
