package dev.remora.testkit;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToLongFunction;

/**
 * The timed phase of a YCSB core workload (A: 50 % reads, B: 95 %, C: 100 %, the rest updates) over Zipf-chosen
 * keys, one thread per {@link Session}, all starting together, as the kv benchmark and the demo's kv workload run it.
 * Each thread opens its session and prepares it (say, loads its share of the keys); once every thread is ready the
 * clock starts, and each draws a key ({@link Zipf#rank}), reads or updates it, and times the call (HdrHistogram,
 * nanoseconds) and counts its round trips (the change of {@link Session#roundTrips()} across the call) until the
 * run's time is up or the run's operations reach the cap.
 */
public final class YcsbDriver {
    private YcsbDriver() {
    }

    /**
     * A workload: the percentage of reads, the rest updates.
     *
     * @param name YCSB's letter
     * @param readPercent reads in every hundred operations
     */
    public record Mix(String name, int readPercent) {
        /** YCSB-A: 50 % reads, 50 % updates. */
        public static final Mix A = new Mix("A", 50);
        /** YCSB-B: 95 % reads, 5 % updates. */
        public static final Mix B = new Mix("B", 95);
        /** YCSB-C: reads only. */
        public static final Mix C = new Mix("C", 100);
    }

    /** What an operation answered. */
    public enum Outcome {
        /** It found its key and did what it was asked. */
        OK,
        /** It did not find its key (or did not change it). */
        MISS,
        /** It was answered busy (a writer was inside); the caller may retry. */
        BUSY
    }

    /** One thread's client of the store under test. Used by its thread only. */
    public interface Session extends AutoCloseable {
        /**
         * Runs before the clock starts, in the session's thread (e.g. loads keys); the default does nothing.
         *
         * @throws Exception if it fails (the run records it and the thread does not run)
         */
        default void prepare() throws Exception {
        }

        /**
         * @param key the key drawn
         * @return what the read answered
         * @throws Exception if it fails (the run records it and the thread stops)
         */
        Outcome read(long key) throws Exception;

        /**
         * @param key the key drawn
         * @param count how many operations this thread ran before this one (for a value naming its writer)
         * @return what the update answered
         * @throws Exception if it fails (the run records it and the thread stops)
         */
        Outcome update(long key, long count) throws Exception;

        /** @return the round trips the session's endpoint has made so far */
        long roundTrips();

        /** Closes what the session opened; the default closes nothing. */
        @Override
        default void close() {
        }
    }

    /** Opens a thread's session, in that thread. */
    @FunctionalInterface
    public interface Sessions {
        /**
         * @param thread the thread's number, 0 up
         * @return its session
         * @throws Exception if it cannot be opened (the run records it)
         */
        Session open(int thread) throws Exception;
    }

    /**
     * What a run measured, summed over its threads.
     *
     * @param gets reads completed (hits, misses and BUSY)
     * @param updates updates completed (BUSY included)
     * @param busy operations answered BUSY
     * @param misses operations answered MISS
     * @param getRoundTrips round trips of all reads
     * @param updateRoundTrips round trips of all updates
     * @param getsAboveOne reads that took more than one round trip
     * @param readyNanos from the threads' start until every session was prepared
     * @param nanos the timed phase's wall time
     * @param capped whether the run stopped at its cap of operations
     * @param latency every operation's latency in ns
     * @param failure the first thread's failure, or null
     */
    public record Result(long gets, long updates, long busy, long misses, long getRoundTrips, long updateRoundTrips,
                         long getsAboveOne, long readyNanos, long nanos, boolean capped, Histogram latency,
                         Throwable failure) {
        /** @return reads and updates */
        public long operations() {
            return gets + updates;
        }

        /** @return operations per second of the timed phase */
        public double opsPerSecond() {
            return operations() / (nanos / 1e9);
        }

        /** @return round trips per read */
        public double roundTripsPerGet() {
            return gets == 0 ? 0 : (double) getRoundTrips / gets;
        }

        /** @return round trips per update */
        public double roundTripsPerUpdate() {
            return updates == 0 ? 0 : (double) updateRoundTrips / updates;
        }
    }

