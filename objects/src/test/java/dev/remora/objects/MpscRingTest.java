package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The MPSC ring on the fast software fabric. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MpscRingTest {
    private static final long LONG_SKIP_NS = 60_000_000_000L;

    @Test
    void shouldDeliverEveryMessageOnceInEachProducersOrder() throws Exception {
        int producers = 4;
        int each = 1_500;
        try (Cluster c = Cluster.fast("consumer", "p0", "p1")) {
            Node cn = c.node("consumer");
            Node[] pn = {c.node("p0"), c.node("p1")};
            MpscRing.Consumer consumer = MpscRing.Consumer.create(cn, 16, 24, LONG_SKIP_NS, System::nanoTime);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                int id = t;
                Endpoint ep = c.endpoint(pn[id % 2]);
                Thread th = new Thread(() -> {
                    try {
                        MpscRing.Producer p = MpscRing.Producer.attach(ep, consumer.address());
                        for (int i = 0; i < each; i++) {
                            // lengths 16..24: the producer and sequence in the first 16 bytes
                            byte[] m = ByteBuffer.allocate(16 + i % 9).putLong(id).putLong(i).array();
                            assertEquals(MpscRing.Offer.OK, p.offer(m));
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                threads.add(th);
                th.start();
            }
            long[] next = new long[producers];
            long deadline = System.nanoTime() + 40_000_000_000L;
            for (int n = 0; n < producers * each; ) {
                byte[] m = consumer.poll();
                if (m == null) {
                    assertTrue(System.nanoTime() < deadline && failure.get() == null, "stalled: " + failure.get());
                    Thread.yield();
                    continue;
                }
                ByteBuffer b = ByteBuffer.wrap(m);
                int id = (int) b.getLong();
                long seq = b.getLong();
                assertEquals(next[id], seq, "producer " + id + ": FIFO, no loss, no duplicate");
                assertEquals(16 + seq % 9, m.length);
                next[id]++;
                n++;
            }
            for (Thread th : threads) {
                th.join(30_000);
            }
            assertNull(failure.get());
            assertNull(consumer.poll());
            assertEquals(0, consumer.skipped());
            assertEquals((long) producers * each, consumer.head());
        }
    }

    @Test
    void shouldAnswerFullThenSkipTheAbandonedReservationAndProgress() {
        long skipNs = 200_000_000L;
        try (Cluster c = Cluster.fast("consumer", "p")) {
            Node cn = c.node("consumer");
            MpscRing.Consumer consumer = MpscRing.Consumer.create(cn, 4, 8, skipNs, System::nanoTime);
            Endpoint ep = c.endpoint("p");
            MpscRing.Producer p = MpscRing.Producer.attach(ep, consumer.address());
            assertThrows(IllegalArgumentException.class, () -> p.offer(new byte[9]));
            for (int i = 0; i < 4; i++) {
                assertEquals(MpscRing.Offer.OK, p.offer(new byte[] {(byte) i}));
            }
            long t0 = System.nanoTime();
            assertEquals(MpscRing.Offer.FULL, p.offer(new byte[] {4}));
            assertTrue(System.nanoTime() - t0 >= skipNs / 2, "waited half the skip timeout for room");
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(new byte[] {(byte) i}, consumer.poll());
            }
            // position 4 is reserved and abandoned: the consumer waits, then skips it
            assertEquals(MpscRing.Offer.OK, p.offer(new byte[] {5}));
            assertNull(consumer.poll(), "the hole at position 4 blocks for now");
            assertEquals(0, consumer.skipped());
            long deadline = System.nanoTime() + 10_000_000_000L;
            byte[] m;
            while ((m = consumer.poll()) == null) {
                assertTrue(System.nanoTime() < deadline, "never skipped");
                Thread.onSpinWait();
            }
            assertTrue(System.nanoTime() - t0 >= skipNs, "not before the skip timeout");
            assertArrayEquals(new byte[] {5}, m);
            assertEquals(1, consumer.skipped());
            assertNull(consumer.poll());
        }
    }

    @Test
    void shouldSkipTheSlotOfAProducerThatReservedAndNeverWrote() {
        long skipNs = 50_000_000L;
        try (Cluster c = Cluster.fast("consumer", "p")) {
            Node cn = c.node("consumer");
            MpscRing.Consumer consumer = MpscRing.Consumer.create(cn, 8, 32, skipNs, System::nanoTime);
            Endpoint crashed = c.endpoint("p");
            Endpoint ep = c.endpoint("p");
            MpscRing.Producer p = MpscRing.Producer.attach(ep, consumer.address());
            assertEquals(MpscRing.Offer.OK, p.offer(new byte[0]));
            // a producer that dies after its FETCH_ADD: the reservation and nothing else
            assertEquals(1, crashed.faa(consumer.address().plus(MpscRingDescriptor.TAIL_OFFSET), 1));
            assertEquals(MpscRing.Offer.OK, p.offer(new byte[32]));
            assertEquals(0, consumer.poll().length);
            long deadline = System.nanoTime() + 10_000_000_000L;
            byte[] m;
            while ((m = consumer.poll()) == null) {
                assertTrue(System.nanoTime() < deadline, "never skipped");
                Thread.onSpinWait();
            }
            assertArrayEquals(new byte[32], m);
            assertEquals(1, consumer.skipped());
            assertEquals(3, consumer.head());
        }
    }
}
