package dev.remora.verbs.det;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Runs a seeded check over many seeds and makes failures replayable: a failing seed is reported with the system
 * property that reruns exactly that seed ({@value #SEED_PROPERTY}), and setting the property runs only that seed.
 */
public final class DetRuns {
    /** System property that selects one seed to replay. */
    public static final String SEED_PROPERTY = "remora.det.seed";
    /**
     * System property: worker threads for {@link #forEachSeedInParallel}. The default is the available processors, at
     * most 4: a deterministic run keeps about one core busy (one thread at a time holds the baton; a thread that
     * handed it on spins briefly, then parks), so on two cores two seeds at a time take about half the time of one at
     * a time for the same CPU time (measured on 400 seeds of each lock: 8.6 s against 16.8 s of wall time, 11.5 and
     * 12.2 CPU-s).
     */
    public static final String THREADS_PROPERTY = "remora.det.threads";
    /** A line on standard output at least this often while seeds run, so a long suite is never silent. */
    private static final long PROGRESS_NS = 30_000_000_000L;

    private DetRuns() {
    }

    /**
     * Calls {@code check} for every seed in {@code [first, first + count)}, or only for the seed named by
     * {@value #SEED_PROPERTY} when it is set.
     *
     * @param first the first seed
     * @param count how many seeds
     * @param check the check; it throws (an assertion error, say) to fail
     * @throws AssertionError naming the failing seed and how to replay it, with the original as cause
     */
    public static void forEachSeed(long first, int count, LongConsumer check) {
        String only = System.getProperty(SEED_PROPERTY);
        if (only != null && !only.isBlank()) {
            long seed = Long.parseLong(only.trim());
            run(seed, check);
            return;
        }
        Progress progress = new Progress(first, count);
        for (long seed = first; seed < first + count; seed++) {
            run(seed, check);
            progress.done();
        }
    }

    /**
     * As {@link #forEachSeed}, with the seeds spread over worker threads (each seed's run is as deterministic as
     * ever: a seed is one fabric, run by one worker). On failure it reports the lowest failing seed, as the
     * sequential loop would: every lower seed has run by then. {@code check} must be safe to call from several
     * threads at once (accumulate with atomics).
     *
     * @param first the first seed
     * @param count how many seeds
     * @param check the check; it throws (an assertion error, say) to fail
     * @throws AssertionError naming the lowest failing seed and how to replay it, with the original as cause
     */
    public static void forEachSeedInParallel(long first, int count, LongConsumer check) {
        forEachSeedInParallel(first, count, defaultThreads(), check);
    }

    /** @return the workers {@link #forEachSeedInParallel(long, int, LongConsumer)} uses (see {@link #THREADS_PROPERTY}) */
    public static int defaultThreads() {
        return Integer.getInteger(THREADS_PROPERTY, Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())));
    }

    /**
     * As {@link #forEachSeedInParallel(long, int, LongConsumer)} with a given number of workers.
     *
     * @param first   the first seed
     * @param count   how many seeds
     * @param threads worker threads (1: the sequential loop)
     * @param check   the check, safe to call from several threads at once
     * @throws AssertionError naming the lowest failing seed and how to replay it, with the original as cause
     */
    public static void forEachSeedInParallel(long first, int count, int threads, LongConsumer check) {
        String only = System.getProperty(SEED_PROPERTY);
        if (threads <= 1 || count <= 1 || (only != null && !only.isBlank())) {
            forEachSeed(first, count, check);
            return;
        }
        AtomicLong next = new AtomicLong(first);
        AtomicLong lowestFailed = new AtomicLong(Long.MAX_VALUE);
        AssertionError[] failure = new AssertionError[1];
        Progress progress = new Progress(first, count);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                for (long seed = next.getAndIncrement(); seed < first + count && seed < lowestFailed.get();
                     seed = next.getAndIncrement()) {
                    try {
                        run(seed, check);
                        progress.done();
                    } catch (AssertionError e) {
                        synchronized (failure) {
                            if (seed < lowestFailed.get()) {
                                lowestFailed.set(seed);
                                failure[0] = e;
                            }
                        }
                    }
                }
            }, "det-seeds-" + t);
            w.setDaemon(true);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while seeds ran", e);
            }
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }

    /** Prints how far a long run of seeds has got, at most every {@link #PROGRESS_NS}. */
    private static final class Progress {
        private final long first;
        private final int count;
        private final long start = System.nanoTime();
        private final AtomicLong done = new AtomicLong();
        private final AtomicLong lastPrint = new AtomicLong(start);

        Progress(long first, int count) {
            this.first = first;
            this.count = count;
        }

        void done() {
            long n = done.incrementAndGet();
            long now = System.nanoTime();
            long last = lastPrint.get();
            if (now - last >= PROGRESS_NS && lastPrint.compareAndSet(last, now)) {
                System.out.printf(Locale.ROOT, "[det] seeds %d..%d: %d of %d done after %d s%n", first,
                    first + count - 1, n, count, (now - start) / 1_000_000_000L);
            }
        }
    }

    private static void run(long seed, LongConsumer check) {
        try {
            check.accept(seed);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("seed " + seed + " failed: " + e.getMessage() + "\n  replay just this seed with -D"
                + SEED_PROPERTY + "=" + seed + " (e.g. mvn -pl <module> test -Dtest=<TestClass> -D" + SEED_PROPERTY
                + "=" + seed + ")", e);
        }
    }
}