    /** One thread's counts. */
    private static final class Counts {
        final Histogram latency = new Histogram(3);
        long gets;
        long updates;
        long busy;
        long misses;
        long getRt;
        long updateRt;
        long getsAboveOne;
    }

    /**
     * Runs a workload: one thread per session, started together once all are prepared, for {@code seconds} or until
     * the run's operations reach {@code maxOperations}.
     *
     * @param mix the workload
     * @param threads how many threads (and sessions)
     * @param sessions opens each thread's session
     * @param zipf the key ranks (rank i is key i)
     * @param seconds how long the timed phase runs
     * @param seeds each thread's random seed, by its number
     * @param maxOperations the most operations of the run over every thread ({@link Long#MAX_VALUE}: no cap, and
     *     the threads share no counter)
     * @return the sums, with the first failure if a thread failed
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    public static Result run(Mix mix, int threads, Sessions sessions, Zipf zipf, double seconds,
                             IntToLongFunction seeds, long maxOperations) throws InterruptedException {
        Counts[] counts = new Counts[threads];
        Throwable[] failure = new Throwable[1];
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicLong started = maxOperations == Long.MAX_VALUE ? null : new AtomicLong();
        long[] window = new long[2];
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Counts c = new Counts();
            counts[t] = c;
            Thread th = new Thread(() -> {
                boolean counted = false;
                try (Session session = sessions.open(id)) {
                    try {
                        session.prepare();
                    } finally {
                        ready.countDown();
                        counted = true;
                    }
                    go.await();
                    SplittableRandom rnd = new SplittableRandom(seeds.applyAsLong(id));
                    long end = window[1];
                    long count = 0;
                    long now = System.nanoTime();
                    while (now < end && (started == null || started.incrementAndGet() <= maxOperations)) {
                        long key = zipf.rank(rnd.nextDouble());
                        boolean read = mix.readPercent() == 100 || rnd.nextInt(100) < mix.readPercent();
                        long rt0 = session.roundTrips();
                        Outcome o = read ? session.read(key) : session.update(key, count);
                        long after = System.nanoTime();
                        long rt = session.roundTrips() - rt0;
                        c.latency.recordValue(after - now);
                        if (read) {
                            c.gets++;
                            c.getRt += rt;
                            if (rt > 1) {
                                c.getsAboveOne++;
                            }
                        } else {
                            c.updates++;
                            c.updateRt += rt;
                        }
                        if (o == Outcome.BUSY) {
                            c.busy++;
                        } else if (o != Outcome.OK) {
                            c.misses++;
                        }
                        count++;
                        now = after;
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                } finally {
                    if (!counted) {
                        ready.countDown();
                    }
                }
            }, "ycsb-" + mix.name() + "-" + t);
            running.add(th);
            th.start();
        }
        long readyStart = System.nanoTime();
        ready.await();
        window[0] = System.nanoTime();
        long readyNanos = window[0] - readyStart;
        window[1] = window[0] + (long) (seconds * 1e9);
        go.countDown();
        for (Thread th : running) {
            th.join();
        }
        long nanos = System.nanoTime() - window[0];
        Histogram all = new Histogram(3);
        long gets = 0;
        long updates = 0;
        long busy = 0;
        long misses = 0;
        long getRt = 0;
        long updateRt = 0;
        long above = 0;
        for (Counts c : counts) {
            all.add(c.latency);
            gets += c.gets;
            updates += c.updates;
            busy += c.busy;
            misses += c.misses;
            getRt += c.getRt;
            updateRt += c.updateRt;
            above += c.getsAboveOne;
        }
        boolean capped = started != null && started.get() > maxOperations;
        Throwable f;
        synchronized (failure) {
            f = failure[0];
        }
        return new Result(gets, updates, busy, misses, getRt, updateRt, above, readyNanos, nanos, capped, all, f);
    }
}
