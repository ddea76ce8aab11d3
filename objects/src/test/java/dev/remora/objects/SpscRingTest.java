package dev.remora.objects;

import dev.remora.testkit.Cluster;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SPSC ring on the fast software fabric. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpscRingTest {
    static byte[] message(long i, int len) {
        byte[] m = new byte[len];
        for (int j = 0; j < len; j++) {
            m[j] = (byte) (i * 31 + j * 7 + 1);
        }
        return m;
    }

    @Test
    void shouldDeliverInOrderWithoutLossAcrossManyWrapArounds() throws Exception {
        try (Cluster c = Cluster.fast("producer", "consumer")) {
            Node cn = c.node("consumer");
            SpscRing.Consumer consumer = SpscRing.Consumer.create(cn, 256);
            int max = consumer.maxPayload();
            int total = 20_000;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Endpoint ep = c.endpoint("producer");
            Thread producer = new Thread(() -> {
                try {
                    SpscRing.Producer p = SpscRing.Producer.attach(ep, consumer.address());
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    int i = 0;
                    while (i < total) {
                        // batches of up to 4 messages, their records at most half the capacity
                        List<byte[]> ms = new ArrayList<>();
                        int bytes = 0;
                        while (ms.size() < 1 + i % 4 && i + ms.size() < total) {
                            int len = (i + ms.size()) % (max + 1);
                            bytes += SpscRingDescriptor.recordLength(len);
                            if (bytes > 128) {
                                break;
                            }
                            ms.add(message(i + ms.size(), len));
                        }
                        int batch = ms.size();
                        if (p.offer(ms) == SpscRing.Offer.OK) {
                            i += batch;
                        } else {
                            assertTrue(System.nanoTime() < deadline, "no progress");
                            Thread.yield();
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            producer.start();
            long deadline = System.nanoTime() + 30_000_000_000L;
            for (int i = 0; i < total; ) {
                byte[] m = consumer.poll();
                if (m == null) {
                    assertTrue(System.nanoTime() < deadline && failure.get() == null, "stalled at " + i
                        + ": " + failure.get());
                    Thread.yield();
                    continue;
                }
                assertArrayEquals(message(i, i % (max + 1)), m, "message " + i);
                i++;
            }
            producer.join(30_000);
            assertNull(failure.get());
            assertNull(consumer.poll(), "nothing more than was sent");
            assertTrue(consumer.head() > 100L * 256, "wrapped around many times: " + consumer.head());
        }
    }

    @Test
    void shouldAnswerFullWhenTheRingIsFullThenProgressAfterAPoll() {
        try (Cluster c = Cluster.fast("producer", "consumer")) {
            Node cn = c.node("consumer");
            SpscRing.Consumer consumer = SpscRing.Consumer.create(cn, 128);
            Endpoint ep = c.endpoint("producer");
            SpscRing.Producer p = SpscRing.Producer.attach(ep, consumer.address());
            // 24-byte records: 5 fit into 128 bytes (120), the sixth does not.
            for (int i = 0; i < 5; i++) {
                assertEquals(SpscRing.Offer.OK, p.offer(message(i, 16)));
            }
            long writes = ep.statistics().writes();
            assertEquals(SpscRing.Offer.FULL, p.offer(message(5, 16)));
            assertEquals(writes, ep.statistics().writes(), "FULL posts no WRITE");
            assertEquals(SpscRing.Offer.FULL, p.offer(List.of(new byte[0], new byte[0])), "all or nothing");
            assertArrayEquals(message(0, 16), consumer.poll());
            assertEquals(SpscRing.Offer.OK, p.offer(message(5, 16)), "room after a poll");
            for (int i = 1; i <= 5; i++) {
                assertArrayEquals(message(i, 16), consumer.poll());
            }
            assertNull(consumer.poll());
        }
    }

    @Test
    void shouldCarryZeroAndMaximumLengthsAndPadAtTheEnd() {
        try (Cluster c = Cluster.fast("producer", "consumer")) {
            Node cn = c.node("consumer");
            SpscRing.Consumer consumer = SpscRing.Consumer.create(cn, 64);
            assertEquals(24, consumer.maxPayload());
            Endpoint ep = c.endpoint("producer");
            SpscRing.Producer p = SpscRing.Producer.attach(ep, consumer.address());
            assertThrows(IllegalArgumentException.class, () -> p.offer(new byte[25]));
            for (int round = 0; round < 50; round++) {
                for (int len : new int[] {0, 24, 1, 24, 0, 13}) {
                    assertEquals(SpscRing.Offer.OK, p.offer(message(round + len, len)), "round " + round);
                    assertArrayEquals(message(round + len, len), consumer.poll());
                    assertNull(consumer.poll());
                }
            }
        }
    }

    @Test
    void shouldPostABatchWithOneDoorbell() {
        try (Cluster c = Cluster.fast("producer", "consumer")) {
            Node cn = c.node("consumer");
            SpscRing.Consumer consumer = SpscRing.Consumer.create(cn, 1024);
            Endpoint ep = c.endpoint("producer");
            SpscRing.Producer p = SpscRing.Producer.attach(ep, consumer.address());
            VerbsStatistics before = ep.statistics();
            assertEquals(SpscRing.Offer.OK, p.offer(List.of(message(1, 8), message(2, 100), message(3, 0))));
            VerbsStatistics after = ep.statistics();
            assertEquals(1, after.doorbells() - before.doorbells(), "one doorbell for the batch");
            assertEquals(2, after.writes() - before.writes(), "one span and the tail");
            assertEquals(0, after.reads() - before.reads(), "the cached head sufficed");
            assertArrayEquals(message(1, 8), consumer.poll());
            assertArrayEquals(message(2, 100), consumer.poll());
            assertEquals(0, consumer.poll().length);
            assertNull(consumer.poll());
        }
    }
}
