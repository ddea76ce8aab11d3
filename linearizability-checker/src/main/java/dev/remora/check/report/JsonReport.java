package dev.remora.check.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.remora.check.CheckResult;
import dev.remora.check.Failure;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
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
    private static final JsonFactory JSON = new JsonFactory();

    private JsonReport() {
    }

    /**
     * Renders one file's report.
     *
     * @param r the report
     * @return a single-line JSON object
     */
    public static String render(FileReport r) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            write(g, r);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a string cannot fail", e);
        }
        return out.toString();
    }

    /** Streams one report as a JSON object: the streaming generator keeps the library free of a JSON tree model. */
    private static void write(JsonGenerator g, FileReport r) throws IOException {
        g.writeStartObject();
        g.writeStringField("file", r.file());
        g.writeStringField("model", r.model().name());
        if (r.malformed() != null) {
            g.writeStringField("verdict", "malformed");
            g.writeObjectFieldStart("error");
            g.writeNumberField("line", r.malformed().line());
            g.writeStringField("message", r.malformed().detail());
            g.writeEndObject();
            g.writeEndObject();
            return;
        }
        CheckResult res = r.result();
        g.writeStringField("verdict", res.verdict().cliName());
        if (res.cause() != null) {
            g.writeStringField("cause", res.cause());
        }
        if (r.history() != null && r.history().format() != null) {
            g.writeStringField("format", r.history().format().cliName());
        }
        g.writeNumberField("operations", res.operations());
        g.writeNumberField("partitions", res.partitions());
        g.writeNumberField("statesExplored", res.statesExplored());
        g.writeNumberField("elapsedMs", res.elapsedNs() / 1e6);
        Failure f = res.failure();
        if (f != null) {
            @SuppressWarnings("unchecked")
            Model<Object> m = (Model<Object>) r.model();
            g.writeObjectFieldStart("failure");
            g.writeStringField("reason", f.reason());
            if (f.partitionKey() != null) {
                g.writeStringField("key", Values.show(f.partitionKey()));
            }
            if (f.blocking() != null) {
                g.writeFieldName("blocking");
                op(g, m, f.blocking(), null);
            }
            g.writeArrayFieldStart("partialLinearization");
            List<Operation> p = f.partialLinearization();
            for (int i = 0; i < p.size(); i++) {
                op(g, m, p.get(i), f.states().get(i + 1));
            }
            g.writeEndArray();
            g.writeStringField("initialState", f.states().get(0));
            g.writeObjectFieldStart("window");
            g.writeNumberField("firstLine", f.windowFirstLine());
            g.writeNumberField("lastLine", f.windowLastLine());
            g.writeNumberField("stepsBefore", f.windowStart());
            g.writeStringField("startState", f.states().get(f.windowStart()));
            g.writeArrayFieldStart("operations");
            for (Operation op : f.window()) {
                op(g, m, op, null);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void op(JsonGenerator g, Model<Object> m, Operation op, String stateAfter) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", op.id());
        g.writeStringField("process", Values.show(op.process()));
        g.writeStringField("f", op.function());
        if (op.key() != null) {
            g.writeStringField("key", Values.show(op.key()));
        }
        g.writeStringField("description", m.describeOperation(op));
        g.writeNumberField("line", op.callLine());
        if (op.returnLine() > 0) {
            g.writeNumberField("returnLine", op.returnLine());
        }
        g.writeBooleanField("indeterminate", op.isIndeterminate());
        if (stateAfter != null) {
            g.writeStringField("stateAfter", stateAfter);
        }
        g.writeEndObject();
    }
}
