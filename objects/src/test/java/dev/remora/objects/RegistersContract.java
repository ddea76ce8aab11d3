package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.testkit.Parallel;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the registers must do, on the fabric a subclass opens: {@link RegistersTest} on the fast software fabric,
 * {@link RegistersCrossProcessTest} on the socket fabric with the home in another process. Every test adds a node
 * named {@code home} that holds the registers, and client nodes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RegistersContract {
    /** @return a fresh fabric */
    protected abstract Fabric openFabric();

    /** @return how many writes each writer makes in the concurrent tests */
    protected int writesPerWriter() {
        return 400;
    }

    /**
     * A value of writer {@code w}'s write number {@code s}: 16, 32 or 48 bytes, every 4-byte chunk equal to
     * {@code w << 20 | s}, so a mix of two writes, or a wrong length, shows.
     */
    static byte[] value(int w, int s) {
        int chunks = 4 * (1 + s % 3);
        ByteBuffer b = ByteBuffer.allocate(4 * chunks).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < chunks; i++) {
            b.putInt(w << 20 | s);
        }
        return b.array();
    }

    /** @return {@code w << 20 | s} of a value {@link #value} made, or -1 if no write made it (a mix or the like) */
    static int idOf(byte[] v) {
        if (v.length == 0) {
            return 0;
        }
        if (v.length % 4 != 0) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        int id = b.getInt(0);
        for (int i = 4; i < v.length; i += 4) {
            if (b.getInt(i) != id) {
                return -1;
            }
        }
        return Arrays.equals(v, value(id >>> 20, id & 0xFFFFF)) ? id : -1;
    }

    @Test
    void shouldReadAndWriteRemoteRegisterAtTwoAndOneRoundTrips() {
        try (Cluster c = cluster("client", "other")) {
            RemoteAddress word = RemoteRegister.create(c.node("home"));
            Endpoint ep = c.endpoint("client");
            Endpoint other = c.endpoint("other");
            RemoteRegister r = RemoteRegister.attach(ep, word);
            assertEquals(0, r.get());
            VerbsStatistics before = ep.statistics();
            r.set(42);
            VerbsStatistics set = ep.statistics().minus(before);
            assertEquals(2, set.roundTrips());
            assertEquals(1, set.writes());
            assertEquals(1, set.reads());
            assertEquals(42, RemoteRegister.attach(other, word).get(), "visible to another node once set returned");
            before = ep.statistics();
            assertEquals(42, r.get());
            assertEquals(1, ep.statistics().minus(before).roundTrips());
            assertThrows(IllegalArgumentException.class, () -> RemoteRegister.attach(ep, word.plus(4)));
        }
    }

    @Test
    void shouldCompareAndSetInOneRoundTrip() {
        try (Cluster c = cluster("client", "other")) {
            RemoteAddress word = CasRegister.create(c.node("home"));
            Endpoint ep = c.endpoint("client");
            Endpoint other = c.endpoint("other");
            CasRegister r = CasRegister.attach(ep, word);
            VerbsStatistics before = ep.statistics();
            assertTrue(r.compareAndSet(0, 5));
            assertFalse(r.compareAndSet(0, 6));
            assertEquals(2, ep.statistics().minus(before).roundTrips());
            assertEquals(2, ep.statistics().minus(before).compareAndSwaps());
            assertEquals(5, r.get());
            before = ep.statistics();
            assertEquals(5, r.getAndSet(7), "the handle saw 5 last: one CAS");
            assertEquals(1, ep.statistics().minus(before).roundTrips());
            assertTrue(CasRegister.attach(other, word).compareAndSet(7, 8));
            before = ep.statistics();
            assertEquals(8, r.getAndSet(9), "the guess 7 is stale: a second CAS");
            assertEquals(2, ep.statistics().minus(before).roundTrips());
            assertEquals(9, CasRegister.attach(other, word).get());
        }
    }

    @Test
    void shouldChainGetAndSetFromManyThreadsOnTwoNodes() throws Exception {
        try (Cluster c = cluster("c1", "c2")) {
            Node[] clients = {c.node("c1"), c.node("c2")};
            RemoteAddress word = CasRegister.create(c.node("home"));
            int threads = 4;
            int each = writesPerWriter();
            ConcurrentLinkedQueue<Long> returned = new ConcurrentLinkedQueue<>();
            runAll(threads, t -> {
                try (Endpoint ep = Endpoint.open(clients[t % 2])) {
                    CasRegister r = CasRegister.attach(ep, word);
                    for (int i = 1; i <= each; i++) {
                        returned.add(r.getAndSet((long) t << 32 | i));
                    }
                }
            });
            long last;
            try (Endpoint ep = Endpoint.open(clients[0])) {
                last = CasRegister.attach(ep, word).get();
            }
            // Each getAndSet returns the value it replaced: the returned values and the final one are 0 and every
            // value written, each exactly once.
            Set<Long> seen = new HashSet<>();
            seen.add(last);
            for (long v : returned) {
                assertTrue(seen.add(v), "value " + v + " replaced twice");
            }
            assertEquals((long) threads * each + 1, seen.size());
            assertTrue(seen.contains(0L));
        }
    }

    @Test
    void shouldCostOneReadAndTwoRoundTripsPerSingleWriterSet() {
        try (Cluster c = cluster("client", "other")) {
            Node home = c.node("home");
            RemoteAddress base = SingleWriterVersionedRegister.create(home, 256);
            Endpoint ep = c.endpoint("client");
            Endpoint other = c.endpoint("other");
            SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, base, 256);
            assertArrayEquals(new byte[0], r.get(), "a new register holds the empty value");
            VerbsStatistics before = ep.statistics();
            r.set(value(1, 1));
            assertEquals(3, ep.statistics().minus(before).roundTrips(), "the first set reads the last tag");
            for (int s = 2; s <= 4; s++) {
                before = ep.statistics();
                r.set(value(1, s));
                VerbsStatistics used = ep.statistics().minus(before);
                assertEquals(2, used.roundTrips());
                assertEquals(1, used.writes());
                assertEquals(1, used.reads());
                assertArrayEquals(value(1, s), SingleWriterVersionedRegister.attach(other, base, 256).get());
            }
            before = ep.statistics();
            assertArrayEquals(value(1, 4), r.get());
            assertEquals(1, ep.statistics().minus(before).roundTrips());
            byte[] full = new byte[256];
            Arrays.fill(full, (byte) 0xA5);
            r.set(full);
            assertArrayEquals(full, r.get());
            // A new writer handle continues after the last tag.
            SingleWriterVersionedRegister next = SingleWriterVersionedRegister.attach(other, base, 256);
            next.set(value(2, 1));
            assertArrayEquals(value(2, 1), r.get());
            assertThrows(IllegalArgumentException.class, () -> r.set(new byte[257]));
            assertThrows(IllegalArgumentException.class, () -> SingleWriterVersionedRegister.create(home, -1));
        }
    }

    @Test
    void shouldCostThreeRoundTripsPerMultiWriterSet() {
        try (Cluster c = cluster("client", "other")) {
            RemoteAddress base = MultiWriterVersionedRegister.create(c.node("home"), 64);
            Endpoint ep = c.endpoint("client");
            Endpoint other = c.endpoint("other");
            MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, 64);
            MultiWriterVersionedRegister o = MultiWriterVersionedRegister.attach(other, base, 64);
            assertArrayEquals(new byte[0], r.get());
            for (int s = 1; s <= 3; s++) {
                VerbsStatistics before = ep.statistics();
                r.set(value(1, s));
                VerbsStatistics used = ep.statistics().minus(before);
                assertEquals(3, used.roundTrips());
                assertEquals(2, used.compareAndSwaps());
                assertEquals(1, used.writes());
                assertArrayEquals(value(1, s), o.get());
            }
            VerbsStatistics before = other.statistics();
            o.set(value(2, 1));
            assertEquals(4, other.statistics().minus(before).roundTrips(), "a stale guess costs one more CAS");
            assertArrayEquals(value(2, 1), r.get());
        }
    }

    @Test
    void shouldTakeOverTheWriteOfAWriterThatStoppedAfterTheLease() {
        try (Cluster c = cluster("client", "crashed")) {
            RemoteAddress base = MultiWriterVersionedRegister.create(c.node("home"), 16);
            Endpoint ep = c.endpoint("client");
            Endpoint crashed = c.endpoint("crashed");
            // A writer that took the control word and never came back.
            assertEquals(0, crashed.cas(base.plus(VersionedRegisterDescriptor.CONTROL_OFFSET), 0, 1));
            MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, 16, 2_000_000L);
            long start = System.nanoTime();
            r.set(value(1, 3));
            assertTrue(System.nanoTime() - start >= 2_000_000L, "waited a lease first");
            assertArrayEquals(value(1, 3), r.get());
            assertEquals(4, crashed.readLong(base.plus(VersionedRegisterDescriptor.CONTROL_OFFSET)),
                "taken over as 3, released as 4");
        }
    }

    @Test
    void singleWriterReadersSeeOnlyWrittenValuesInOrder() throws Exception {
        try (Cluster c = cluster("c1", "c2")) {
            Node[] clients = {c.node("c1"), c.node("c2")};
            RemoteAddress base = SingleWriterVersionedRegister.create(c.node("home"), 48);
            int writes = writesPerWriter() * 2;
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            runAll(4, t -> {
                try (Endpoint ep = Endpoint.open(clients[t % 2])) {
                    SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, base, 48);
                    if (t == 0) {
                        for (int s = 1; s <= writes; s++) {
                            r.set(value(1, s));
                        }
                        done.set(true);
                        return;
                    }
                    int previous = 0;
                    for (int i = 0; i < 100_000 && (!done.get() || i < 50); i++) {
                        int id;
                        try {
                            id = idOf(r.get());
                        } catch (RegisterContendedException e) {
                            continue; // had no effect; the bound is on attempts
                        }
                        assertTrue(id >= 0, "a value no write wrote (a mix of two)");
                        assertTrue(id >= previous, "a reader saw write " + (id & 0xFFFFF) + " after "
                            + (previous & 0xFFFFF));
                        previous = id;
                        reads.incrementAndGet();
                    }
                    assertEquals(value(1, writes).length, r.get().length);
                }
            });
            assertTrue(reads.get() > 0);
        }
    }

    @Test
    void multiWriterReadersSeeOnlyWrittenValuesInEachWritersOrder() throws Exception {
        try (Cluster c = cluster("c1", "c2", "c3")) {
            Node[] clients = {c.node("c1"), c.node("c2"), c.node("c3")};
            RemoteAddress base = MultiWriterVersionedRegister.create(c.node("home"), 48);
            int writers = 3;
            int writes = writesPerWriter() / 2;
            AtomicLong writing = new AtomicLong(writers);
            AtomicLong reads = new AtomicLong();
            List<Integer> lasts = new ArrayList<>();
            runAll(writers + 3, t -> {
                try (Endpoint ep = Endpoint.open(clients[t % 3])) {
                    // A lease far above any pause of a loaded machine: this test is about readers, and a writer
                    // stalled past the default 100 ms would be taken over (WriteOvertakenException), not wrong.
                    MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, base, 48, 10_000_000_000L);
                    if (t < writers) {
                        for (int s = 1; s <= writes; s++) {
                            r.set(value(t + 1, s));
                        }
                        writing.decrementAndGet();
                        return;
                    }
                    int[] previous = new int[writers + 1];
                    for (int i = 0; i < 100_000 && (writing.get() > 0 || i < 50); i++) {
                        int id;
                        try {
                            id = idOf(r.get());
                        } catch (RegisterContendedException e) {
                            continue;
                        }
                        assertTrue(id >= 0, "a value no write wrote (a mix of two)");
                        int w = id >>> 20;
                        assertTrue((id & 0xFFFFF) >= previous[w], "writer " + w + "'s writes seen out of order");
                        previous[w] = id & 0xFFFFF;
                        reads.incrementAndGet();
                    }
                    synchronized (lasts) {
                        lasts.add(idOf(r.get()));
                    }
                }
            });
            assertTrue(reads.get() > 0);
            for (int id : lasts) {
                assertEquals(writes, id & 0xFFFFF, "after the writers finished, the value is one's last write");
            }
        }
    }

    /** Runs {@code n} threads, started together, and rethrows the first failure. */
    static void runAll(int n, Parallel.Body body) throws Exception {
        Parallel.run(n, Duration.ofSeconds(50), body);
    }

    /**
     * A cluster on a fresh fabric ({@link #openFabric()}) with the node {@code home}, then the given nodes.
     *
     * @param clients the client nodes' names
     * @return the cluster
     */
    private Cluster cluster(String... clients) {
        String[] names = new String[clients.length + 1];
        names[0] = "home";
        System.arraycopy(clients, 0, names, 1, clients.length);
        return Cluster.of(openFabric(), names);
    }
}
