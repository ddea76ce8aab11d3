package dev.remora.objects;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.testing.ChildTask;
import dev.remora.verbs.testing.HostedSocketFabric;
import dev.remora.verbs.testing.NodeHost;
import dev.remora.verbs.testing.NodeHostExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SPSC and MPSC rings on the socket fabric between two OS processes: the ring's memory and its consumer in this
 * JVM, the producers' loops in the {@link NodeHost} child JVM ({@link ChildTask}s on child nodes), so every record
 * and commit crosses processes. A slow consumer makes the producers see FULL; every message arrives once, untorn, in
 * its producer's order. Each test is bounded at 5 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RingsCrossProcessTest {
    private static final long BOUND_NS = TimeUnit.SECONDS.toNanos(5);
    private static final int SLOTS = 16;
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

    /** Message {@code i} of producer {@code p}: its producer and sequence number, then a pattern; 5 to max bytes. */
    static byte[] message(int p, int i, int max) {
        byte[] m = new byte[5 + (i * 7 + p) % (max - 4)];
        ByteBuffer.wrap(m).put((byte) p).putInt(i);
        for (int j = 5; j < m.length; j++) {
            m[j] = (byte) (p * 31 + i + j);
        }
        return m;
    }

    /** Checks a received message's pattern (untorn) and returns {@code {producer, sequence}}. */
    private static int[] decode(byte[] m, int max) {
        assertTrue(m.length >= 5, "a message of " + m.length + " bytes");
        ByteBuffer b = ByteBuffer.wrap(m);
        int p = b.get();
        int i = b.getInt();
        assertEquals(m.length, message(p, i, max).length, "length of message " + i + " of producer " + p);
        for (int j = 5; j < m.length; j++) {
            assertEquals((byte) (p * 31 + i + j), m[j], "byte " + j + " of message " + i + " of producer " + p);
        }
        return new int[] {p, i};
    }

    /** The ring at args {@code [0]} (consumer node address), {@code [1]} (rkey), {@code [2]} (address). */
    private static RemoteAddress ring(Node node, String[] args) {
        Node consumer = node.fabric().connect(args[0]);
        return new RemoteAddress(consumer.id(), Integer.parseInt(args[1]), Long.parseLong(args[2]));
    }

    private static String[] args(Node consumer, RemoteAddress ring, Object... more) {
        List<String> a = new ArrayList<>(List.of(consumer.address(), Integer.toString(ring.rkey()),
            Long.toString(ring.address())));
        for (Object o : more) {
            a.add(o.toString());
        }
        return a.toArray(new String[0]);
    }

    /** In the child: offers {@code args[3]} messages to an SPSC ring, retrying on FULL; returns how many FULLs. */
    public static final class SpscProducerTask implements ChildTask {
        public SpscProducerTask() {
        }

        @Override
        public String run(Node node, String[] args) {
            int count = Integer.parseInt(args[3]);
            long deadline = System.nanoTime() + BOUND_NS;
            long full = 0;
            try (Endpoint ep = Endpoint.open(node)) {
                SpscRing.Producer p = SpscRing.Producer.attach(ep, ring(node, args));
                for (int i = 0; i < count; i++) {
                    byte[] m = message(0, i, p.maxPayload());
                    while (p.offer(m) == SpscRing.Offer.FULL) {
                        full++;
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("message " + i + " still FULL after 5 s");
                        }
                        Thread.onSpinWait();
                    }
                }
            }
            return Long.toString(full);
        }
    }

    /** In the child: producer {@code args[3]} offers {@code args[4]} messages to an MPSC ring; returns its FULLs. */
    public static final class MpscProducerTask implements ChildTask {
        public MpscProducerTask() {
        }

        @Override
        public String run(Node node, String[] args) {
            int id = Integer.parseInt(args[3]);
            int count = Integer.parseInt(args[4]);
            long deadline = System.nanoTime() + BOUND_NS;
            long full = 0;
            try (Endpoint ep = Endpoint.open(node)) {
                MpscRing.Producer p = MpscRing.Producer.attach(ep, ring(node, args));
                try {
                    for (int i = 0; i < count; i++) {
                        byte[] m = message(id, i, p.maxPayload());
                        // FULL wrote nothing (the reservation is abandoned, the consumer skips it): offer again
                        while (p.offer(m) == MpscRing.Offer.FULL) {
                            full++;
                            if (System.nanoTime() - deadline > 0) {
                                throw new IllegalStateException("message " + i + " still FULL after 5 s");
                            }
                        }
                    }
                } finally {
                    p.close();
                }
            }
            return Long.toString(full);
        }
    }

    /** Polls until a message arrives or the deadline passes (then fails); parks briefly between empty polls. */
    private static byte[] take(java.util.function.Supplier<byte[]> poll, long deadline, String what) {
        while (true) {
            byte[] m = poll.get();
            if (m != null) {
                return m;
            }
            assertTrue(System.nanoTime() - deadline < 0, "no message within 5 s: " + what);
            LockSupport.parkNanos(20_000);
        }
    }

    @Test
    void spscShouldDeliverEveryMessageOnceInOrderUnderBackPressureAcrossProcesses() {
        int count = 3_000;
        try (HostedSocketFabric f = open(HostedSocketFabric.Placement.named("producer"))) {
            Node cn = f.addNode("consumer");
            Node pn = f.addNode("producer");
            assertTrue(f.isInChild(pn) && !f.isInChild(cn));
            SpscRing.Consumer consumer = SpscRing.Consumer.create(cn, 256);
            long start = System.nanoTime();
            long deadline = start + BOUND_NS;
            ChildTask.Running producer = f.startInChild(pn, SpscProducerTask.class,
                args(cn, consumer.address(), count));
            for (int i = 0; i < count; i++) {
                int[] got = decode(take(consumer::poll, deadline, "message " + i), consumer.maxPayload());
                assertEquals(0, got[0]);
                assertEquals(i, got[1], "FIFO, no loss, no duplicate");
                if (i % 250 == 249) {
                    LockSupport.parkNanos(3_000_000); // the slow consumer: the producer fills the ring meanwhile
                }
            }
            long full = Long.parseLong(producer.await(deadline - System.nanoTime()));
            long took = System.nanoTime() - start;
            assertEquals(null, consumer.poll(), "nothing beyond the last message");
            assertTrue(full > 0, "the producer never saw the ring FULL");
            assertTrue(took < BOUND_NS, "took " + took / 1_000_000 + " ms");
            System.out.println("RingsCrossProcessTest: SPSC " + count + " messages in " + took / 1_000_000 + " ms, "
                + full + " FULL offers");
        }
    }

    @Test
    void mpscShouldDeliverEveryMessageOnceInEachProducersOrderUnderBackPressureAcrossProcesses() {
        int producers = 3;
        int each = 300;
        long skipNs = TimeUnit.MILLISECONDS.toNanos(200);
        try (HostedSocketFabric f = open(HostedSocketFabric.Placement.named("p0", "p1"))) {
            Node cn = f.addNode("consumer");
            Node[] pn = {f.addNode("p0"), f.addNode("p1")};
            MpscRing.Consumer consumer = MpscRing.Consumer.create(cn, SLOTS, 32, skipNs, System::nanoTime);
            long start = System.nanoTime();
            long deadline = start + BOUND_NS;
            List<ChildTask.Running> running = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                running.add(f.startInChild(pn[t % 2], MpscProducerTask.class, args(cn, consumer.address(), t, each)));
            }
            int[] next = new int[producers];
            for (int n = 0; n < producers * each; n++) {
                int[] got = decode(take(consumer::poll, deadline, "message " + n), 32);
                assertEquals(next[got[0]]++, got[1], "producer " + got[0] + ": FIFO, no loss, no duplicate");
                if (n == producers * each - SLOTS - 2 * producers) {
                    // Slower than half the skip timeout: producers waiting for a slot give up with FULL. Near the end,
                    // since each abandoned position stalls the consumer a skip timeout, long enough for producers
                    // with more to send to fill the ring and give up again.
                    LockSupport.parkNanos(skipNs * 3 / 4);
                }
            }
            long full = 0;
            for (ChildTask.Running r : running) {
                full += Long.parseLong(r.await(Math.max(1, deadline - System.nanoTime())));
            }
            long took = System.nanoTime() - start;
            assertEquals(null, consumer.poll(), "nothing beyond the last messages");
            for (int t = 0; t < producers; t++) {
                assertEquals(each, next[t], "producer " + t);
            }
            assertTrue(full > 0, "no producer saw the ring FULL");
            assertEquals(full, consumer.skipped(), "every FULL abandoned one reservation, which was skipped; nothing "
                + "else was");
            assertTrue(took < BOUND_NS, "took " + took / 1_000_000 + " ms");
            System.out.println("RingsCrossProcessTest: MPSC " + producers * each + " messages in " + took / 1_000_000
                + " ms, " + full + " FULL offers, " + consumer.skipped() + " positions skipped");
        }
    }
}
