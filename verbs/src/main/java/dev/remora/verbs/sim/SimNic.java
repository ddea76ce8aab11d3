package dev.remora.verbs.sim;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The software fabric's NIC threads. Each serves the queue pairs that have work that was not due when it was
 * posted (injected latency, crash timeouts, receiver-not-ready retries), always the same thread for a queue pair.
 * A thread spins while its next deadline is near ({@link SimContext#spinBeforeParkNs()}) and parks otherwise;
 * with nothing to do it parks until woken by a post. A NIC thread survives any exception: a request's exception is
 * its error completion ({@code GENERAL_ERR}), and one thrown while progressing a queue pair otherwise moves only that
 * queue pair to ERROR.
 */
final class SimNic {
    private final SimFabric fabric;
    private final Worker[] workers;
    private final long spinBeforeParkNs;
    private volatile boolean stopped;

    SimNic(SimFabric fabric, int threads, long spinBeforeParkNs) {
        this.fabric = fabric;
        this.spinBeforeParkNs = spinBeforeParkNs;
        this.workers = new Worker[threads];
    }

    /**
     * Hands a queue pair with pending work to its NIC thread. Caller may hold this queue pair's monitor (posting) or
     * no lock (a RECV posted at the peer); it must not hold a completion queue's locks, which come after the queue
     * pair's monitor and this object's in the lock order of {@link SimQueuePair}.
     */
    void wake(SimQueuePair qp) {
        if (stopped) {
            return;
        }
        Worker w = worker(qp);
        // The caller holds this queue pair's monitor already (posting) or no lock (see above): never out of order.
        synchronized (qp) {
            if (!qp.scheduled) {
                qp.scheduled = true;
                w.incoming.add(qp);
            }
        }
        w.signal();
    }

    private Worker worker(SimQueuePair qp) {
        int i = Math.floorMod(qp.node().id() * 31 + qp.qpNumber(), workers.length);
        Worker w = workers[i];
        if (w == null) {
            // Possibly under a queue pair's monitor: this monitor is a leaf, nothing is taken while holding it.
            synchronized (this) {
                w = workers[i];
                if (w == null) {
                    w = new Worker(i);
                    workers[i] = w;
                    w.thread.start();
                }
            }
        }
        return w;
    }

    void stop() {
        stopped = true;
        synchronized (this) {
            for (Worker w : workers) {
                if (w != null) {
                    LockSupport.unpark(w.thread);
                }
            }
        }
    }

    private final class Worker implements Runnable {
        final ConcurrentLinkedQueue<SimQueuePair> incoming = new ConcurrentLinkedQueue<>();
        final Thread thread;
        volatile long signals;

        Worker(int index) {
            this.thread = new Thread(this, "remora-sim-nic-" + index);
            this.thread.setDaemon(true);
        }

        void signal() {
            signals++;
            LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            List<SimQueuePair> active = new ArrayList<>();
            while (!stopped) {
                long seen = signals;
                SimQueuePair added;
                while ((added = incoming.poll()) != null) {
                    active.add(added);
                }
                long now = fabric.now();
                long next = Long.MAX_VALUE;
                for (Iterator<SimQueuePair> it = active.iterator(); it.hasNext(); ) {
                    SimQueuePair qp = it.next();
                    long due;
                    try {
                        due = qp.progressFromNic(now);
                    } catch (RuntimeException | Error e) {
                        // A request's own exception is already its error completion; anything else fails only the
                        // queue pair it came from, never this thread, which serves other queue pairs too.
                        qp.failedOnNic(e);
                        due = Long.MAX_VALUE;
                    }
                    if (due == Long.MAX_VALUE) {
                        it.remove();
                    } else {
                        next = Math.min(next, due);
                    }
                }
                if (next == Long.MAX_VALUE) {
                    if (incoming.isEmpty() && signals == seen) {
                        LockSupport.park(this);
                    }
                    continue;
                }
                long wait = next - fabric.now();
                if (wait <= 0) {
                    continue;
                }
                if (wait < spinBeforeParkNs) {
                    while (fabric.now() < next && signals == seen && !stopped) {
                        Thread.onSpinWait();
                    }
                } else if (signals == seen) {
                    LockSupport.parkNanos(this, wait);
                }
            }
        }
    }
}
