package dev.remora.check;

/**
 * How far a check has got, as reported every so often to the listener of
 * {@link CheckOptions#withProgress}.
 *
 * @param statesExplored states memoised so far by the searches of all partitions
 * @param partitionsLeft partitions not yet decided
 * @param partitions     partitions in all
 * @param elapsedNs      time since the check started
 */
public record CheckProgress(long statesExplored, int partitionsLeft, int partitions, long elapsedNs) {
}
