package dev.remora.locks.faults;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.Model;
import dev.remora.check.Verdict;
import dev.remora.check.io.HistoryReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The histories that {@link FaultClient}s left in their files, merged into one per object. Every client numbers its
 * processes from 0, so each line's process becomes {@code "<tag>-<n>"}; the lines are then ordered by their times,
 * which all processes on one machine read from one clock ({@code System.nanoTime()} is {@code CLOCK_MONOTONIC} on
 * Linux, shared by every process and network namespace): an invocation's time is read before its verbs are posted and
 * a completion's after they returned, so the order by time keeps every real-time precedence (it can only widen the
 * operations). A line cut short by a kill (none should be: each event is flushed whole) is dropped.
 */
final class FaultHistories {
    private static final Pattern PROCESS = Pattern.compile("^\\{\"process\":(\\d+),");
    private static final Pattern TIME = Pattern.compile(",\"time\":(-?\\d+)}$");
    private static final Pattern TYPE = Pattern.compile("\"type\":\"(\\w+)\",\"f\":\"(\\w+)\"");

    private final List<Line> lines = new ArrayList<>();
    private final String name;

    private record Line(long time, String tag, String text) {
    }

    FaultHistories(String name) {
        this.name = name;
    }

    /**
     * Adds one client's history file.
     *
     * @param file the file ({@link FaultClient#file})
     * @param tag the client's tag, unique among the merged files
     * @return this
     */
    FaultHistories add(Path file, String tag) {
        List<String> text;
        try {
            text = Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String l : text) {
            Matcher p = PROCESS.matcher(l);
            Matcher t = TIME.matcher(l);
            if (!p.find() || !t.find()) {
                continue; // cut short
            }
            String renamed = "{\"process\":\"" + tag + "-" + p.group(1) + "\"," + l.substring(p.end());
            lines.add(new Line(Long.parseLong(t.group(1)), tag, renamed));
        }
        return this;
    }

    /**
     * Appends one operation of the test itself (e.g. a final read), invoked and completed now.
     *
     * @param function its function
     * @param value its output
     * @return this
     */
    FaultHistories addOk(String function, long value) {
        long t = System.nanoTime();
        lines.add(new Line(t, "test", "{\"process\":\"test\",\"type\":\"invoke\",\"f\":\"" + function + "\",\"time\":"
            + t + "}"));
        lines.add(new Line(t + 1, "test", "{\"process\":\"test\",\"type\":\"ok\",\"f\":\"" + function
            + "\",\"value\":" + value + ",\"time\":" + (t + 1) + "}"));
        return this;
    }

    /**
     * Adds an operation of the test itself that started at {@code invokedNs} and ended now, e.g. an operator's reset.
     *
     * @param function its function
     * @param invokedNs when it was invoked ({@code System.nanoTime()})
     * @return this
     */
    FaultHistories addOkSince(String function, long invokedNs) {
        long t = System.nanoTime();
        lines.add(new Line(invokedNs, "test", "{\"process\":\"operator\",\"type\":\"invoke\",\"f\":\"" + function
            + "\",\"time\":" + invokedNs + "}"));
        lines.add(new Line(t, "test", "{\"process\":\"operator\",\"type\":\"ok\",\"f\":\"" + function
            + "\",\"time\":" + t + "}"));
        return this;
    }

    /**
     * @param type an event type ({@code invoke}, {@code ok}, {@code fail}, {@code info})
     * @param function the function
     * @return how many events of that type and function the files hold
     */
    long count(String type, String function) {
        return lines.stream().filter(l -> {
            Matcher m = TYPE.matcher(l.text);
            return m.find() && m.group(1).equals(type) && m.group(2).equals(function);
        }).count();
    }

    /**
     * @param type an event type
     * @param function the function
     * @param afterNs a time
     * @return how many such events happened after it
     */
    long countAfter(String type, String function, long afterNs) {
        return lines.stream().filter(l -> {
            Matcher m = TYPE.matcher(l.text);
            return l.time > afterNs && m.find() && m.group(1).equals(type) && m.group(2).equals(function);
        }).count();
    }

    /**
     * @param tag a client's tag
     * @param type an event type
     * @param function the function
     * @param fromNs a time
     * @param toNs a later time
     * @return how many such events of that client happened between the two times
     */
    long countBetween(String tag, String type, String function, long fromNs, long toNs) {
        return lines.stream().filter(l -> {
            Matcher m = TYPE.matcher(l.text);
            return l.tag.equals(tag) && l.time > fromNs && l.time < toNs && m.find() && m.group(1).equals(type)
                && m.group(2).equals(function);
        }).count();
    }

