package dev.remora.check;

/**
 * One line of a recorded history, before invocations are paired with completions.
 *
 * @param process  the process (thread, client) that issued the event: a {@link Long}, a
 *                 {@link String} or a {@link Keyword}
 * @param type     invoke, ok, fail or info
 * @param function the operation's name, such as {@code read} or {@code cas}
 * @param key      the key the operation addresses, or {@code null}
 * @param value    the event's value: the argument on an invocation, the result on an ok
 * @param timeNs   the time in nanoseconds, or {@link #NO_TIME}
 * @param line     the 1-based line of the source file where the event starts
 */
public record Event(Object process, EventType type, String function, Object key, Object value,
                    long timeNs, int line) {
    /** Marks an event recorded without a time. */
    public static final long NO_TIME = Long.MIN_VALUE;
}
