package dev.remora.check;

/** What one run of a partition's {@link WglSearch} ended with. */
enum SearchOutcome {
    /** Every completed operation is linearized: the partition is linearizable. */
    LINEARIZABLE,
    /** Every order was tried: the partition is not linearizable. */
    NOT_LINEARIZABLE,
    /** The run reached its state limit; the search keeps its place and may be run again. */
    PAUSED,
    /**
     * The search gave up for good (time or memory limit, or cancelled); {@link WglSearch#stopCause()} says
     * why.
     */
    STOPPED;

    /** @return whether the partition's verdict is known */
    boolean decided() {
        return this == LINEARIZABLE || this == NOT_LINEARIZABLE;
    }
}
