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
 */
public record CheckResult(Verdict verdict, String cause, Failure failure, int operations, int partitions,
                          long statesExplored, long elapsedNs) {
}
