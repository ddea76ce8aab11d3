package dev.remora.check;

/**
 * One line of a recorded history, before invocations are paired with completions.
 *
 * @param process  the process (thread, client) that issued the event: an integer of any
 *                 Java type (held as a {@link Long}), a {@link String} or a {@link Keyword}
 * @param type     invoke, ok, fail or info
 * @param function the operation's name, such as {@code read} or {@code cas}
 * @param key      the key the operation addresses, or {@code null}
 * @param value    the event's value: the argument on an invocation, the result on an ok
 * @param timeNs   the time in nanoseconds, or {@link #NO_TIME}
 * @param line     the 1-based line of the source file where the event starts (for events
 *                 built in memory, conventionally the event's index plus one)
 *
 * <p>Integral numbers of any Java type in the process, key and value are held as
 * {@link Long} ({@link Values#normalize}), so {@code 3} and {@code 3L} are the same value.
 */
public record Event(Object process, EventType type, String function, Object key, Object value,
                    long timeNs, int line) {
    /** Marks an event recorded without a time. */
    public static final long NO_TIME = Long.MIN_VALUE;

    /** Normalizes the numbers in the process, key and value. */
    public Event {
        process = Values.normalize(process);
        key = Values.normalize(key);
        value = Values.normalize(value);
    }

    /**
     * Creates an event without a time.
     *
     * @param process  the process
     * @param type     invoke, ok, fail or info
     * @param function the operation's name
     * @param key      the key, or {@code null}
     * @param value    the value
     * @param line     the 1-based line (or index plus one)
     */
    public Event(Object process, EventType type, String function, Object key, Object value, int line) {
        this(process, type, function, key, value, NO_TIME, line);
    }
}