    /**
     * @param tag a client's tag
     * @param function the function
     * @param fromNs a time
     * @param toNs a later time
     * @return how many operations of that client were invoked after {@code fromNs} and completed ok before
     *     {@code toNs}
     */
    long countCompletedOkWithin(String tag, String function, long fromNs, long toNs) {
        return outcomesInvokedWithin(tag, function, fromNs, Long.MAX_VALUE, toNs).getOrDefault("ok", 0L);
    }

    /**
     * @param tag a client's tag
     * @param function the function
     * @param fromNs a time
     * @param toNs a later time
     * @return for the operations of that client invoked between the two times, how many completed with each type
     *     ({@code ok}, {@code fail}, {@code info}; {@code open} for those never completed)
     */
    java.util.Map<String, Long> outcomesInvokedWithin(String tag, String function, long fromNs, long toNs) {
        return outcomesInvokedWithin(tag, function, fromNs, toNs, Long.MAX_VALUE);
    }

    private java.util.Map<String, Long> outcomesInvokedWithin(String tag, String function, long fromNs, long toNs,
                                                              long completedBeforeNs) {
        java.util.Map<String, Long> invoked = new java.util.HashMap<>();
        java.util.Map<String, Long> n = new java.util.TreeMap<>();
        List<Line> sorted = new ArrayList<>(lines);
        sorted.sort(Comparator.comparingLong(Line::time));
        for (Line l : sorted) {
            Matcher m = TYPE.matcher(l.text);
            if (!l.tag.equals(tag) || !m.find() || !m.group(2).equals(function)) {
                continue;
            }
            String p = processOf(l.text);
            if (m.group(1).equals("invoke")) {
                invoked.put(p, l.time);
            } else {
                Long at = invoked.remove(p);
                if (at != null && at > fromNs && at < toNs && l.time < completedBeforeNs) {
                    n.merge(m.group(1), 1L, Long::sum);
                }
            }
        }
        for (long at : invoked.values()) {
            if (at > fromNs && at < toNs) {
                n.merge("open", 1L, Long::sum);
            }
        }
        return n;
    }

    /** @return the invocations that never completed (their process was killed) of {@code function} */
    long open(String function) {
        return count("invoke", function) - count("ok", function) - count("fail", function)
            - count("info", function);
    }

    /**
     * @param function a function
     * @return a copy without the invocations of {@code function} that never completed (their process was killed)
     */
    FaultHistories withoutOpen(String function) {
        FaultHistories copy = new FaultHistories(name + " without open " + function);
        java.util.Set<String> completed = new java.util.HashSet<>();
        for (Line l : lines) {
            Matcher m = TYPE.matcher(l.text);
            if (m.find() && !m.group(1).equals("invoke") && m.group(2).equals(function)) {
                completed.add(processOf(l.text));
            }
        }
        for (Line l : lines) {
            Matcher m = TYPE.matcher(l.text);
            boolean openInvoke = m.find() && m.group(1).equals("invoke") && m.group(2).equals(function)
                && !completed.contains(processOf(l.text));
            if (!openInvoke) {
                copy.lines.add(l);
            }
        }
        return copy;
    }

    private static String processOf(String text) {
        return text.substring(0, text.indexOf("\","));
    }

    /** @return the merged lines, in time order */
    String text() {
        List<Line> sorted = new ArrayList<>(lines);
        sorted.sort(Comparator.comparingLong(Line::time));
        StringBuilder b = new StringBuilder();
        for (Line l : sorted) {
            b.append(l.text).append('\n');
        }
        return b.toString();
    }

    /** @return the merged history */
    History history() {
        return HistoryReader.read(name, text(), HistoryFormat.JSONL);
    }

    /**
     * Checks the merged history against a model and asserts it linearizable.
     *
     * @param model the model
     * @return the number of operations checked
     */
    int assertLinearizable(Model<?> model) {
        return assertVerdict(model, Verdict.LINEARIZABLE);
    }

    /**
     * Checks the merged history against a model and asserts the verdict.
     *
     * @param model the model
     * @param expected the verdict expected
     * @return the number of operations checked
     */
    int assertVerdict(Model<?> model, Verdict expected) {
        History h = history();
        CheckResult c = Checker.check(h, model);
        assertEquals(expected, c.verdict(), name + " (" + h.size() + " operations): " + c + "\n"
            + tail(text(), 60));
        return h.size();
    }

    private static String tail(String text, int n) {
        String[] ls = text.split("\n");
        StringBuilder b = new StringBuilder("last " + Math.min(n, ls.length) + " events:\n");
        for (int i = Math.max(0, ls.length - n); i < ls.length; i++) {
            b.append(ls[i]).append('\n');
        }
        return b.toString();
    }
}
