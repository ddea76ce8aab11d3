package dev.remora.verbs;

/**
 * A snapshot of verb counters, per queue pair, per endpoint or per fabric.
 *
 * <p><b>Round trips.</b> A round trip is a doorbell that carries at least one signaled request: the poster asked to
 * hear back from the peer, so the exchange costs one network round trip of latency. A doorbell of unsignaled
 * requests only is fire-and-forget and counts as a doorbell, not a round trip. Several signaled doorbells posted
 * before waiting overlap in time, so the count is an upper bound on the latency-bound exchanges; Remora's objects post
 * one doorbell per exchange they wait for, which makes the count exact for them.
 *
 * @param reads RDMA READs posted
 * @param writes RDMA WRITEs posted
 * @param compareAndSwaps CASes posted
 * @param fetchAndAdds FETCH_ADDs posted
 * @param sends SENDs posted
 * @param receives RECVs posted
 * @param bytes payload bytes of READ, WRITE and SEND, plus 8 per atomic
 * @param doorbells post calls (a list is one doorbell)
 * @param roundTrips doorbells that carried at least one signaled request
 * @param errors completions with a status other than SUCCESS (flushes included)
 */
public record VerbsStatistics(long reads, long writes, long compareAndSwaps, long fetchAndAdds, long sends,
                              long receives, long bytes, long doorbells, long roundTrips, long errors) {

    /** All zero. */
    public static final VerbsStatistics ZERO = new VerbsStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** @return every one-sided and two-sided operation posted, RECVs excluded */
    public long operations() {
        return reads + writes + compareAndSwaps + fetchAndAdds + sends;
    }

    /** @return CAS plus FETCH_ADD */
    public long atomics() {
        return compareAndSwaps + fetchAndAdds;
    }

    /**
     * Field-wise sum.
     *
     * @param o another snapshot
     * @return the sum
     */
    public VerbsStatistics plus(VerbsStatistics o) {
        return new VerbsStatistics(reads + o.reads, writes + o.writes, compareAndSwaps + o.compareAndSwaps,
            fetchAndAdds + o.fetchAndAdds, sends + o.sends, receives + o.receives, bytes + o.bytes,
            doorbells + o.doorbells, roundTrips + o.roundTrips, errors + o.errors);
    }

    /**
     * Field-wise difference, for measuring an interval.
     *
     * @param o an earlier snapshot
     * @return this minus {@code o}
     */
    public VerbsStatistics minus(VerbsStatistics o) {
        return new VerbsStatistics(reads - o.reads, writes - o.writes, compareAndSwaps - o.compareAndSwaps,
            fetchAndAdds - o.fetchAndAdds, sends - o.sends, receives - o.receives, bytes - o.bytes,
            doorbells - o.doorbells, roundTrips - o.roundTrips, errors - o.errors);
    }
}
