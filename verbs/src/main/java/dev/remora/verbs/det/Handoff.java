package dev.remora.verbs.det;

import java.util.concurrent.locks.LockSupport;

/**
 * A one-shot baton passed between the threads of a deterministic run (the scheduling loop runs on whichever holds
 * it, see {@code DetFabric.Loop}): {@link #signal()} and {@link #await()} alternate. The waiter spins briefly (the
 * other side usually answers within microseconds) and then parks, so a hand-over costs about a microsecond instead of
 * a futex round trip. The spin is short (200 pauses, some 10 to 30 µs) because a run has several waiters and only one of them is resumed next: the others' spinning keeps the
 * cores from the thread that should run. On two cores, 2,000 pauses made the deterministic lock suite 1.5 to 2 times
 * slower than 200 (300 seeds of five locks: 31.7 s against 14.2 to 21.8 s).
 */
final class Handoff {
    private static final int SPINS = 200;

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
