package dev.remora.check;

/**
 * A completed operation that no state of its partition allows, found by {@link Model#impossible}
 * before the search.
 *
 * @param index  the operation's index in the partition's prepared operations
 * @param reason why it is impossible, completing "it is impossible in every state, being a …",
 *               such as {@code read of 7, a value that no operation writes and that is not the
 *               initial value}
 */
public record ImpossibleOperation(int index, String reason) {
}
