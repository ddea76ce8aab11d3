package dev.remora.bench.kv;

import dev.remora.testkit.YcsbDriver;
import dev.remora.testkit.Zipf;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The YCSB core workloads A (50 % read, 50 % update), B (95/5) and C (100 % read) over Zipf-chosen keys
 * ({@link YcsbDriver}), the load that precedes them, and the fill from empty, run by one thread per
 * {@link KvClient}. Each operation is timed (HdrHistogram, nanoseconds) and, for a remote map, its round trips are the
 * change of its endpoint's count across the call ({@code VerbsStatistics.roundTrips}: signaled doorbells).
 */
final class Ycsb {
    /** Bytes of every value. */
    static final int VALUE_BYTES = 32;

    private Ycsb() {
    }

    /**
     * Runs a workload for a while, one thread per client, all starting together ({@link YcsbDriver}): a client's
     * NOT_FOUND or TABLE_FULL counts as a miss.
     *
     * @param mix the workload
     * @param clients one per thread, left open
     * @param zipf the key ranks (rank i is key i)
     * @param seconds how long
     * @param seed the threads' random seeds derive from it
     * @return the sums
     * @throws InterruptedException if interrupted while waiting for the threads
     * @throws IllegalStateException if a thread failed
     */
    static YcsbDriver.Result run(YcsbDriver.Mix mix, List<KvClient> clients, Zipf zipf, double seconds, long seed)
        throws InterruptedException {
        YcsbDriver.Result r = YcsbDriver.run(mix, clients.size(), id -> session(clients.get(id), id), zipf, seconds,
            id -> seed * 31 + id, Long.MAX_VALUE);
        if (r.failure() != null) {
            throw new IllegalStateException("a YCSB-" + mix.name() + " thread failed", r.failure());
        }
        return r;
    }

    private static YcsbDriver.Session session(KvClient client, int thread) {
        return new YcsbDriver.Session() {
            @Override
            public YcsbDriver.Outcome read(long key) {
                return outcome(client.get(key));
            }

            @Override
            public YcsbDriver.Outcome update(long key, long count) {
                return outcome(client.update(key, value(thread, count)));
            }

            @Override
            public long roundTrips() {
                return client.roundTrips();
            }
        };
    }

    private static YcsbDriver.Outcome outcome(KvClient.Outcome o) {
        return switch (o) {
            case OK -> YcsbDriver.Outcome.OK;
            case BUSY -> YcsbDriver.Outcome.BUSY;
            default -> YcsbDriver.Outcome.MISS;
        };
    }

    /** A 32-byte value naming its writer and its count; a fresh array (the local map keeps the reference). */
    static byte[] value(int thread, long count) {
        byte[] v = new byte[VALUE_BYTES];
        long word = (long) thread << 48 | count & 0xFFFF_FFFF_FFFFL;
        for (int i = 0; i < 8; i++) {
            v[i] = (byte) (word >>> (56 - 8 * i));
        }
        v[VALUE_BYTES - 1] = (byte) thread;
        return v;
    }

    /**
     * What a fill from empty measured.
     *
     * @param inserts keys inserted (OK answers)
     * @param full TABLE_FULL answers
     * @param busy BUSY answers
     * @param kicks inserts that kicked keys along a path
     * @param roundTrips round trips of every insert
     * @param nanos wall time of the whole fill
     * @param bandRates inserts per second within each band of {@code bands}
     * @param bandRoundTrips round trips per insert within each band
     */
    record Fill(long inserts, long full, long busy, long kicks, long roundTrips, long nanos, double[] bandRates,
                double[] bandRoundTrips) {
        double insertsPerSecond() {
            return inserts / (nanos / 1e9);
        }
    }

    /**
     * Inserts keys {@code 0..count-1}, taken in order from a shared counter by every client's thread, and times the
     * bands between the given fractions of {@code count}: an insert belongs to the band its index falls in, and a
     * band's time runs from the first of its inserts starting to the last one finishing.
     *
     * @param clients one per thread
     * @param count how many keys
     * @param bands ascending fractions in (0, 1], the last 1.0: e.g. {0.5, 0.75, 1.0}
     * @param keyBase the first key (keys are {@code keyBase + i})
     * @return the counts
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    static Fill fill(List<KvClient> clients, int count, double[] bands, long keyBase) throws InterruptedException {
        int threads = clients.size();
        int[] bandEnd = new int[bands.length];
        for (int b = 0; b < bands.length; b++) {
            bandEnd[b] = (int) Math.round(bands[b] * count);
        }
        AtomicInteger next = new AtomicInteger();
        AtomicLongArray bandStart = new AtomicLongArray(bands.length);
        AtomicLongArray bandFinish = new AtomicLongArray(bands.length);
        AtomicLongArray bandRt = new AtomicLongArray(bands.length);
        long[] inserted = new long[threads];
        long[] full = new long[threads];
        long[] busy = new long[threads];
        long[] rts = new long[threads];
        long[] kicksBefore = new long[threads];
        Throwable[] failure = new Throwable[1];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            KvClient client = clients.get(t);
            kicksBefore[t] = client.kicks();
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    long count2 = 0;
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        int band = 0;
                        while (i >= bandEnd[band]) {
                            band++;
                        }
                        long t0 = System.nanoTime();
                        bandStart.compareAndSet(band, 0, t0);
                        long rt0 = client.roundTrips();
                        KvClient.Outcome o = client.insert(keyBase + i, value(id, count2++));
                        long rt = client.roundTrips() - rt0;
                        rts[id] += rt;
                        bandRt.addAndGet(band, rt);
                        long t1 = System.nanoTime();
                        bandFinish.accumulateAndGet(band, t1, Math::max);
                        switch (o) {
                            case OK -> inserted[id]++;
                            case FULL -> full[id]++;
                            case BUSY -> busy[id]++;
                            default -> throw new IllegalStateException("insert answered " + o);
                        }
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                }
            }, "fill-" + t);
            running.add(th);
            th.start();
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread th : running) {
            th.join();
        }
        long nanos = System.nanoTime() - start;
        if (failure[0] != null) {
            throw new IllegalStateException("a fill thread failed", failure[0]);
        }
        double[] rates = new double[bands.length];
        double[] rtPer = new double[bands.length];
        for (int b = 0; b < bands.length; b++) {
            int n = bandEnd[b] - (b == 0 ? 0 : bandEnd[b - 1]);
            long span = bandFinish.get(b) - bandStart.get(b);
            rates[b] = span <= 0 ? 0 : n / (span / 1e9);
            rtPer[b] = n == 0 ? 0 : (double) bandRt.get(b) / n;
        }
        long kicks = 0;
        for (int t = 0; t < threads; t++) {
            kicks += clients.get(t).kicks() - kicksBefore[t];
        }
        return new Fill(sum(inserted), sum(full), sum(busy), kicks, sum(rts), nanos, rates, rtPer);
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }
}
