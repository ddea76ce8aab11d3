package dev.remora.cli;

import dev.remora.check.HistoryRecorder;
import dev.remora.locks.TicketLock;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The demos' lock workload: threads, each with its own endpoint, take a {@link TicketLock} and increment a data word
 * with a plain READ and WRITE inside the critical section, recording every acquire and release.
 */
final class LockWorkload {
    private LockWorkload() {
    }

    /**
     * Runs the threads to the end.
     *
     * @param threads how many
     * @param nodeOf the local node of thread {@code t}
     * @param lock the lock's address
     * @param data the data word's address
     * @param perThread acquisitions per thread
     * @param recorder where acquires and releases are recorded
     * @param placeAtEnd whether each thread ends with a READ of the data word, which completes only once its WRITEs
     *     are placed (R7, R11), so that another process reading the word after this one exits sees them
     * @return the first failure of a thread, or null
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    static Throwable run(int threads, IntFunction<Node> nodeOf, RemoteAddress lock, RemoteAddress data, int perThread,
                         HistoryRecorder recorder, boolean placeAtEnd) throws InterruptedException {
        List<Thread> running = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads; t++) {
            Node node = nodeOf.apply(t);
            Thread thread = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(node)) {
                    TicketLock l = TicketLock.attach(ep, lock);
                    for (int i = 0; i < perThread; i++) {
                        recorder.run("acquire", null, null, l::lock);
                        long v = ep.readLong(data);
                        // The data WRITE and the release's WRITE of serving go to the home on one queue pair when the
                        // word is on the home, so they land in this order (R6).
                        ep.writeLong(data, v + 1);
                        recorder.run("release", null, null, l::unlock);
                    }
                    if (placeAtEnd) {
                        ep.readLong(data);
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                }
            }, "demo-lock-" + t);
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
        synchronized (failure) {
            return failure[0];
        }
    }
}
