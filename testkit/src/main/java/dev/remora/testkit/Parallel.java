package dev.remora.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a body on several threads at once and joins them within a bound: the first failure of any thread is
 * rethrown, and a thread that does not finish in time fails the run (it is interrupted, never left waited for).
 */
public final class Parallel {
    /** A body run on each thread. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs on thread {@code id}.
         *
         * @param id 0 … threads − 1
         * @throws Exception anything, rethrown by {@link #run}
         */
        void run(int id) throws Exception;
    }

    private Parallel() {
    }

    /**
     * Starts {@code threads} threads together (they wait on one latch), runs {@code body} on each and joins them.
     *
     * @param threads how many
     * @param timeout how long all of them may take together
     * @param body what each runs
     * @throws Exception the first failure of a thread (an {@link Exception} as itself, an {@link Error} as itself)
     * @throws AssertionError if a thread had not finished at the timeout
     */
    public static void run(int threads, Duration timeout, Body body) throws Exception {
        List<Thread> started = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    if (!start.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("not started");
                    }
                    body.run(id);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "parallel-" + t);
            th.setDaemon(true);
            started.add(th);
        }
        started.forEach(Thread::start);
        start.countDown();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread th : started) {
            th.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        for (Thread th : started) {
            if (th.isAlive()) {
                started.forEach(Thread::interrupt);
                throw new AssertionError(th.getName() + " did not finish within " + timeout
                    + (failures.isEmpty() ? "" : "; first failure: " + failures.peek()));
            }
        }
        Throwable f = failures.peek();
        if (f instanceof Exception e) {
            throw e;
        }
        if (f instanceof Error e) {
            throw e;
        }
        if (f != null) {
            throw new AssertionError(f);
        }
    }
}
