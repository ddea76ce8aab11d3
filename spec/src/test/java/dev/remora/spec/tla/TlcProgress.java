package dev.remora.spec.tla;

import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A line on standard output every 30 s while a suite's TLC runs go on ({@code [tlc] lock models: 12 of 41 checked
 * after 60 s}), so that a long suite is never silent. Thread-safe.
 */
final class TlcProgress implements AutoCloseable {
    private static final long PERIOD_S = 30;

    private final String suite;
    private final AtomicInteger total = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final long start = System.nanoTime();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "tlc-progress");
        t.setDaemon(true);
        return t;
    });

    /**
     * Starts printing.
     *
     * @param suite the suite's name in the line
     */
    TlcProgress(final String suite) {
        this.suite = suite;
        timer.scheduleAtFixedRate(this::print, PERIOD_S, PERIOD_S, TimeUnit.SECONDS);
    }

    /** Counts one more model to check. */
    void planned() {
        total.incrementAndGet();
    }

    /** Counts one model as checked. */
    void done() {
        done.incrementAndGet();
    }

    private void print() {
        System.out.printf(Locale.ROOT, "[tlc] %s: %d of %d checked after %d s%n", suite, done.get(), total.get(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
    }

    /** Stops printing. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
