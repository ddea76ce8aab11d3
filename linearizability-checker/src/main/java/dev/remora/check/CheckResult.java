package dev.remora.check;

/**
 * The outcome of a check.
 *
 * @param verdict         linearizable, not, or unknown
 * @param cause           for {@link Verdict#UNKNOWN}: why (time limit, memory limit); else {@code null}
 * @param failure         for {@link Verdict#NOT_LINEARIZABLE}: the explanation; else {@code null}
 * @param operations      operations checked (after dropping indeterminate reads)
 * @param partitions      partitions checked
 * @param statesExplored  memoised configurations visited, summed over partitions
 * @param elapsedNs       wall-clock time of the check
 * @param linearizations  with {@link CheckOptions#linearizations()}: per partition of
 *                        {@link Model#partition}, in its order, the order of operations the search
 *                        found for a partition found linearizable (its prepared operations; the
 *                        indeterminate ones left out did not take effect), or {@code null} for a
 *                        partition not found linearizable (failed, undecided, or not searched once
 *                        another failed); without it, an empty list
 */
public record CheckResult(Verdict verdict, String cause, Failure failure, int operations, int partitions,
                          long statesExplored, long elapsedNs, java.util.List<java.util.List<Operation>> linearizations) {
    /**
     * A result without linearizations.
     *
     * @param verdict        linearizable, not, or unknown
     * @param cause          why unknown, or {@code null}
     * @param failure        the explanation of a failure, or {@code null}
     * @param operations     operations checked
     * @param partitions     partitions checked
     * @param statesExplored memoised configurations visited
     * @param elapsedNs      wall-clock time of the check
     */
    public CheckResult(Verdict verdict, String cause, Failure failure, int operations, int partitions,
                       long statesExplored, long elapsedNs) {
        this(verdict, cause, failure, operations, partitions, statesExplored, elapsedNs, java.util.List.of());
    }
}
