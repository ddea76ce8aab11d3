package dev.remora.check.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.remora.check.CheckResult;
import dev.remora.check.Failure;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.List;

/**
 * Renders a {@link FileReport} as one JSON object (the CLI's {@code --json} output, one line
 * per file). Fields: {@code file}, {@code verdict} ({@code linearizable}, {@code
 * not-linearizable}, {@code unknown} or {@code malformed}), {@code cause}, {@code error},
 * {@code operations}, {@code partitions}, {@code statesExplored}, {@code elapsedMs} and, for a
 * failure, {@code failure} with {@code reason}, {@code key}, {@code blocking},
 * {@code partialLinearization} (operations with the state after each) and {@code window}.
 */
public final class JsonReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JsonReport() {
    }

    /**
     * Renders one file's report.
     *
     * @param r the report
     * @return a single-line JSON object
     */
    public static String render(FileReport r) {
        return toMap(r).toString();
    }

    /** Builds the JSON tree of a report (Jackson's types stay out of the public API). */
    static ObjectNode toMap(FileReport r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("file", r.file());
        o.put("model", r.model().name());
        if (r.malformed() != null) {
            o.put("verdict", "malformed");
            ObjectNode e = o.putObject("error");
            e.put("line", r.malformed().line());
            e.put("message", r.malformed().detail());
            return o;
        }
        CheckResult res = r.result();
        o.put("verdict", res.verdict().cliName());
        if (res.cause() != null) {
            o.put("cause", res.cause());
        }
        if (r.history() != null && r.history().format() != null) {
            o.put("format", r.history().format().cliName());
        }
        o.put("operations", res.operations());
        o.put("partitions", res.partitions());
        o.put("statesExplored", res.statesExplored());
        o.put("elapsedMs", res.elapsedNs() / 1e6);
        Failure f = res.failure();
        if (f != null) {
            @SuppressWarnings("unchecked")
            Model<Object> m = (Model<Object>) r.model();
            ObjectNode fo = o.putObject("failure");
            fo.put("reason", f.reason());
            if (f.partitionKey() != null) {
                fo.put("key", Values.show(f.partitionKey()));
            }
            if (f.blocking() != null) {
                fo.set("blocking", op(m, f.blocking()));
            }
            ArrayNode lin = fo.putArray("partialLinearization");
            List<Operation> p = f.partialLinearization();
            for (int i = 0; i < p.size(); i++) {
                ObjectNode step = op(m, p.get(i));
                step.put("stateAfter", f.states().get(i + 1));
                lin.add(step);
            }
            fo.put("initialState", f.states().get(0));
            ObjectNode w = fo.putObject("window");
            w.put("firstLine", f.windowFirstLine());
            w.put("lastLine", f.windowLastLine());
            w.put("stepsBefore", f.windowStart());
            w.put("startState", f.states().get(f.windowStart()));
            ArrayNode wo = w.putArray("operations");
            for (Operation op : f.window()) {
                wo.add(op(m, op));
            }
        }
        return o;
    }

    private static ObjectNode op(Model<Object> m, Operation op) {
        ObjectNode o = JSON.createObjectNode();
        o.put("index", op.id());
        o.put("process", Values.show(op.process()));
        o.put("f", op.function());
        if (op.key() != null) {
            o.put("key", Values.show(op.key()));
        }
        o.put("description", m.describeOperation(op));
        o.put("line", op.callLine());
        if (op.returnLine() > 0) {
            o.put("returnLine", op.returnLine());
        }
        o.put("indeterminate", op.isIndeterminate());
        return o;
    }
}
