package dev.remora.bench.objects;

import dev.remora.objects.CasRegister;
import dev.remora.objects.MpscRing;
import dev.remora.objects.MultiWriterVersionedRegister;
import dev.remora.objects.RemoteBarrier;
import dev.remora.objects.RemoteCounter;
import dev.remora.objects.RemoteRegister;
import dev.remora.objects.ShardedCounter;
import dev.remora.objects.SingleWriterVersionedRegister;
import dev.remora.objects.SpscRing;
import dev.remora.testkit.Cluster;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Round trips per operation, uncontended: for every object method, the count {@code docs/objects.md} states beside
 * the count measured, on the fast in-process fabric and on the in-process socket fabric (real TCP on loopback).
 *
 * <p><b>How a round trip is counted.</b> The verbs count, per queue pair, every doorbell (post call) that carries at
 * least one signaled request ({@code VerbCounters.doorbell(true)}): a request the poster waits to hear back about.
 * {@link Endpoint#statistics()} sums its queue pairs. Each operation is measured alone: the handle's endpoint's
 * counts are taken before and after the call, and the difference is that call's round trips. A consumer's
 * {@code poll} uses no endpoint, so for it the whole fabric's counts are taken ({@code Fabric.statistics()}).
 * Each method first runs once unmeasured (it connects the queue pairs); then {@code iterations} calls are measured,
 * and the table shows the mean and the largest single call. The run fails (exit status 1) if any call took more
 * round trips than stated.
 *
 * <p>Run: {@code java -cp bench/target/remora-bench.jar dev.remora.bench.objects.ObjectRoundTrips [iterations]}
 * (default 200).
 */
public final class ObjectRoundTrips {
    /**
     * One method's measurement.
     *
     * @param fabric the fabric's label
     * @param method object and method (and case)
     * @param stated the round trips {@code docs/objects.md} states
     * @param mean measured round trips per call, averaged
     * @param max the most any one call took
     * @param verbsPerCall verbs posted per call, averaged
     * @param doorbellsPerCall post calls per call, averaged
     */
    public record Row(String fabric, String method, int stated, double mean, long max, double verbsPerCall,
                      double doorbellsPerCall) {
        /** @return whether no call took more round trips than stated */
        public boolean withinStated() {
            return max <= stated;
        }
    }

    private ObjectRoundTrips() {
    }

    /** Measures the methods on one cluster, adding rows. */
    private static final class Meter {
        private final Cluster cluster;
        private final String label;
        private final int iterations;
        private final List<Row> rows;

        Meter(Cluster cluster, String label, int iterations, List<Row> rows) {
            this.cluster = cluster;
            this.label = label;
            this.iterations = iterations;
            this.rows = rows;
        }

        void row(String method, int stated, Endpoint ep, IntConsumer op) {
            row(method, stated, ep, i -> { }, op);
        }

        /**
         * @param ep whose counts are taken, or null for the whole fabric's
         * @param prepare run before each call, outside the measured window
         */
        void row(String method, int stated, Endpoint ep, IntConsumer prepare, IntConsumer op) {
            Supplier<VerbsStatistics> counts = ep == null ? cluster.fabric()::statistics : ep::statistics;
            prepare.accept(-1);
            op.accept(-1);
            VerbsStatistics sum = VerbsStatistics.ZERO;
            long max = 0;
            for (int i = 0; i < iterations; i++) {
                prepare.accept(i);
                VerbsStatistics before = counts.get();
                op.accept(i);
                VerbsStatistics used = counts.get().minus(before);
                sum = sum.plus(used);
                max = Math.max(max, used.roundTrips());
            }
            rows.add(new Row(label, method, stated, (double) sum.roundTrips() / iterations, max,
                (double) sum.operations() / iterations, (double) sum.doorbells() / iterations));
        }
    }

    /**
     * Measures every method on one fabric.
     *
     * @param label the fabric's label for the table
     * @param clusters opens a cluster with nodes {@code home}, {@code home2}, {@code client} and {@code other}
     * @param iterations measured calls per method
     * @return one row per method
     */
    public static List<Row> measure(String label, Supplier<Cluster> clusters, int iterations) {
        List<Row> rows = new ArrayList<>();
        try (Cluster c = clusters.get()) {
            Meter m = new Meter(c, label, iterations, rows);
            Endpoint ep = c.endpoint("client");
            Endpoint other = c.endpoint("other");

            RemoteRegister word = RemoteRegister.attach(ep, RemoteRegister.create(c.node("home")));
            m.row("RemoteRegister.get", 1, ep, i -> word.get());
            m.row("RemoteRegister.set", 2, ep, i -> word.set(i));

            RemoteAddress casWord = CasRegister.create(c.node("home"));
            CasRegister cas = CasRegister.attach(ep, casWord);
            CasRegister casOther = CasRegister.attach(other, casWord);
            m.row("CasRegister.get", 1, ep, i -> cas.get());
            long[] last = {cas.get()};
            m.row("CasRegister.compareAndSet", 1, ep, i -> {
                require(cas.compareAndSet(last[0], 10_000 + i));
                last[0] = 10_000 + i;
            });
            m.row("CasRegister.getAndSet (fresh guess)", 1, ep, i -> cas.getAndSet(1_000 + i));
            m.row("CasRegister.getAndSet (stale guess)", 2, ep, i -> casOther.getAndSet(-i - 1),
                i -> cas.getAndSet(2_000 + i));

            int length = 64;
            RemoteAddress sw = SingleWriterVersionedRegister.create(c.node("home"), length);
            try (SingleWriterVersionedRegister r = SingleWriterVersionedRegister.attach(ep, sw, length)) {
                m.row("SingleWriterVersionedRegister.set (handle's first)", 3, ep, i -> { },
                    i -> {
                        try (SingleWriterVersionedRegister fresh = SingleWriterVersionedRegister.attach(ep, sw,
                            length)) {
                            fresh.set(value(length, i));
                        }
                    });
                m.row("SingleWriterVersionedRegister.set", 2, ep, i -> r.set(value(length, i)));
                m.row("SingleWriterVersionedRegister.get", 1, ep, i -> r.get());
            }
            RemoteAddress mw = MultiWriterVersionedRegister.create(c.node("home"), length);
            try (MultiWriterVersionedRegister r = MultiWriterVersionedRegister.attach(ep, mw, length);
                 MultiWriterVersionedRegister o = MultiWriterVersionedRegister.attach(other, mw, length)) {
                m.row("MultiWriterVersionedRegister.set", 3, ep, i -> r.set(value(length, i)));
                m.row("MultiWriterVersionedRegister.set (stale guess)", 4, ep, i -> o.set(value(length, -i)),
                    i -> r.set(value(length, i)));
                m.row("MultiWriterVersionedRegister.get", 1, ep, i -> r.get());
            }

            RemoteCounter counter = RemoteCounter.attach(ep, RemoteCounter.create(c.node("home")));
            m.row("RemoteCounter.get", 1, ep, i -> counter.get());
            m.row("RemoteCounter.incrementAndGet", 1, ep, i -> counter.incrementAndGet());
            m.row("RemoteCounter.addAndGet", 1, ep, i -> counter.addAndGet(3));
            m.row("RemoteCounter.getAndAdd", 1, ep, i -> counter.getAndAdd(-3));

            ShardedCounter.Shards shards = ShardedCounter.create(4, c.node("home"), c.node("home2"));
            try (ShardedCounter sc = ShardedCounter.attach(ep, shards, 5)) {
                m.row("ShardedCounter.increment", 1, ep, i -> sc.increment());
                m.row("ShardedCounter.add", 1, ep, i -> sc.add(2));
                m.row("ShardedCounter.get (2 homes x 4 shards)", 2, ep, i -> sc.get());
            }

            RemoteBarrier barrier = RemoteBarrier.attach(ep, RemoteBarrier.create(c.node("home")), 1);
            m.row("RemoteBarrier.await (last arrival)", 2, ep, i -> require(barrier.await(1_000_000_000L).passed()));

            // Rings large enough that no measured offer finds the cached head saying full (the stated 1 and 2), and
            // small rings that wrap, where an offer may first refresh the head with a READ (stated: one more).
            byte[] msg = new byte[64];
            List<byte[]> batch = List.of(msg, msg, msg, msg);
            int records = (iterations + 2) * batch.size() * 72;
            SpscRing.Consumer spsc = SpscRing.Consumer.create(c.node("home"), Math.max(4096, 2 * records));
            SpscRing.Producer sp = SpscRing.Producer.attach(ep, spsc.address());
            m.row("SpscRing.offer (64 B)", 1, ep, i -> drain(spsc), i -> require(sp.offer(msg) == SpscRing.Offer.OK));
            m.row("SpscRing.offer (batch of 4 x 64 B)", 1, ep, i -> drain(spsc),
                i -> require(sp.offer(batch) == SpscRing.Offer.OK));
            m.row("SpscRing.poll", 0, null, i -> require(sp.offer(msg) == SpscRing.Offer.OK),
                i -> pollOne(spsc::poll));
            SpscRing.Consumer small = SpscRing.Consumer.create(c.node("home"), 1024);
            SpscRing.Producer smallProducer = SpscRing.Producer.attach(ep, small.address());
            m.row("SpscRing.offer (64 B, wrapping 1 KiB ring)", 2, ep, i -> drain(small),
                i -> require(smallProducer.offer(msg) == SpscRing.Offer.OK));

            MpscRing.Consumer mpsc = MpscRing.Consumer.create(c.node("home"), iterations + 2, 64, 60_000_000_000L,
                System::nanoTime);
            MpscRing.Producer mp = MpscRing.Producer.attach(ep, mpsc.address());
            m.row("MpscRing.offer (64 B)", 2, ep, i -> drain(mpsc), i -> require(mp.offer(msg) == MpscRing.Offer.OK));
            m.row("MpscRing.poll", 0, null, i -> require(mp.offer(msg) == MpscRing.Offer.OK),
                i -> pollOne(mpsc::poll));
            MpscRing.Consumer mpscSmall = MpscRing.Consumer.create(c.node("home"), 16, 64, 60_000_000_000L,
                System::nanoTime);
            MpscRing.Producer mpSmall = MpscRing.Producer.attach(ep, mpscSmall.address());
            m.row("MpscRing.offer (64 B, wrapping 16-slot ring)", 3, ep, i -> drain(mpscSmall),
                i -> require(mpSmall.offer(msg) == MpscRing.Offer.OK));
        }
        return rows;
    }

    private static void drain(SpscRing.Consumer c) {
        while (c.poll() != null) {
            // drop: the ring's room is what the next offer needs
        }
    }

    private static void drain(MpscRing.Consumer c) {
        while (c.poll() != null) {
            // drop
        }
    }

    /** Polls until a message comes (it may still be on its way after the offer returned), at most 10 s. */
    private static void pollOne(Supplier<byte[]> poll) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (poll.get() == null) {
            require(System.nanoTime() < deadline);
            Thread.onSpinWait();
        }
    }

    private static void require(boolean ok) {
        if (!ok) {
            throw new IllegalStateException("an uncontended operation did not succeed");
        }
    }

    private static byte[] value(int length, int i) {
        byte[] v = new byte[length];
        java.util.Arrays.fill(v, (byte) i);
        return v;
    }

    /**
     * Prints the table.
     *
     * @param out where
     * @param rows the measurements
     */
    public static void print(PrintStream out, List<Row> rows) {
        out.printf(Locale.ROOT, "%-8s %-52s %6s %9s %4s %11s %11s %s%n", "fabric", "method", "stated", "measured",
            "max", "verbs/call", "doorbells", "check");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-8s %-52s %6d %9.2f %4d %11.2f %11.2f %s%n", r.fabric(), r.method(), r.stated(),
                r.mean(), r.max(), r.verbsPerCall(), r.doorbellsPerCall(), r.withinStated() ? "ok" : "ABOVE STATED");
        }
    }

    /**
     * Measures on both fabrics and prints.
     *
     * @param out where
     * @param iterations measured calls per method
     * @return whether every call stayed within its stated round trips
     */
    public static boolean run(PrintStream out, int iterations) {
        String[] names = {"home", "home2", "client", "other"};
        List<Row> rows = new ArrayList<>(measure("fast", () -> Cluster.fast(names), iterations));
        rows.addAll(measure("socket", () -> Cluster.socket(names), iterations));
        out.printf(Locale.ROOT, "ObjectRoundTrips: %d calls per method, round trips = signaled doorbells, %s%n",
            iterations, RingThroughput.machine());
        print(out, rows);
        long above = rows.stream().filter(r -> !r.withinStated()).count();
        out.println(above == 0 ? "every method within its stated round trips"
            : above + " methods ABOVE their stated round trips");
        return above == 0;
    }

    /**
     * @param args {@code [iterations]}
     */
    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        if (!run(System.out, iterations)) {
            System.exit(1);
        }
    }
}
