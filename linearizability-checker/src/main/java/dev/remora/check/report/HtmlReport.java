package dev.remora.check.report;

import dev.remora.check.CheckResult;
import dev.remora.check.Failure;
import dev.remora.check.History;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;
import dev.remora.check.Verdict;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders reports as one self-contained HTML page with an explorable time line per file (inline
 * CSS, script and data; no external resources).
 *
 * <p>The page has a summary table of all files, then for every file that could be read, whatever
 * its verdict, a time line drawn on a canvas: one row per process, each operation a bar from its
 * invocation to its completion (an indeterminate one runs to the end, dashed). A selector picks
 * the partition (the failing one first); the axis is either <em>ordinal</em> (every event of the
 * partition one slot, so dense histories stay readable) or proportional to the events' recorded
 * times, when every event has one. Wheel, buttons and keys zoom, dragging and the horizontal
 * wheel pan; hovering or clicking an operation shows its description, process, source lines,
 * event slots, times and its step in the linearization: for a linearizable partition the order
 * the search found (the check must be run with {@link dev.remora.check.CheckOptions#linearizations()}),
 * for the failing partition the longest partial linearization, with the operation that cannot be
 * linearized in red, in view on load, and the reason above. Colours: green linearized (numbered),
 * red cannot be linearized, orange the rest of the smallest failing window, grey not linearized;
 * a dashed outline marks an indeterminate operation.
 *
 * <p>The data is embedded as compact JSON, per partition in columns: per operation a process
 * index, an index into a table of distinct descriptions, deltas of event slots, of times (at a
 * resolution of a billionth of the partition's span) and of source lines, and the
 * linearization as deltas of operation indices. The script draws only the operations that
 * intersect the visible range, at most one bar per pixel column per visible row (operations
 * that fall in a column already drawn are skipped), so 10<sup>5</sup> operations stay fluid. For
 * a failure, the last {@value #MAX_STEPS_LISTED} steps of the partial linearization and the
 * operations of the window are also listed as tables, readable without the script.
 */
public final class HtmlReport {
    /** Most partial-linearization steps listed per failure. */
    public static final int MAX_STEPS_LISTED = 40;
    /** Most operations of the failing window listed per failure. */
    public static final int MAX_WINDOW_LISTED = 160;
    /** Most states (the last ones) of a partial linearization embedded for the tooltips. */
    public static final int MAX_STATES_EMBEDDED = 2000;
    /** States longer than this are cut for the tooltips. */
    public static final int MAX_STATE_CHARS = 240;
    /** Id of the script element holding the data. */
    public static final String DATA_ID = "remora-data";

    private static final String RESOURCES = "/dev/remora/check/report/";

    private HtmlReport() {
    }

    /**
     * Renders reports.
     *
     * @param reports one per file
     * @return the page
     */
    public static String render(List<FileReport> reports) {
        StringBuilder sb = new StringBuilder(16384);
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
          .append("<title>Remora linearizability report</title>\n<style>\n").append(resource("timeline.css"))
          .append("</style></head><body>\n<h1>Remora linearizability report</h1>\n");
        sb.append("<table class=\"summary\"><tr><th>file</th><th>model</th><th>verdict</th><th>operations</th>")
          .append("<th>partitions</th><th>states explored</th><th>time</th><th>note</th></tr>\n");
        for (FileReport r : reports) {
            String verdict = r.malformed() != null ? "malformed" : r.result().verdict().cliName();
            sb.append("<tr><td>").append(esc(r.file())).append("</td><td>").append(esc(r.model().name()))
              .append("</td><td class=\"v-").append(verdict).append("\">").append(verdict).append("</td>");
            if (r.malformed() != null) {
                sb.append("<td></td><td></td><td></td><td></td><td>line ").append(r.malformed().line()).append(": ")
                  .append(esc(r.malformed().detail())).append("</td></tr>\n");
                continue;
            }
            CheckResult res = r.result();
            sb.append("<td>").append(res.operations()).append("</td><td>").append(res.partitions())
              .append("</td><td>").append(res.statesExplored()).append("</td><td>")
              .append(String.format(Locale.ROOT, "%.1f ms", res.elapsedNs() / 1e6)).append("</td><td>")
              .append(res.cause() == null ? "" : esc(res.cause())).append("</td></tr>\n");
        }
        sb.append("</table>\n");
        sb.append("<p class=\"legend\"><span class=\"lg-lin\">linearized (step n)</span>")
          .append("<span class=\"lg-bad\">cannot be linearized</span>")
          .append("<span class=\"lg-win\">in the failing window</span>")
          .append("<span class=\"lg-none\">not linearized</span>")
          .append("<span class=\"lg-ind\">indeterminate</span>")
          .append(" Wheel or <kbd>+</kbd>/<kbd>-</kbd>: zoom; drag, shift+wheel or <kbd>←</kbd>/<kbd>→</kbd>:")
          .append(" pan; <kbd>↑</kbd>/<kbd>↓</kbd>: rows; <kbd>0</kbd>: fit; <kbd>f</kbd>: failing operation;")
          .append(" <kbd>a</kbd>: axis; hover or click an operation for details.</p>\n");
        StringBuilder json = new StringBuilder(1 << 16);
        json.append('[');
        int index = 0;
        for (FileReport r : reports) {
            if (r.result() == null || r.history() == null) {
                continue;
            }
            if (index > 0) {
                json.append(',');
            }
            fileSection(sb, r, index);
            fileData(json, r);
            index++;
        }
        json.append(']');
        sb.append("<script type=\"application/json\" id=\"").append(DATA_ID).append("\">").append(json)
          .append("</script>\n<script>\n").append(resource("timeline.js")).append("</script>\n</body></html>\n");
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    private static void fileSection(StringBuilder sb, FileReport r, int index) {
        CheckResult res = r.result();
        String verdict = res.verdict().cliName();
        sb.append("<section class=\"file\" id=\"file-").append(index).append("\" data-index=\"").append(index)
          .append("\">\n<h2>").append(esc(r.file())).append(": <span class=\"v-").append(verdict).append("\">")
          .append(verdict).append("</span></h2>\n");
        Failure f = res.failure();
        if (f != null) {
            sb.append("<p class=\"reason\">").append(esc(f.reason())).append("</p>\n");
        } else if (res.cause() != null) {
            sb.append("<p class=\"cause\">undecided: ").append(esc(res.cause())).append("</p>\n");
        }
        sb.append("<div class=\"timeline\"></div>\n");
        if (f != null && f.blocking() != null) {
            steps(sb, (Model<Object>) r.model(), f);
        }
        sb.append("</section>\n");
    }

    private static void steps(StringBuilder sb, Model<Object> m, Failure f) {
        sb.append("<details><summary>Longest partial linearization (").append(f.partialLinearization().size())
          .append(" steps) and the smallest failing window (lines ").append(f.windowFirstLine()).append('–')
          .append(f.windowLastLine()).append(", ").append(f.window().size())
          .append(f.window().size() == 1 ? " operation" : " operations").append(", from state <code>")
          .append(esc(f.states().get(f.windowStart()))).append("</code> after ").append(f.windowStart())
          .append(" steps)</summary>\n<table><tr><th>step</th><th>operation</th><th>process</th>")
          .append("<th>line</th><th>state after</th></tr>\n");
        List<Operation> p = f.partialLinearization();
        int from = Math.max(0, p.size() - MAX_STEPS_LISTED);
        sb.append("<tr><td>0</td><td colspan=\"3\">initial state").append(from > 0 ? " (" + from
                + " steps omitted)" : "").append("</td><td><code>").append(esc(f.states().get(0)))
          .append("</code></td></tr>\n");
        for (int i = from; i < p.size(); i++) {
            Operation op = p.get(i);
            sb.append("<tr class=\"lin\"><td>").append(i + 1).append("</td><td>").append(esc(m.describeOperation(op)))
              .append("</td><td>").append(esc(Values.show(op.process()))).append("</td><td>").append(op.callLine())
              .append("</td><td><code>").append(esc(f.states().get(i + 1))).append("</code></td></tr>\n");
        }
        Operation b = f.blocking();
        sb.append("<tr class=\"blocking\"><td>✗</td><td>").append(esc(m.describeOperation(b))).append("</td><td>")
          .append(esc(Values.show(b.process()))).append("</td><td>").append(b.callLine())
          .append("</td><td>cannot be linearized</td></tr>\n</table>\n");
        sb.append("<table><tr><th>operation of the window</th><th>process</th>")
          .append("<th>invoked (line)</th><th>completed (line)</th></tr>\n");
        int shown = 0;
        for (Operation op : f.window()) {
            if (shown++ == MAX_WINDOW_LISTED) {
                sb.append("<tr><td colspan=\"4\">… ").append(f.window().size() - MAX_WINDOW_LISTED)
                  .append(" more</td></tr>\n");
                break;
            }
            sb.append(op.id() == b.id() ? "<tr class=\"blocking\">" : "<tr>").append("<td>")
              .append(esc(m.describeOperation(op))).append("</td><td>").append(esc(Values.show(op.process())))
              .append("</td><td>").append(op.callLine()).append("</td><td>")
              .append(op.isIndeterminate() ? "never (indeterminate)" : Integer.toString(op.returnLine()))
              .append("</td></tr>\n");
        }
        sb.append("</table></details>\n");
    }

    /** The data of one file: its name, verdict and partitions, the failing one first. */
    @SuppressWarnings("unchecked")
    private static void fileData(StringBuilder j, FileReport r) {
        Model<Object> m = (Model<Object>) r.model();
        CheckResult res = r.result();
        History h = r.history();
        List<List<Operation>> parts = m.partition(h.operations());
        Failure f = res.failure();
        int failing = -1;
        if (f != null) {
            int first = f.partitionOperations().isEmpty() ? -1 : f.partitionOperations().get(0).id();
            for (int p = 0; p < parts.size() && failing < 0; p++) {
                if (!parts.get(p).isEmpty() && parts.get(p).get(0).id() == first) {
                    failing = p;
                }
            }
        }
        j.append("{\"file\":");
        str(j, r.file());
        j.append(",\"verdict\":");
        str(j, res.verdict().cliName());
        j.append(",\"times\":").append(h.hasTimes()).append(",\"parts\":[");
        List<Integer> order = new ArrayList<>();
        if (failing >= 0) {
            order.add(failing);
        }
        for (int p = 0; p < parts.size(); p++) {
            if (p != failing && !parts.get(p).isEmpty()) {
                order.add(p);
            }
        }
        boolean firstPart = true;
        for (int p : order) {
            if (!firstPart) {
                j.append(',');
            }
            firstPart = false;
            List<Operation> lin = p < res.linearizations().size() ? res.linearizations().get(p) : null;
            partData(j, m, h, parts.get(p), p == failing ? f : null, lin, res);
        }
        j.append("]}");
    }

    private static void partData(StringBuilder j, Model<Object> m, History h, List<Operation> ops, Failure f,
                                 List<Operation> lin, CheckResult res) {
        List<Operation> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(Operation::call).thenComparingInt(Operation::id));
        int n = sorted.size();
        Map<Integer, Integer> local = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            local.put(sorted.get(i).id(), i);
        }
        // Ordinal slots: the rank of each event of the partition.
        long[] pos = new long[2 * n];
        int k = 0;
        for (Operation op : sorted) {
            pos[k++] = op.call();
            if (op.ret() != Operation.INFINITY) {
                pos[k++] = op.ret();
            }
        }
        long[] events = Arrays.copyOf(pos, k);
        Arrays.sort(events);
        // Process rows, ordered by the length of the name, then the name (so 2 comes before 10).
        Map<String, Integer> rows = new TreeMap<>(Comparator.comparing(String::length).thenComparing(s -> s));
        Map<Object, String> names = new HashMap<>();
        String[] proc = new String[n];
        for (int i = 0; i < n; i++) {
            proc[i] = names.computeIfAbsent(sorted.get(i).process(), Values::show);
            rows.put(proc[i], 0);
        }
        int ri = 0;
        for (Map.Entry<String, Integer> e : rows.entrySet()) {
            e.setValue(ri++);
        }
        Object key = sorted.get(0).key();
        String verdict;
        if (f != null) {
            verdict = "not-linearizable";
        } else if (lin != null) {
            verdict = "linearizable";
        } else if (res.verdict() == Verdict.LINEARIZABLE) {
            verdict = "linearizable"; // checked without keeping the order
        } else {
            verdict = res.verdict() == Verdict.UNKNOWN ? "undecided" : "not decided (another partition failed)";
        }
        j.append("{\"key\":");
        if (key == null) {
            j.append("null");
        } else {
            str(j, Values.show(key));
        }
        j.append(",\"verdict\":");
        str(j, verdict);
        j.append(",\"ordered\":").append(lin != null || f != null);
        if (f != null) {
            j.append(",\"reason\":");
            str(j, f.reason());
        }
        j.append(",\"procs\":[");
        strs(j, rows.keySet());
        j.append("],\"slots\":").append(events.length);
        // Descriptions, each distinct one once.
        Map<String, Integer> dict = new LinkedHashMap<>();
        int[] d = new int[n];
        for (int i = 0; i < n; i++) {
            d[i] = dict.computeIfAbsent(m.describeOperation(sorted.get(i)), s -> dict.size());
        }
        j.append(",\"dict\":[");
        strs(j, dict.keySet());
        j.append("],\"p\":[");
        for (int i = 0; i < n; i++) {
            sep(j, i).append(rows.get(proc[i]));
        }
        j.append("],\"d\":[");
        int known = 0;
        for (int i = 0; i < n; i++) {
            // The table is in order of first use: 0 is its next new entry, k > 0 the entry k before that.
            sep(j, i).append(d[i] == known ? 0 : known - d[i]);
            known = Math.max(known, d[i] + 1);
        }
        int[] slot = new int[n];
        j.append("],\"c\":[");
        long prev = 0;
        for (int i = 0; i < n; i++) {
            slot[i] = Arrays.binarySearch(events, sorted.get(i).call());
            sep(j, i).append(slot[i] - prev);
            prev = slot[i];
        }
        j.append("],\"w\":[");
        for (int i = 0; i < n; i++) {
            Operation op = sorted.get(i);
            sep(j, i).append(op.ret() == Operation.INFINITY ? -1 : Arrays.binarySearch(events, op.ret()) - slot[i]);
        }
        j.append(']');
        if (h.hasTimes()) {
            long t0 = Long.MAX_VALUE;
            long t1 = Long.MIN_VALUE;
            for (long e : events) {
                t0 = Math.min(t0, h.timeAt(e));
                t1 = Math.max(t1, h.timeAt(e));
            }
            long unit = 1;
            while ((t1 - t0) / unit > 1_000_000_000L) {
                unit *= 10;
            }
            j.append(",\"t0\":\"").append(t0).append("\"").append(",\"unit\":").append(unit).append(",\"tend\":")
              .append((t1 - t0) / unit).append(",\"t\":[");
            prev = 0;
            for (int i = 0; i < n; i++) {
                long t = (h.timeAt(sorted.get(i).call()) - t0) / unit;
                sep(j, i).append(t - prev);
                prev = t;
            }
            j.append("],\"u\":[");
            for (int i = 0; i < n; i++) {
                Operation op = sorted.get(i);
                long t = (h.timeAt(op.call()) - t0) / unit;
                // Times may step backwards between threads; the script draws such a bar at its minimum width.
                sep(j, i).append(op.ret() == Operation.INFINITY ? "null"
                        : Long.toString((h.timeAt(op.ret()) - t0) / unit - t));
            }
            j.append(']');
        }
        j.append(",\"l\":[");
        prev = 0;
        for (int i = 0; i < n; i++) {
            sep(j, i).append(sorted.get(i).callLine() - prev);
            prev = sorted.get(i).callLine();
        }
        j.append("],\"m\":[");
        for (int i = 0; i < n; i++) {
            Operation op = sorted.get(i);
            sep(j, i).append(op.returnLine() == 0 ? -1 : op.returnLine() - op.callLine());
        }
        j.append(']');
        List<Operation> steps = f != null ? f.partialLinearization() : lin;
        if (steps != null) {
            j.append(",\"lin\":[");
            int last = 0;
            for (int i = 0; i < steps.size(); i++) {
                int at = local.get(steps.get(i).id());
                sep(j, i).append(at - last);
                last = at;
            }
            j.append(']');
        }
        if (f != null) {
            j.append(",\"fail\":").append(f.blocking() == null ? -1 : local.get(f.blocking().id()));
            j.append(",\"win\":[");
            for (int i = 0; i < f.window().size(); i++) {
                sep(j, i).append(local.get(f.window().get(i).id()));
            }
            j.append("],\"windowStart\":").append(f.windowStart());
            // The states after the last steps (index 0 is the state after step statesFrom).
            int from = Math.max(0, f.states().size() - MAX_STATES_EMBEDDED);
            Map<String, Integer> sd = new LinkedHashMap<>();
            int[] si = new int[f.states().size() - from];
            for (int i = from; i < f.states().size(); i++) {
                String s = f.states().get(i);
                if (s.length() > MAX_STATE_CHARS) {
                    s = s.substring(0, MAX_STATE_CHARS - 1) + "…";
                }
                si[i - from] = sd.computeIfAbsent(s, x -> sd.size());
            }
            j.append(",\"statesFrom\":").append(from).append(",\"stateDict\":[");
            strs(j, sd.keySet());
            j.append("],\"states\":[");
            for (int i = 0; i < si.length; i++) {
                sep(j, i).append(si[i]);
            }
            j.append(']');
        }
        j.append('}');
    }

    private static StringBuilder sep(StringBuilder j, int i) {
        return i == 0 ? j : j.append(',');
    }

    /**
     * Appends a JSON string that is also safe inside an HTML {@code <script>} element: {@code <},
     * {@code >} and {@code &} are escaped as {@code \\u} sequences, so no {@code </script>} or
     * comment opener can appear in the data, as are the line separators JavaScript once rejected.
     */
    static void str(StringBuilder j, String s) {
        j.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': j.append("\\\""); break;
                case '\\': j.append("\\\\"); break;
                case '\n': j.append("\\n"); break;
                case '\r': j.append("\\r"); break;
                case '\t': j.append("\\t"); break;
                case '<': j.append("\\u003c"); break;
                case '>': j.append("\\u003e"); break;
                case '&': j.append("\\u0026"); break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        j.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        j.append(c);
                    }
            }
        }
        j.append('"');
    }

    /** Writes {@code values} as JSON strings separated by commas. */
    private static void strs(StringBuilder j, Iterable<String> values) {
        boolean first = true;
        for (String s : values) {
            if (!first) {
                j.append(',');
            }
            first = false;
            str(j, s);
        }
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCES + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Escapes text for HTML.
     *
     * @param s the text
     * @return the escaped text
     */
    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<': sb.append("&lt;"); break;
                case '>': sb.append("&gt;"); break;
                case '&': sb.append("&amp;"); break;
                case '"': sb.append("&quot;"); break;
                case '\'': sb.append("&#39;"); break;
                default: sb.append(c);
            }
        }
        return sb.toString();
    }
}
