package dev.remora.objects;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The sharded counter and the barrier on the socket fabric between two OS processes: their homes live in a child JVM
 * (one for the class), the parties and clients in this one, so every verb crosses processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardedCounterAndBarrierCrossProcessTest {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    @RegisterExtension
    static final NodeHostExtension HOST = new NodeHostExtension();

    /**
     * Opens a test's fabric between this process and the child: the socket fabric; a subclass runs the same tests on
     * another provider.
     *
     * @param placement which nodes go to the child
     * @return the fabric
     */
    HostedSocketFabric open(HostedSocketFabric.Placement placement) {
        return HostedSocketFabric.open(HOST.host(), placement, Map.of());
    }

    @Test
    void shouldCountEveryIncrementAndReadMonotonicallyAcrossProcesses() throws Exception {
        try (Fabric fabric = open(HostedSocketFabric.Placement.named("h0", "h1"))) {
            Node[] homes = {fabric.addNode("h0"), fabric.addNode("h1")};
            Node[] clients = {fabric.addNode("c0"), fabric.addNode("c1")};
            ShardedCounter.Shards shards = ShardedCounter.create(2, homes);
            int writers = 4;
            int each = 150;
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<String> problem = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int id = t;
                threads.add(new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(clients[id % 2]);
                         ShardedCounter c = ShardedCounter.attach(ep, shards, id)) {
                        for (int i = 0; i < each; i++) {
                            c.increment();
                        }
                    } catch (RuntimeException e) {
                        problem.compareAndSet(null, e.toString());
                    }
                }));
            }
            Thread reader = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(clients[0]); ShardedCounter c = ShardedCounter.attach(ep, shards, 0)) {
                    long previous = 0;
                    while (!done.get()) {
                        long v = c.get();
                        if (v < previous || v > (long) writers * each) {
                            problem.compareAndSet(null, "read " + v + " after " + previous);
                        }
                        previous = v;
                    }
                } catch (RuntimeException e) {
                    problem.compareAndSet(null, e.toString());
                }
            });
            threads.forEach(Thread::start);
            reader.start();
            for (Thread t : threads) {
                t.join();
            }
            done.set(true);
            reader.join();
            assertNull(problem.get());
            try (Endpoint ep = Endpoint.open(clients[1]); ShardedCounter c = ShardedCounter.attach(ep, shards, 1)) {
                c.get(); // connects the queue pairs
                VerbsStatistics before = ep.statistics();
                assertEquals((long) writers * each, c.get(), "every increment counted");
                VerbsStatistics read = ep.statistics().minus(before);
                assertEquals(2, read.reads(), "one READ per home node");
                assertEquals(2, read.roundTrips());
            }
        }
    }

    @Test
    void shouldReleaseNobodyBeforeEveryPartyArrivedAcrossProcesses() throws Exception {
        int parties = 3;
        int rounds = 40;
        try (Fabric fabric = open(HostedSocketFabric.Placement.named("home"))) {
            Node home = fabric.addNode("home");
            Node[] nodes = {fabric.addNode("n0"), fabric.addNode("n1")};
            RemoteAddress barrier = RemoteBarrier.create(home);
            AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
            AtomicReference<String> problem = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < parties; p++) {
                Node node = nodes[p % nodes.length];
                threads.add(new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(node)) {
                        RemoteBarrier b = RemoteBarrier.attach(ep, barrier, parties);
                        for (int r = 0; r < rounds && problem.get() == null; r++) {
                            arrived.incrementAndGet(r);
                            RemoteBarrier.Result result = b.await(WAIT_NS);
                            int seen = arrived.get(r);
                            if (!result.passed() || result.round() != r || seen != parties) {
                                problem.compareAndSet(null, "round " + r + ": " + result + " with " + seen
                                    + " arrivals counted");
                            }
                        }
                    } catch (RuntimeException e) {
                        problem.compareAndSet(null, e.toString());
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(problem.get());
            try (Endpoint ep = Endpoint.open(nodes[0])) {
                assertEquals(rounds, RemoteBarrier.attach(ep, barrier, parties).generation());
            }
        }
    }
}
