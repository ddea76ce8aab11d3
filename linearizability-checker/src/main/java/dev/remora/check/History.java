package dev.remora.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A history: the operations read from one source, in order of invocation, each an
 * {@link Operation} interval. Built from {@link Event}s by {@link #fromEvents}, which pairs each
 * invocation with its process's next completion and rejects histories that break the rules.
 */
public final class History {
    private final String source;
    private final HistoryFormat format;
    private final List<Operation> operations;
    /** The time of the event at each position, or {@code null} when some event has none. */
    private final long[] times;

    /**
     * Creates a history from operations already paired.
     *
     * @param source     a name for messages, usually the file name
     * @param format     the format it was read from, or {@code null}
     * @param operations the operations; ids must be their indices
     */
    public History(String source, HistoryFormat format, List<Operation> operations) {
        this(source, format, operations, null);
    }

    /**
     * Creates a history from operations already paired, with the times of its events.
     *
     * @param source     a name for messages, usually the file name
     * @param format     the format it was read from, or {@code null}
     * @param operations the operations; ids must be their indices
     * @param times      the time in nanoseconds of the event at each position, or {@code null}
     */
    public History(String source, HistoryFormat format, List<Operation> operations, long[] times) {
        this.source = source;
        this.format = format;
        this.operations = Collections.unmodifiableList(operations);
        this.times = times;
    }

    /**
     * The recorded time of the event at a position, for reports only (times never order events).
     *
     * @param position an operation's {@link Operation#call() call} or {@link Operation#ret() ret}
     * @return the time in nanoseconds, or {@link Event#NO_TIME} when the events have no times
     *         (all of them are needed) or the position is {@link Operation#INFINITY}
     */
    public long timeAt(long position) {
        return times == null || position < 0 || position >= times.length ? Event.NO_TIME : times[(int) position];
    }

    /** @return whether every event of the history has a time */
    public boolean hasTimes() {
        return times != null;
    }

    /** @return the source name */
    public String source() {
        return source;
    }

    /** @return the format, or {@code null} for a history built in memory */
    public HistoryFormat format() {
        return format;
    }

    /** @return the operations in order of invocation; {@code get(i).id() == i} */
    public List<Operation> operations() {
        return operations;
    }

    /** @return the number of operations */
    public int size() {
        return operations.size();
    }

    /**
     * Pairs events recorded in memory into operations, with the meaning of Remora's JSON Lines
     * ({@code fail}: the operation did not happen; {@code info}: its outcome is unknown).
     *
     * @param source name for messages
     * @param events the events in real-time order; each event's line is best its index plus one
     * @return the history
     * @throws MalformedHistoryException (unchecked) when a rule is broken, naming the event's line
     */
    public static History fromEvents(String source, List<Event> events) {
        return fromEvents(source, HistoryFormat.JSONL, events);
    }

    /**
     * Pairs events into operations.
     *
     * <p>Rules: a process has at most one open invocation; a completion needs an open
     * invocation of the same process and function (an {@code :info} without one, such as a
     * nemesis event, is ignored); a process that got {@code :info} is crashed and may not invoke
     * again. An operation's positions are the indices of its events in {@code events}: the order of
     * the events is the real-time order, in every format, as in Knossos and Jepsen. Event times are
     * not used for the order; in histories recorded by many threads they step backwards now and then
     * (a thread reads the clock, then waits for the lock that appends to the history).
     *
     * @param source name for messages
     * @param format the format, which decides what {@code :fail} means
     * @param events the events in real-time order (file order)
     * @return the history
     * @throws MalformedHistoryException (unchecked) when a rule is broken, naming the event's line
     */
    public static History fromEvents(String source, HistoryFormat format, List<Event> events) {
        Map<Object, Integer> open = new HashMap<>();
        Map<Object, Integer> crashed = new HashMap<>();
        // slot per invocation event: completion index or -1
        int[] completion = new int[events.size()];
        Arrays.fill(completion, -1);
        boolean[] drop = new boolean[events.size()];
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            Object p = e.process();
            if (!(p instanceof Long || p instanceof String || p instanceof Keyword)) {
                throw new MalformedHistoryException(source, e.line(), "process is " + Values.show(p)
                        + "; expected an integer, string or keyword process id");
            }
            if (e.type() == null || e.function() == null || e.function().isEmpty()) {
                throw new MalformedHistoryException(source, e.line(), "event without "
                        + (e.type() == null ? "a type" : "a function") + "; expected both");
            }
            if (e.type() == EventType.INVOKE) {
                Integer c = crashed.get(p);
                if (c != null) {
                    throw new MalformedHistoryException(source, e.line(), "process " + Values.show(p)
                            + " crashed (info at line " + c + ") and is reused; expected a fresh process"
                            + " id after an :info completion");
                }
                Integer o = open.get(p);
                if (o != null) {
                    throw new MalformedHistoryException(source, e.line(), "process " + Values.show(p)
                            + " invokes again while its invocation at line " + events.get(o).line()
                            + " is still open; expected a completion first");
                }
                open.put(p, i);
            } else {
                Integer o = open.remove(p);
                if (o == null) {
                    if (e.type() == EventType.INFO) {
                        drop[i] = true;
                        continue;
                    }
                    throw new MalformedHistoryException(source, e.line(), "unmatched :"
                            + e.type().name().toLowerCase(Locale.ROOT) + " completion of process "
                            + Values.show(p) + "; expected an :invoke of that process before it");
                }
                Event inv = events.get(o);
                if (!inv.function().equals(e.function())) {
                    throw new MalformedHistoryException(source, e.line(), "completion :f :" + e.function()
                            + " does not match the invocation's :f :" + inv.function() + " at line "
                            + inv.line() + "; expected the same function");
                }
                if (e.key() != null && inv.key() != null && !e.key().equals(inv.key())) {
                    throw new MalformedHistoryException(source, e.line(), "completion :key "
                            + Values.show(e.key()) + " does not match the invocation's key "
                            + Values.show(inv.key()) + " at line " + inv.line());
                }
                completion[o] = i;
                if (e.type() == EventType.INFO) {
                    crashed.put(p, e.line());
                }
            }
        }
        List<Operation> ops = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            Event inv = events.get(i);
            if (inv.type() != EventType.INVOKE) {
                continue;
            }
            long call = i;
            int c = completion[i];
            Event done = c < 0 ? null : events.get(c);
            Object output;
            long ret;
            int retLine = 0;
            if (done == null || done.type() == EventType.INFO) {
                output = Operation.UNKNOWN;
                ret = Operation.INFINITY;
            } else if (done.type() == EventType.OK) {
                output = done.value();
                ret = c;
                retLine = done.line();
            } else if (format == HistoryFormat.JEPSEN_LOG) {
                if (done.value() instanceof Keyword) {
                    output = Operation.UNKNOWN;
                    ret = Operation.INFINITY;
                } else if (inv.function().equals("cas")) {
                    output = Boolean.FALSE;
                    ret = c;
                    retLine = done.line();
                } else {
                    continue;
                }
            } else {
                continue;
            }
            Object key = inv.key() != null ? inv.key() : done == null ? null : done.key();
            ops.add(new Operation(ops.size(), inv.process(), inv.function(), key, inv.value(), output,
                    call, ret, inv.line(), retLine));
        }
        long[] times = new long[events.size()];
        for (int i = 0; i < times.length; i++) {
            times[i] = events.get(i).timeNs();
            if (times[i] == Event.NO_TIME) {
                times = null;
                break;
            }
        }
        return new History(source, format, ops, times == null || times.length == 0 ? null : times);
    }
}
