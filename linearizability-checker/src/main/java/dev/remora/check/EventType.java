package dev.remora.check;

import java.util.Locale;

/**
 * The four kinds of history events, with Knossos's meanings.
 *
 * <ul>
 *   <li>{@link #INVOKE}: a process started an operation;</li>
 *   <li>{@link #OK}: the operation completed and took effect, its value is the result;</li>
 *   <li>{@link #FAIL}: the operation completed; what that means depends on the format
 *       (see {@link HistoryFormat});</li>
 *   <li>{@link #INFO}: the outcome is unknown; the operation may take effect at any point after
 *       its invocation, or never, and its process is crashed.</li>
 * </ul>
 */
public enum EventType {
    /** An operation was started. */
    INVOKE,
    /** The operation completed and took effect. */
    OK,
    /** The operation completed without effect (or, in Jepsen logs, as a failed compare-and-set). */
    FAIL,
    /** The outcome is unknown; the process is crashed. */
    INFO;

    /**
     * Parses a type name such as {@code invoke} or {@code :ok}.
     *
     * @param name the name, with or without a leading colon, in any case
     * @return the type, or {@code null} if the name is not one of the four
     */
    public static EventType parse(String name) {
        String n = name.startsWith(":") ? name.substring(1) : name;
        switch (n.toLowerCase(Locale.ROOT)) {
            case "invoke": return INVOKE;
            case "ok": return OK;
            case "fail": return FAIL;
            case "info": return INFO;
            default: return null;
        }
    }
}
