package dev.remora.verbs.det;

import java.util.concurrent.locks.LockSupport;

/**
 * A one-shot baton passed between the deterministic scheduler and a thread it runs: {@link #signal()} and
 * {@link #await()} alternate. The waiter spins briefly (the other side usually answers within microseconds) and then
 * parks, so a hand-over costs about a microsecond instead of a futex round trip.
 */
final class Handoff {
    private static final int SPINS = 2_000;

    private volatile boolean ready;
    private volatile Thread waiter;

    void signal() {
        ready = true; // written before reading waiter: a waiter that registered after this read sees ready
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    void await() {
        for (int i = 0; i < SPINS && !ready; i++) {
            Thread.onSpinWait();
        }
        if (!ready) {
            waiter = Thread.currentThread(); // registered before re-reading ready: pairs with signal()
            while (!ready) {
                LockSupport.park(this);
            }
            waiter = null;
        }
        ready = false;
    }
}
