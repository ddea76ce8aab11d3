package dev.remora.locks;

/**
 * Bounded exponential backoff between retries of a remote operation. It only spins the CPU ({@link
 * Thread#onSpinWait()}) and yields, never sleeps or reads a clock, so it behaves the same on the deterministic fabric.
 */
final class Backoff {
    private final int minSpins;
    private final int maxSpins;
    private int spins;

    Backoff(int minSpins, int maxSpins) {
        this.minSpins = minSpins;
        this.maxSpins = maxSpins;
        this.spins = minSpins;
    }

    void reset() {
        spins = minSpins;
    }

    /**
     * Spins, then doubles the next spin up to the bound; at the bound it also yields the core, so that on an
     * oversubscribed machine a waiter does not keep the holder (or a NIC thread) from running.
     */
    void pause() {
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
        if (spins == maxSpins) {
            Thread.yield();
        }
        spins = Math.min(maxSpins, spins * 2);
    }
}
