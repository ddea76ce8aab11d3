package dev.remora.verbs.spi;

import dev.remora.verbs.CompletionQueue;

/**
 * A completion queue whose blocked waiters can be woken: every provider's completion queue implements it, so that the
 * wait layer ({@link dev.remora.verbs.CompletionDispatcher}) can let a thread that routed another's completion wake
 * the thread blocked in {@link CompletionQueue#await}.
 */
public interface WakeableCompletionQueue extends CompletionQueue {

    /**
     * Wakes threads blocked in {@link #await} so they re-check their condition (used by the wait layer when one
     * thread routes another's completion).
     */
    void wakeWaiters();
}
