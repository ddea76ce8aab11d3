package dev.remora.bench.objects;

import dev.remora.objects.MpscRing;
import dev.remora.objects.SpscRing;
import dev.remora.testkit.Cluster;
import dev.remora.verbs.Endpoint;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Ring throughput: {@link SpscRing} and {@link MpscRing} (1 and 4 producers) on the fast fabric with the 2 µs
 * round-trip preset, each producer thread on its own node and the consumer polling its own memory, beside Agrona's
 * {@link OneToOneRingBuffer} and {@link ManyToOneRingBuffer} on local memory with the same producers, message sizes
 * and consumer loop, measured in the same run; and {@link SpscRing}'s batched offers (one doorbell for a batch)
 * beside single offers.
 *
 * <p>Each case runs its producers for a fixed time; the consumer receives everything that was sent, checking each
 * message's length and each producer's order (the first 8 bytes carry producer and sequence), and the rate is the
 * messages received over the time from the start to the last message. MB/s counts payload bytes (10^6 bytes).
 * The ratio is the remote ring's rate over the local ring's with the same producers and size.
 *
 * <p>Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/remora-bench.jar
 * dev.remora.bench.objects.RingThroughput [ms per case]} (default 700, after an unprinted warm-up pass of every
 * case at a fifth of that; Agrona 2 needs the export for its {@code Unsafe}).
 */
public final class RingThroughput {
    /** Messages per batched {@code SpscRing} offer. */
    public static final int BATCH = 8;
    private static final int SPSC_CAPACITY = 256 * 1024;
    private static final int MPSC_SLOTS = 256;
    private static final int AGRONA_CAPACITY = 1024 * 1024;
    private static final long SKIP_NS = 60_000_000_000L;

    /** The rings measured. */
    public enum Ring {
        /** {@link SpscRing}, one message per offer. */
        SPSC,
        /** {@link SpscRing}, {@link #BATCH} messages per offer (one doorbell). */
        SPSC_BATCHED,
        /** {@link MpscRing}. */
        MPSC,
        /** Agrona's {@link OneToOneRingBuffer} on local memory. */
        AGRONA_ONE_TO_ONE,
        /** Agrona's {@link ManyToOneRingBuffer} on local memory. */
        AGRONA_MANY_TO_ONE
    }

    /**
     * One case's result.
     *
     * @param ring the ring
     * @param producers producer threads
     * @param size message bytes
     * @param messages messages received (all that were sent)
     * @param seconds from the start to the last message
     */
    public record Row(Ring ring, int producers, int size, long messages, double seconds) {
        /** @return messages per second */
        public double rate() {
            return messages / seconds;
        }

        /** @return payload megabytes (10^6) per second */
        public double megabytesPerSecond() {
            return rate() * size / 1e6;
        }
    }

    /** A producer's step: offer the message(s) from sequence {@code seq} on; how many went (0: no room). */
    private interface Sender {
        int send(long seq) throws Exception;
    }

    private RingThroughput() {
    }

    private static byte[] message(int producer, long seq, int size) {
        byte[] m = new byte[size];
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putLong(0, (long) producer << 48 | seq);
        return m;
    }

    /** Checks one received message and counts it. */
    private static final class Receiver {
        private final long[] next;
        private final int size;
        private long received;
        private long lastNs;

        Receiver(int producers, int size) {
            this.next = new long[producers];
            this.size = size;
        }

        void accept(ByteBuffer b, int length) {
            long id = b.order(ByteOrder.LITTLE_ENDIAN).getLong(b.position());
            int p = (int) (id >>> 48);
            long seq = id & ((1L << 48) - 1);
            if (length != size || p >= next.length || seq != next[p]) {
                throw new IllegalStateException("message " + p + "/" + seq + " of " + length + " bytes; expected "
                    + "sequence " + (p < next.length ? next[p] : -1) + " of " + size);
            }
            next[p]++;
            received++;
            lastNs = System.nanoTime();
        }
    }

