package dev.remora.objects;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
        try (Fabric fabric = SimFabric.open()) {
            Node[] homes = {fabric.addNode("h0"), fabric.addNode("h1"), fabric.addNode("h2")};
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
        try (Fabric fabric = SimFabric.open()) {
            Node h0 = fabric.addNode("h0");
            Node h1 = fabric.addNode("h1");
            Node client = fabric.addNode("client");
            ShardedCounter.Shards shards = ShardedCounter.create(2, h0, h1);
            try (Endpoint ep = Endpoint.open(client)) {
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
    }

    @Test
    void shouldCostOneFetchAddPerUpdateAndOneReadPerHomeNode() {
        try (Fabric fabric = SimFabric.open()) {
            Node[] homes = {fabric.addNode("h0"), fabric.addNode("h1"), fabric.addNode("h2")};
            Node client = fabric.addNode("client");
            ShardedCounter.Shards shards = ShardedCounter.create(4, homes);
            try (Endpoint ep = Endpoint.open(client); ShardedCounter c = ShardedCounter.attach(ep, shards, 5)) {
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
        try (Fabric fabric = SimFabric.open(SimContext.twoMicrosecondRoundTrip().nicThreads(2))) {
            Node[] homes = {fabric.addNode("h0"), fabric.addNode("h1")};
            Node[] clients = {fabric.addNode("c0"), fabric.addNode("c1")};
            ShardedCounter.Shards shards = ShardedCounter.create(3, homes);
            int writers = 6;
            int each = 1_000;
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
                    }
                }));
            }
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int id = t;
                readers.add(new Thread(() -> {
                    try (Endpoint ep = Endpoint.open(clients[id]);
                         ShardedCounter c = ShardedCounter.attach(ep, shards, 0)) {
                        long previous = 0;
                        for (int i = 0; i < 100_000 && !done.get(); i++) {
                            long v = c.get();
                            if (v < previous || v > (long) writers * each) {
                                problem.compareAndSet(null, "read " + v + " after " + previous);
                            }
                            previous = v;
                        }
                    }
                }));
            }
            readers.forEach(Thread::start);
            threads.forEach(Thread::start);
            for (Thread w : threads) {
                w.join();
            }
            done.set(true);
            for (Thread r : readers) {
                r.join();
            }
            assertNull(problem.get());
            try (Endpoint ep = Endpoint.open(clients[0]); ShardedCounter c = ShardedCounter.attach(ep, shards, 0)) {
                assertEquals((long) writers * each, c.get());
            }
        }
    }
}
