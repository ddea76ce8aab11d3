package dev.remora.verbs.spi;

import dev.remora.verbs.Opcode;
import dev.remora.verbs.VerbsStatistics;

/**
 * A queue pair's counters, for providers: what {@link dev.remora.verbs.QueuePair#statistics()} reports. Not
 * thread-safe: the provider guards it with its queue pair's lock.
 */
public final class VerbCounters {
    private long reads;
    private long writes;
    private long compareAndSwaps;
    private long fetchAndAdds;
    private long sends;
    private long receives;
    private long bytes;
    private long doorbells;
    private long roundTrips;
    private long errors;

    /** Creates zeroed counters. */
    public VerbCounters() {
    }

    /**
     * Counts a posted request.
     *
     * @param opcode its opcode (not RECV)
     * @param length its length in bytes (8 is counted for an atomic)
     */
    public void posted(Opcode opcode, int length) {
        switch (opcode) {
            case READ -> {
                reads++;
                bytes += length;
            }
            case WRITE -> {
                writes++;
                bytes += length;
            }
            case CAS -> {
                compareAndSwaps++;
                bytes += Long.BYTES;
            }
            case FETCH_ADD -> {
                fetchAndAdds++;
                bytes += Long.BYTES;
            }
            case SEND -> {
                sends++;
                bytes += length;
            }
            default -> throw new IllegalArgumentException("not a send-queue opcode: " + opcode);
        }
    }

    /**
     * Counts a post call.
     *
     * @param signaled whether it carried a signaled request (a round trip)
     */
    public void doorbell(boolean signaled) {
        doorbells++;
        if (signaled) {
            roundTrips++;
        }
    }

    /** Counts a posted receive. */
    public void received() {
        receives++;
    }

    /** Counts a completion with a status other than SUCCESS. */
    public void error() {
        errors++;
    }

    /** @return the counts so far */
    public VerbsStatistics snapshot() {
        return new VerbsStatistics(reads, writes, compareAndSwaps, fetchAndAdds, sends, receives, bytes, doorbells,
            roundTrips, errors);
    }
}
