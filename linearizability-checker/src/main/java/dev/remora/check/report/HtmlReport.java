package dev.remora.check.report;

import dev.remora.check.CheckResult;
import dev.remora.check.Failure;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;
import dev.remora.check.Verdict;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders reports as one self-contained HTML page (inline CSS and SVG, no scripts, no external
 * resources). For each file: the verdict; for a failure, the reason, a time line with one row
 * per process showing a window of the failing partition (the smallest failing window plus the
 * end of the partial linearization, at most {@value #MAX_DRAWN} operations, so the page stays
 * small for any history size), the steps of the partial linearization with the state after
 * each, and the operations of the window. Colours: green operations are linearized (numbered in
 * order), the red one cannot be linearized, orange ones are the rest of the failing window,
 * grey ones are context; a dashed outline marks an indeterminate operation.
 */
public final class HtmlReport {
    /** Most operations drawn per failure. */
    public static final int MAX_DRAWN = 160;
    /** Most steps at the end of the partial linearization that are drawn, besides the window. */
    public static final int LAST_STEPS_DRAWN = 12;
    /** Most partial-linearization steps listed per failure. */
    public static final int MAX_STEPS_LISTED = 40;

    private static final int ROW_PX = 34;
    private static final int LEFT_PX = 70;
    private static final int WIDTH_PX = 1100;

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
          .append("<title>Remora linearizability report</title>\n<style>\n")
          .append("body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}")
          .append("h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-top:1px solid #ccc;padding-top:12px}")
          .append("table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}")
          .append("th{background:#f4f4f4}.v-linearizable{color:#1a7f37;font-weight:bold}")
          .append(".v-not-linearizable{color:#cf222e;font-weight:bold}.v-unknown{color:#9a6700;font-weight:bold}")
          .append(".v-malformed{color:#8250df;font-weight:bold}.reason{background:#fff4f4;border-left:4px solid #cf222e;")
          .append("padding:8px 12px}code{background:#f4f4f4;padding:0 3px}.legend span{display:inline-block;")
          .append("padding:1px 8px;margin-right:8px;border-radius:3px}svg text{font:11px monospace}")
          .append("tr.blocking td{background:#ffe0e0}tr.lin td:first-child{color:#1a7f37}")
          .append("\n</style></head><body>\n<h1>Remora linearizability report</h1>\n");
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
        for (FileReport r : reports) {
            if (r.result() != null && r.result().verdict() == Verdict.NOT_LINEARIZABLE) {
                failure(sb, r);
            }
        }
        sb.append("</body></html>\n");
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    private static void failure(StringBuilder sb, FileReport r) {
        Failure f = r.result().failure();
        Model<Object> m = (Model<Object>) r.model();
        sb.append("<h2>").append(esc(r.file())).append(": not linearizable</h2>\n");
        sb.append("<p class=\"reason\">").append(esc(f.reason())).append("</p>\n");
        if (f.blocking() == null) {
            return;
        }
        Map<Operation, Integer> step = new IdentityHashMap<>();
        for (int i = 0; i < f.partialLinearization().size(); i++) {
            step.put(f.partialLinearization().get(i), i + 1);
        }
        Map<Integer, Operation> window = new HashMap<>();
        for (Operation op : f.window()) {
            window.put(op.id(), op);
        }
        List<Operation> drawn = chooseDrawn(f);
        sb.append("<p>Time line of ").append(drawn.size()).append(" of the ").append(f.partitionOperations().size())
          .append(" operations").append(f.partitionKey() == null ? "" : " on key <code>"
                  + esc(Values.show(f.partitionKey())) + "</code>")
          .append(" (source lines ").append(drawn.stream().mapToInt(Operation::callLine).min().orElse(0)).append('–')
          .append(drawn.stream().mapToInt(o -> Math.max(o.callLine(), o.returnLine())).max().orElse(0))
          .append("). Smallest failing window: lines ").append(f.windowFirstLine()).append('–')
          .append(f.windowLastLine()).append(", ").append(f.window().size()).append(" operations, from state <code>")
          .append(esc(f.states().get(f.windowStart()))).append("</code> after ").append(f.windowStart())
          .append(" steps.</p>\n");
        sb.append("<p class=\"legend\"><span style=\"background:#b7e4c7\">linearized (step n)</span>")
          .append("<span style=\"background:#ff8a8a\">cannot be linearized</span>")
          .append("<span style=\"background:#ffd8a8\">in the failing window</span>")
          .append("<span style=\"background:#e6e6e6\">context</span>")
          .append("<span style=\"border:1px dashed #555\">indeterminate</span></p>\n");
        svg(sb, m, f, drawn, step, window);
        sb.append("<h3>Longest partial linearization</h3>\n<table><tr><th>step</th><th>operation</th><th>process</th>")
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
        sb.append("<h3>Operations of the smallest failing window</h3>\n<table><tr><th>operation</th><th>process</th>")
          .append("<th>invoked (line)</th><th>completed (line)</th></tr>\n");
        int shown = 0;
        for (Operation op : f.window()) {
            if (shown++ == MAX_DRAWN) {
                sb.append("<tr><td colspan=\"4\">… ").append(f.window().size() - MAX_DRAWN).append(" more</td></tr>\n");
                break;
            }
            sb.append(op.id() == b.id() ? "<tr class=\"blocking\">" : "<tr>").append("<td>")
              .append(esc(m.describeOperation(op))).append("</td><td>").append(esc(Values.show(op.process())))
              .append("</td><td>").append(op.callLine()).append("</td><td>")
              .append(op.isIndeterminate() ? "never (indeterminate)" : Integer.toString(op.returnLine()))
              .append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }

    /** The window, the blocking operation, the end of the partial linearization and their context, capped. */
    static List<Operation> chooseDrawn(Failure f) {
        Map<Integer, Operation> chosen = new LinkedHashMap<>();
        chosen.put(f.blocking().id(), f.blocking());
        for (Operation op : f.window()) {
            if (chosen.size() >= MAX_DRAWN / 2) {
                break;
            }
            chosen.put(op.id(), op);
        }
        List<Operation> p = f.partialLinearization();
        for (int i = p.size() - 1; i >= Math.max(0, p.size() - LAST_STEPS_DRAWN) && chosen.size() < MAX_DRAWN * 3 / 4;
             i--) {
            chosen.put(p.get(i).id(), p.get(i));
        }
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (Operation op : chosen.values()) {
            lo = Math.min(lo, op.call());
            hi = Math.max(hi, op.ret() == Operation.INFINITY ? op.call() : op.ret());
        }
        // Context: other operations overlapping the drawn span, nearest the blocking operation first.
        long center = f.blocking().call();
        List<Operation> context = new ArrayList<>();
        for (Operation op : f.partitionOperations()) {
            if (!chosen.containsKey(op.id()) && op.call() <= hi && op.ret() >= lo
                    && (op.ret() != Operation.INFINITY || op.call() >= lo)) {
                context.add(op);
            }
        }
        context.sort(Comparator.comparingLong(op -> Math.abs(op.call() - center)));
        for (Operation op : context) {
            if (chosen.size() >= MAX_DRAWN) {
                break;
            }
            chosen.put(op.id(), op);
        }
        List<Operation> out = new ArrayList<>(chosen.values());
        out.sort(Comparator.comparingLong(Operation::call).thenComparingInt(Operation::id));
        return out;
    }

    private static void svg(StringBuilder sb, Model<Object> m, Failure f, List<Operation> drawn,
                            Map<Operation, Integer> step, Map<Integer, Operation> window) {
        Map<String, Integer> rows = new TreeMap<>(Comparator.comparing((String s) -> s.length()).thenComparing(s -> s));
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (Operation op : drawn) {
            rows.put(Values.show(op.process()), 0);
            lo = Math.min(lo, op.call());
            hi = Math.max(hi, op.ret() == Operation.INFINITY ? op.call() : op.ret());
        }
        int i = 0;
        for (Map.Entry<String, Integer> e : rows.entrySet()) {
            e.setValue(i++);
        }
        double span = Math.max(1, hi - lo);
        int plot = WIDTH_PX - LEFT_PX - 30;
        int height = rows.size() * ROW_PX + 30;
        Map<Integer, Integer> linStep = new HashMap<>();
        for (Map.Entry<Operation, Integer> e : step.entrySet()) {
            linStep.put(e.getKey().id(), e.getValue());
        }
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH_PX).append("\" height=\"")
          .append(height).append("\" role=\"img\" aria-label=\"process time lines\">\n");
        sb.append("<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"6\" refY=\"3\" orient=\"auto\">")
          .append("<path d=\"M0,0 L6,3 L0,6 z\" fill=\"#555\"/></marker></defs>\n");
        for (Map.Entry<String, Integer> e : rows.entrySet()) {
            int y = 20 + e.getValue() * ROW_PX;
            sb.append("<text x=\"4\" y=\"").append(y + 16).append("\">p ").append(esc(e.getKey())).append("</text>")
              .append("<line x1=\"").append(LEFT_PX).append("\" x2=\"").append(WIDTH_PX - 10).append("\" y1=\"")
              .append(y + 12).append("\" y2=\"").append(y + 12).append("\" stroke=\"#eee\"/>\n");
        }
        for (Operation op : drawn) {
            int y = 20 + rows.get(Values.show(op.process())) * ROW_PX;
            double x1 = LEFT_PX + (op.call() - lo) / span * plot;
            boolean open = op.ret() == Operation.INFINITY;
            double x2 = open ? WIDTH_PX - 12 : LEFT_PX + (op.ret() - lo) / span * plot;
            double w = Math.max(6, x2 - x1);
            Integer n = linStep.get(op.id());
            String fill = op.id() == f.blocking().id() ? "#ff8a8a" : n != null ? "#b7e4c7"
                    : window.containsKey(op.id()) ? "#ffd8a8" : "#e6e6e6";
            String cls = op.id() == f.blocking().id() ? "blocking" : n != null ? "linearized"
                    : window.containsKey(op.id()) ? "window" : "context";
            String label = (n != null ? n + ". " : op.id() == f.blocking().id() ? "✗ " : "") + m.describeOperation(op);
            sb.append("<g class=\"op ").append(cls).append("\"><title>").append(esc(label)).append(" — process ")
              .append(esc(Values.show(op.process()))).append(", line ").append(op.callLine())
              .append(open ? ", never completed" : "–" + op.returnLine())
              .append(n != null ? ", state after: " + esc(f.states().get(n)) : "").append("</title>")
              .append("<rect x=\"").append(fmt(x1)).append("\" y=\"").append(y).append("\" width=\"").append(fmt(w))
              .append("\" height=\"24\" rx=\"3\" fill=\"").append(fill).append("\" stroke=\"#555\"")
              .append(open || op.isIndeterminate() ? " stroke-dasharray=\"4 3\"" : "")
              .append(op.id() == f.blocking().id() ? " stroke-width=\"2\"" : "").append("/>");
            if (open) {
                sb.append("<line x1=\"").append(fmt(x2 - 14)).append("\" x2=\"").append(fmt(x2 - 2)).append("\" y1=\"")
                  .append(y + 12).append("\" y2=\"").append(y + 12).append("\" stroke=\"#555\" marker-end=\"url(#arrow)\"/>");
            }
            int maxChars = (int) (w / 6.7);
            if (op.id() == f.blocking().id() && label.length() > maxChars) {
                // The failing operation's label always shows in full, beside its bar.
                double tx = x1 + w + 4 + label.length() * 6.7 < WIDTH_PX ? x1 + w + 4 : x1 - 4;
                sb.append("<text x=\"").append(fmt(tx)).append("\" y=\"").append(y + 16).append("\"")
                  .append(tx < x1 ? " text-anchor=\"end\"" : "").append(" fill=\"#cf222e\">").append(esc(label))
                  .append("</text>");
            } else if (maxChars >= 3) {
                String t = label.length() > maxChars ? label.substring(0, Math.max(1, maxChars - 1)) + "…" : label;
                sb.append("<text x=\"").append(fmt(x1 + 3)).append("\" y=\"").append(y + 16).append("\">")
                  .append(esc(t)).append("</text>");
            }
            sb.append("</g>\n");
        }
        sb.append("</svg>\n");
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
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
