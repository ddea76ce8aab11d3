package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sharded counter on the fast software fabric: layout, cost, and many writers with concurrent readers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardedCounterTest {

    @Test
    void shouldPutEveryShardOnItsOwnCacheLine() {
        try (Cluster c = Cluster.fast("h0", "h1", "h2")) {
            Node[] homes = c.nodes().toArray(Node[]::new);
            ShardedCounter.Shards shards = ShardedCounter.create(4, homes);
            assertEquals(12, shards.count());
            Set<Long> lines = new HashSet<>();
            for (int i = 0; i < shards.count(); i++) {
                RemoteAddress a = shards.shard(i);
                assertEquals(0, a.address() % 64, "shard " + i + " starts a cache line");
                assertEquals(homes[i / 4].id(), a.nodeId(), "shard " + i + " is on home " + i / 4);
                assertTrue(lines.add(a.nodeId() * (1L << 48) + a.address() / 64), "two shards on one line");
            }
            RemoteAddress misaligned = shards.homes().get(0).plus(8);
            assertThrows(IllegalArgumentException.class, () -> new ShardedCounter.Shards(List.of(misaligned), 1));
            assertThrows(IllegalArgumentException.class, () -> ShardedCounter.create(0, homes));
        }
    }

    @Test
    void shouldSumTheShards() {
        try (Cluster c = Cluster.fast("h0", "h1", "client")) {
            ShardedCounter.Shards shards = ShardedCounter.create(2, c.node("h0"), c.node("h1"));
            Endpoint ep = c.endpoint("client");
            List<ShardedCounter> handles = new ArrayList<>();
            for (int i = 0; i < shards.count(); i++) {
                handles.add(ShardedCounter.attach(ep, shards, i));
            }
            assertEquals(0, handles.get(0).get());
            for (int i = 0; i < shards.count(); i++) {
                for (int k = 0; k <= i; k++) {
                    handles.get(i).increment();
                }
            }
            assertEquals(1 + 2 + 3 + 4, handles.get(3).get());
            handles.get(1).add(-20);
            assertEquals(-10, handles.get(0).get());
            assertEquals(2, handles.get(2).shard());
            ShardedCounter spread = ShardedCounter.attach(ep, shards);
            assertTrue(spread.shard() >= 0 && spread.shard() < 4);
            handles.forEach(ShardedCounter::close);
            spread.close();
        }
    }

    @Test
    void shouldCostOneFetchAddPerUpdateAndOneReadPerHomeNode() {
        try (Cluster cluster = Cluster.fast("h0", "h1", "h2", "client")) {
            ShardedCounter.Shards shards = ShardedCounter.create(4, cluster.node("h0"), cluster.node("h1"),
                cluster.node("h2"));
            Endpoint ep = cluster.endpoint("client");
            try (ShardedCounter c = ShardedCounter.attach(ep, shards, 5)) {
                c.get(); // connects the queue pairs
                VerbsStatistics before = ep.statistics();
                for (int i = 0; i < 100; i++) {
                    c.increment();
                }
                VerbsStatistics updates = ep.statistics().minus(before);
                assertEquals(100, updates.roundTrips());
                assertEquals(100, updates.fetchAndAdds());
                before = ep.statistics();
                assertEquals(100, c.get());
                VerbsStatistics read = ep.statistics().minus(before);
                assertEquals(3, read.reads(), "one READ per home node, for 4 shards each");
                assertEquals(3, read.roundTrips());
            }
        }
    }

    /** Six writers on two nodes, each on its own shard, and two readers whose successive reads must not decrease. */
    @Test
    void shouldNotLoseIncrementsAndReadMonotonicallyUnderConcurrency() throws Exception {
        try (Cluster cluster = Cluster.fastTwoMicroseconds("h0", "h1", "c0", "c1")) {
            ShardedCounter.Shards shards = ShardedCounter.create(3, cluster.node("h0"), cluster.node("h1"));
            Node[] clients = {cluster.node("c0"), cluster.node("c1")};
            int writers = 6;
            int each = 1_000;
            AtomicInteger writing = new AtomicInteger(writers);
            AtomicReference<String> problem = new AtomicReference<>();
            // threads 0 .. writers - 1 write, each on its own shard; the last two read until the writers are done
            Parallel.run(writers + 2, Duration.ofSeconds(50), id -> {
                Endpoint ep = cluster.endpoint(clients[id % 2]);
                if (id < writers) {
                    try (ShardedCounter c = ShardedCounter.attach(ep, shards, id)) {
                        for (int i = 0; i < each; i++) {
                            c.increment();
                        }
                    }
                    writing.decrementAndGet();
                    return;
                }
                try (ShardedCounter c = ShardedCounter.attach(ep, shards, 0)) {
                    long previous = 0;
                    for (int i = 0; i < 100_000 && writing.get() > 0; i++) {
                        long v = c.get();
                        if (v < previous || v > (long) writers * each) {
                            problem.compareAndSet(null, "read " + v + " after " + previous);
                        }
                        previous = v;
                    }
                }
            });
            assertNull(problem.get());
            try (ShardedCounter c = ShardedCounter.attach(cluster.endpoint("c0"), shards, 0)) {
                assertEquals((long) writers * each, c.get());
            }
        }
    }
}
