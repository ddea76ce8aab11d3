package dev.remora.bench.locks;

import dev.remora.locks.RemoteLock;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Part (b): one point of the contention table. {@code threads} threads each repeat lock / critical section / unlock
 * until a shared deadline; the critical section is a read-modify-write of a counter that is correct only under
 * mutual exclusion, so the counter must end equal to the number of acquisitions.
 *
 * <p>Everything is bounded in time: each worker stops starting operations at the deadline, and the run waits at most
 * {@code graceNs} more for the workers to finish; workers still running then are reported as stuck (they are daemon
 * threads and never keep the JVM alive).
 */
final class ContentionRun {

    /** One thread's work, created on that thread before the start signal. */
    interface Participant extends AutoCloseable {
        /** One acquisition: lock, critical section, unlock. */
        void once();

        @Override
        void close();
    }

    /**
     * The outcome of a point.
     *
     * @param counts per thread, acquisitions completed before the deadline
     * @param total every acquisition, including those that finished after the deadline
     * @param counter the counter's final value
     * @param durationNs the measured window
     * @param failures what went wrong, empty when nothing did
     * @param roundTrips the fabric's round trips during the run, every thread's together (-1 for the baseline)
     */
    record Result(long[] counts, long total, long counter, long durationNs, List<String> failures, long roundTrips) {

        /** @return round trips per acquisition, the critical section's READ and WRITE included, or NaN */
        double roundTripsPerOp() {
            return roundTrips < 0 || total <= 0 ? Double.NaN : (double) roundTrips / total;
        }

        double opsPerSecond() {
            long sum = 0;
            for (long c : counts) {
                sum += c;
            }
            return sum * 1e9 / durationNs;
        }

        /** Jain's index, {@code (sum x)^2 / (n * sum x^2)}: 1 when every thread got the same share, 1/n at worst. */
        double jain() {
            double sum = 0;
            double squares = 0;
            for (long c : counts) {
                sum += c;
                squares += (double) c * c;
            }
            return squares == 0 ? 0 : sum * sum / (counts.length * squares);
        }

        long min() {
            long m = Long.MAX_VALUE;
            for (long c : counts) {
                m = Math.min(m, c);
            }
            return m;
        }

        long max() {
            long m = 0;
            for (long c : counts) {
                m = Math.max(m, c);
            }
            return m;
        }

        boolean ok() {
            return failures.isEmpty();
        }
    }

    private ContentionRun() {
    }

    /**
     * A remote lock on the fast fabric: the lock on a home node, the counter on a data node, thread {@code i} on its
     * own client node {@code c<i>}; the critical section is a READ and a WRITE of the counter, and the release is the
     * ordered one (so the WRITE is flushed before the lock is free).
     *
     * @param design the lock
     * @param context the fabric's settings
     * @param threads contending threads
     * @param durationNs how long they contend
     * @param graceNs how long to wait after the deadline for the workers to finish
     * @return the result
     */
    static Result remote(LockDesign design, SimContext context, int threads, long durationNs, long graceNs) {
        try (SimFabric fabric = SimFabric.open(context)) {
            Node home = fabric.addNode("home");
            Node data = fabric.addNode("data");
            Node[] clients = new Node[threads];
            for (int i = 0; i < threads; i++) {
                clients[i] = fabric.addNode("c" + i);
            }
            RemoteAddress lock = design.create(home, threads);
            RemoteAddress counter = data.allocate(Long.BYTES, Access.ALL).remote(0);
            return run(threads, durationNs, graceNs, index -> {
                Endpoint ep = Endpoint.open(clients[index]);
                RemoteLock l = design.attach(ep, lock, threads, index);
                return new Participant() {
                    @Override
                    public void once() {
                        l.lock();
                        long v = ep.readLong(counter);
                        ep.writeLong(counter, v + 1);
                        l.unlock();
                    }

                    @Override
                    public void close() {
                        ep.close();
                    }
                };
            }, () -> {
                try (Endpoint ep = Endpoint.open(home)) {
                    return ep.readLong(counter);
                }
            }, () -> fabric.statistics().roundTrips());
        }
    }

    /** The baseline's counter: a plain field, guarded by the lock. */
    private static final class LocalCounter {
        long value;
    }

    /**
     * The baseline: {@link ReentrantLock} (non-fair, its default) guarding a local {@code long}, same shape.
     *
     * @param threads contending threads
     * @param durationNs how long they contend
     * @param graceNs how long to wait after the deadline for the workers to finish
     * @return the result
     */
    static Result baseline(int threads, long durationNs, long graceNs) {
        ReentrantLock lock = new ReentrantLock();
        LocalCounter counter = new LocalCounter();
        return run(threads, durationNs, graceNs, index -> new Participant() {
            @Override
            public void once() {
                lock.lock();
                try {
                    long v = counter.value;
                    counter.value = v + 1;
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void close() {
            }
        }, () -> {
            lock.lock();
            try {
                return counter.value;
            } finally {
                lock.unlock();
            }
        }, null);
    }

    /** Reads the counter after the run. */
    private interface CounterReader {
        long read();
    }

    /**
     * Runs the workers.
     *
     * @param roundTrips the fabric's round-trip counter, or null; read once every worker has attached (so set-up
     *     verbs are not counted) and once every worker has closed its endpoint
     */
    private static Result run(int threads, long durationNs, long graceNs, IntFunction<Participant> participants,
                              CounterReader counterReader, LongSupplier roundTrips) {
        long[] counts = new long[threads];
        long[] totals = new long[threads];
        List<String> failures = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        long[] deadline = new long[1];
        List<Thread> workers = new ArrayList<>();
        long roundTripsBefore;
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread w = new Thread(() -> {
                try (Participant p = participants.apply(index)) {
                    ready.countDown();
                    go.await();
                    long end = deadline[0]; // written before go.countDown(): the latch orders it
                    long counted = 0;
                    long total = 0;
                    while (System.nanoTime() < end) {
                        p.once();
                        total++;
                        if (System.nanoTime() <= end) {
                            counted++;
                        }
                    }
                    counts[index] = counted;
                    totals[index] = total;
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add("thread " + index + ": " + e);
                    }
                    ready.countDown(); // harmless if already counted: the latch stays at zero
                } finally {
                    done.countDown();
                }
            }, "lock-bench-" + t);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
        try {
            if (!ready.await(graceNs, TimeUnit.NANOSECONDS)) {
                failures.add("workers were not ready within " + graceNs / 1_000_000 + " ms");
            }
            roundTripsBefore = roundTrips == null ? -1 : roundTrips.getAsLong();
            long start = System.nanoTime();
            deadline[0] = start + durationNs;
            go.countDown();
            boolean finished = done.await(durationNs + graceNs, TimeUnit.NANOSECONDS);
            if (!finished) {
                failures.add("workers still running " + graceNs / 1_000_000 + " ms after the deadline (stuck?)");
                return new Result(counts.clone(), -1, -1, durationNs, failures, -1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add("interrupted");
            return new Result(counts, -1, -1, durationNs, failures, -1);
        }
        long rt = roundTrips == null ? -1 : roundTrips.getAsLong() - roundTripsBefore;
        long total = 0;
        for (long t : totals) {
            total += t;
        }
        long counter = failures.isEmpty() ? counterReader.read() : -1;
        if (failures.isEmpty() && counter != total) {
            failures.add("counter " + counter + " != acquisitions " + total + " (mutual exclusion or publication lost)");
        }
        return new Result(counts, total, counter, durationNs, failures, rt);
    }
}