    /**
     * Runs one case: producers send for {@code durationNs}, the consumer receives all they sent.
     *
     * @param poll receives what is there into the receiver, returns how many
     */
    private static Row run(Ring ring, int producers, int size, long durationNs, Sender[] senders,
                           java.util.function.ToIntFunction<Receiver> poll) throws Exception {
        Receiver rx = new Receiver(producers, size);
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder sent = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int p = 0; p < producers; p++) {
            Sender s = senders[p];
            Thread t = new Thread(() -> {
                try {
                    long seq = 0;
                    while (!stop.get()) {
                        int n = s.send(seq);
                        if (n > 0) {
                            seq += n;
                            sent.add(n);
                        } else {
                            Thread.yield();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "producer-" + p);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        long end = start + durationNs;
        long hardEnd = end + 30_000_000_000L;
        boolean stopped = false;
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0 && rx.received > 0) { // at least one message, however loaded the machine
                // producers stop after their current offer, which may wait for room: keep polling meanwhile
                stop.set(true);
                stopped = threads.stream().noneMatch(Thread::isAlive);
            }
            if (failure.get() != null) {
                throw new IllegalStateException(ring + ": a producer failed", failure.get());
            }
            if (stopped && rx.received == sent.sum()) {
                break;
            }
            if (now - hardEnd >= 0) {
                throw new IllegalStateException(ring + ": received " + rx.received + " of " + sent.sum());
            }
            if (poll.applyAsInt(rx) == 0) {
                Thread.yield();
            }
        }
        return new Row(ring, producers, size, rx.received, (rx.lastNs - start) / 1e9);
    }

    private static Row spsc(int size, int batch, long durationNs) throws Exception {
        try (Cluster c = Cluster.fastTwoMicroseconds("consumer", "p0")) {
            SpscRing.Consumer consumer = SpscRing.Consumer.create(c.node("consumer"), SPSC_CAPACITY);
            Endpoint ep = c.endpoint("p0");
            SpscRing.Producer producer = SpscRing.Producer.attach(ep, consumer.address());
            Sender s = seq -> {
                List<byte[]> ms = new ArrayList<>(batch);
                for (int k = 0; k < batch; k++) {
                    ms.add(message(0, seq + k, size));
                }
                return producer.offer(ms) == SpscRing.Offer.OK ? batch : 0;
            };
            Row r = run(batch == 1 ? Ring.SPSC : Ring.SPSC_BATCHED, 1, size, durationNs, new Sender[] {s}, rx -> {
                int n = 0;
                byte[] m;
                while ((m = consumer.poll()) != null) {
                    rx.accept(ByteBuffer.wrap(m), m.length);
                    n++;
                }
                return n;
            });
            return r;
        }
    }

    private static Row mpsc(int producers, int size, long durationNs) throws Exception {
        String[] names = new String[producers + 1];
        names[0] = "consumer";
        for (int p = 0; p < producers; p++) {
            names[p + 1] = "p" + p;
        }
        try (Cluster c = Cluster.fastTwoMicroseconds(names)) {
            MpscRing.Consumer consumer = MpscRing.Consumer.create(c.node("consumer"), MPSC_SLOTS, size, SKIP_NS,
                System::nanoTime);
            Sender[] senders = new Sender[producers];
            for (int p = 0; p < producers; p++) {
                int id = p;
                MpscRing.Producer producer = MpscRing.Producer.attach(c.endpoint("p" + p), consumer.address());
                senders[p] = seq -> producer.offer(message(id, seq, size)) == MpscRing.Offer.OK ? 1 : 0;
            }
            return run(Ring.MPSC, producers, size, durationNs, senders, rx -> {
                int n = 0;
                byte[] m;
                while ((m = consumer.poll()) != null) {
                    rx.accept(ByteBuffer.wrap(m), m.length);
                    n++;
                }
                return n;
            });
        }
    }

    private static Row agrona(Ring kind, int producers, int size, long durationNs) throws Exception {
        UnsafeBuffer buffer = new UnsafeBuffer(
            ByteBuffer.allocateDirect(AGRONA_CAPACITY + RingBufferDescriptor.TRAILER_LENGTH));
        RingBuffer ring = kind == Ring.AGRONA_ONE_TO_ONE ? new OneToOneRingBuffer(buffer)
            : new ManyToOneRingBuffer(buffer);
        Sender[] senders = new Sender[producers];
        for (int p = 0; p < producers; p++) {
            int id = p;
            UnsafeBuffer src = new UnsafeBuffer(new byte[size]);
            senders[p] = seq -> {
                // the same message as the remote rings send: a fresh array per message, then the copy into the ring
                src.wrap(message(id, seq, size));
                return ring.write(1, src, 0, size) ? 1 : 0;
            };
        }
        return run(kind, producers, size, durationNs,
            senders, rx -> ring.read((type, b, index, length) -> {
                // the same copy out as the remote rings' poll makes: a fresh array per message
                byte[] m = new byte[length];
                b.getBytes(index, m);
                rx.accept(ByteBuffer.wrap(m), length);
            }));
    }

    /**
     * Measures every case.
     *
     * @param durationMs milliseconds each case's producers run
     * @return the rows, in the printed order
     * @throws Exception on failure
     */
    public static List<Row> measure(long durationMs) throws Exception {
        long d = durationMs * 1_000_000L;
        List<Row> rows = new ArrayList<>();
        for (int size : new int[] {64, 4096}) {
            rows.add(agrona(Ring.AGRONA_ONE_TO_ONE, 1, size, d));
            rows.add(spsc(size, 1, d));
            rows.add(spsc(size, BATCH, d));
            rows.add(agrona(Ring.AGRONA_MANY_TO_ONE, 1, size, d));
            rows.add(mpsc(1, size, d));
            rows.add(agrona(Ring.AGRONA_MANY_TO_ONE, 4, size, d));
            rows.add(mpsc(4, size, d));
        }
        return rows;
    }

    private static Row baseline(List<Row> rows, Row r) {
        Ring local = r.ring() == Ring.MPSC ? Ring.AGRONA_MANY_TO_ONE : Ring.AGRONA_ONE_TO_ONE;
        for (Row b : rows) {
            if (b.ring() == local && b.producers() == r.producers() && b.size() == r.size()) {
                return b;
            }
        }
        return null;
    }

    /**
     * Prints the table and the batched-versus-single comparison.
     *
     * @param out where
     * @param rows the measurements
     */
    public static void print(PrintStream out, List<Row> rows) {
        out.printf(Locale.ROOT, "%-20s %9s %6s %10s %12s %9s %-20s %9s%n", "ring", "producers", "size", "messages",
            "messages/s", "MB/s", "local baseline", "ratio");
        for (Row r : rows) {
            Row b = r.ring().name().startsWith("AGRONA") ? null : baseline(rows, r);
            out.printf(Locale.ROOT, "%-20s %9d %6d %10d %12.0f %9.1f %-20s %9s%n", r.ring(), r.producers(),
                r.size(), r.messages(), r.rate(), r.megabytesPerSecond(), b == null ? "-" : b.ring().name(),
                b == null ? "-" : String.format(Locale.ROOT, "%.4f", r.rate() / b.rate()));
        }
        for (int size : new int[] {64, 4096}) {
            Row single = find(rows, Ring.SPSC, size);
            Row batched = find(rows, Ring.SPSC_BATCHED, size);
            if (single != null && batched != null) {
                out.printf(Locale.ROOT, "SpscRing %d B: batches of %d %.0f messages/s, single %.0f: batched/single "
                    + "%.2f%n", size, BATCH, batched.rate(), single.rate(), batched.rate() / single.rate());
            }
        }
    }

    /** @return the cores and the load average, for the header: the figures depend on both */
    static String machine() {
        return String.format(Locale.ROOT, "%d cores, load average %.2f", Runtime.getRuntime().availableProcessors(),
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static Row find(List<Row> rows, Ring ring, int size) {
        return rows.stream().filter(r -> r.ring() == ring && r.size() == size).findFirst().orElse(null);
    }

    /**
     * @param args {@code [ms per case]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 700;
        System.out.printf(Locale.ROOT, "RingThroughput: %d ms per case, fast fabric with the 2 us preset, %s%n", ms,
            machine());
        measure(Math.max(1, ms / 5)); // warm-up pass of every case, not printed (the JIT)
        print(System.out, measure(ms));
    }
}
