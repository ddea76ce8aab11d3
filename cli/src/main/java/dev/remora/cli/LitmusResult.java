package dev.remora.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.remora.spec.fabric.FabricLitmusRunner;
import dev.remora.spec.fabric.ProviderLitmusRunner;
import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;

import java.io.BufferedWriter;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The conformance kit's machine-readable result of {@code remora litmus --fabric PROVIDER}: what a provider did on
 * each litmus test, with every observed outcome classified by the model, in JSON Lines (one JSON object a line, so
 * that a malformed file is reported by line and field):
 *
 * <pre>
 * line 1, the run:
 *   {"format":"remora-litmus-result","version":1,"fabric":"disni","device":"mlx5_0 (MT4123)","firmware":"20.31.1014",
 *    "host":"node7","os":"Linux 6.1.0 amd64","jdk":"17.0.9+9","remora":"0.1.0-SNAPSHOT","runs":1000,
 *    "date":"2026-12-03T16:00:00Z","knobs":{"ATOMIC_CAP":"HCA",...},"environment":{"UCX_TLS":"rc"}}
 * lines 2.., one a test:
 *   {"test":"L01","file":"spec/litmus/L01.litmus","final":"r0 = 0","expected":"allowed","runs":1000,"skipped":null,
 *    "outcomes":[{"outcome":{"r0":0,"x":1},"count":12,"final":true,"model":"allowed","weak":true}, ...]}
 * </pre>
 *
 * <ul>
 *   <li>{@code knobs}: the model's knob settings the verdicts are taken under (the defaults: the weak model,
 *       {@code IBV_ATOMIC_HCA}); {@code environment}: the provider's environment variables that change its
 *       behaviour ({@code UCX_*}, {@code REMORA_*} other than secrets).</li>
 *   <li>{@code expected}: the file's verdict on its final predicate under those knobs.</li>
 *   <li>per outcome: {@code count} of runs that gave it; {@code final} whether it satisfies the final predicate;
 *       {@code model}: {@code allowed} if the deterministic fabric's exhaustive search of the model reaches it,
 *       {@code forbidden} if the complete search never does (or it satisfies a final predicate the file forbids),
 *       {@code unknown} if the search stopped at its bound without it; {@code weak}: allowed by the model but not
 *       under sequential consistency ({@code SC_MODE=TRUE}), null when unknown.</li>
 *   <li>{@code skipped}: why the test was not run on the provider (faults need the deterministic fabric), or
 *       null.</li>
 * </ul>
 */
final class LitmusResult {
    static final String FORMAT = "remora-litmus-result";
    static final int VERSION = 1;
    /** Bound of each exhaustive search that classifies outcomes. */
    static final long MODEL_MAX_STATES = 500_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private LitmusResult() {
    }

    /** How the model judges one outcome. */
    enum Model {
        ALLOWED, FORBIDDEN, UNKNOWN;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The model's outcomes of a test: under the default knobs, and under sequential consistency. */
    record ModelOutcomes(FabricLitmusRunner.Result weak, FabricLitmusRunner.Result sc) {
        static ModelOutcomes of(LitmusTest test) {
            return new ModelOutcomes(FabricLitmusRunner.exhaustive(test, KnobSettings.defaults(), MODEL_MAX_STATES),
                FabricLitmusRunner.exhaustive(test, KnobSettings.defaults().with(Knob.SC_MODE, "TRUE"),
                    MODEL_MAX_STATES));
        }

        Model judge(LitmusTest test, Map<String, Long> outcome) {
            if (test.outcomeMatches(outcome) && test.expected(KnobSettings.defaults()) == Verdict.FORBIDDEN) {
                return Model.FORBIDDEN;
            }
            if (weak.outcomes().containsKey(outcome)) {
                return Model.ALLOWED;
            }
            return weak.complete() && weak.stuck() == 0 ? Model.FORBIDDEN : Model.UNKNOWN;
        }

        Boolean isWeak(Map<String, Long> outcome, Model m) {
            if (m != Model.ALLOWED) {
                return null;
            }
            if (sc.outcomes().containsKey(outcome)) {
                return false;
            }
            return sc.complete() ? Boolean.TRUE : null;
        }
    }

    /**
     * The first line: the run.
     *
     * @param fabric the provider's name
     * @param runs runs per test
     * @return the header
     */
    static ObjectNode header(String fabric, int runs) {
        ObjectNode h = JSON.createObjectNode();
        h.put("format", FORMAT);
        h.put("version", VERSION);
        h.put("fabric", fabric);
        String[] device = device(fabric);
        h.put("device", device[0]);
        h.put("firmware", device[1]);
        h.put("host", hostName());
        h.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + System.getProperty("os.arch"));
        h.put("jdk", Runtime.version().toString() + " (" + System.getProperty("java.vendor") + ")");
        h.put("remora", RemoraMain.VERSION);
        h.put("runs", runs);
        h.put("date", Instant.now().toString());
        ObjectNode knobs = h.putObject("knobs");
        for (Knob k : Knob.values()) {
            knobs.put(k.name(), KnobSettings.defaults().get(k));
        }
        ObjectNode env = h.putObject("environment");
        new TreeMap<>(System.getenv()).forEach((k, v) -> {
            if ((k.startsWith("UCX_") || k.startsWith("REMORA_")) && !k.contains("SECRET")) {
                env.put(k, v);
            }
        });
        return h;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * The RDMA devices of this host and their firmware, from {@code /sys/class/infiniband}; a software fabric uses
     * none.
     */
    private static String[] device(String fabric) {
        if (fabric.equals("sim") || fabric.equals("socket") || fabric.equals("det")) {
            return new String[] {"none (software fabric)", "none"};
        }
        Path sys = Path.of("/sys/class/infiniband");
        List<String> names = new ArrayList<>();
        List<String> firmware = new ArrayList<>();
        if (Files.isDirectory(sys)) {
            try (Stream<Path> s = Files.list(sys)) {
                for (Path d : s.sorted().toList()) {
                    String type = readSys(d.resolve("hca_type"));
                    names.add(d.getFileName() + (type.isEmpty() ? "" : " (" + type + ")"));
                    firmware.add(d.getFileName() + " " + readSys(d.resolve("fw_ver")));
                }
            } catch (IOException e) {
                names.add("unreadable: " + e.getMessage());
            }
        }
        return names.isEmpty() ? new String[] {"no RDMA device (/sys/class/infiniband is empty or absent)", "none"}
            : new String[] {String.join(", ", names), String.join(", ", firmware)};
    }

    private static String readSys(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * One test's line.
     *
     * @param r what the provider did
     * @param model the model's outcomes, or null for a skipped test
     * @return the line's object
     */
    static ObjectNode testLine(ProviderLitmusRunner.Result r, ModelOutcomes model) {
        LitmusTest t = r.test();
        ObjectNode o = JSON.createObjectNode();
        o.put("test", t.id());
        o.put("file", t.source());
        o.put("final", LitmusCommand.show(t.finalPredicate()));
        o.put("expected", r.expected().name().toLowerCase(Locale.ROOT));
        o.put("runs", r.runs());
        if (r.skipped() != null) {
            o.put("skipped", r.skipped());
        } else {
            o.putNull("skipped");
        }
        ArrayNode outcomes = o.putArray("outcomes");
        List<Map.Entry<Map<String, Long>, Long>> sorted = new ArrayList<>(r.outcomes().entrySet());
        sorted.sort((a, b) -> a.getKey().toString().compareTo(b.getKey().toString()));
        for (Map.Entry<Map<String, Long>, Long> e : sorted) {
            ObjectNode x = outcomes.addObject();
            ObjectNode values = x.putObject("outcome");
            new TreeMap<>(e.getKey()).forEach(values::put);
            x.put("count", e.getValue());
            x.put("final", t.outcomeMatches(e.getKey()));
            Model m = model.judge(t, e.getKey());
            x.put("model", m.label());
            Boolean weak = model.isWeak(e.getKey(), m);
            if (weak == null) {
                x.putNull("weak");
            } else {
                x.put("weak", weak);
            }
        }
        return o;
    }

    /** Writes the lines. */
    static void write(Path file, ObjectNode header, List<ObjectNode> tests) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(JSON.writeValueAsString(header));
            w.newLine();
            for (ObjectNode t : tests) {
                w.write(JSON.writeValueAsString(t));
                w.newLine();
            }
        }
    }

    /** A malformed result file: its message names the file, the line and the field. */
    static final class MalformedResultException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedResultException(String message) {
            super(message);
        }
    }

    /** One observed outcome, as read back. */
    record Outcome(Map<String, Long> values, long count, boolean isFinal, Model model, Boolean weak) {
    }

    /** One test, as read back. */
    record Test(String id, String file, String finalPredicate, String expected, long runs, String skipped,
                List<Outcome> outcomes) {
    }

    /** A result file, read back and validated. */
    record Read(JsonNode header, List<Test> tests) {
        String fabric() {
            return header.get("fabric").asText();
        }
    }

    /**
     * Reads and validates a result file.
     *
     * @param file the file
     * @return its contents
     * @throws MalformedResultException naming the line and the field at fault
     * @throws IOException if it cannot be read
     */
    static Read read(Path file) throws IOException, MalformedResultException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || lines.get(0).isBlank()) {
            throw new MalformedResultException(file + ":1: empty: expected the run's header "
                + "{\"format\":\"" + FORMAT + "\", ...}");
        }
        JsonNode header = parse(file, 1, lines.get(0));
        String at = file + ":1: ";
        String format = text(header, "format", at, false);
        if (!FORMAT.equals(format)) {
            throw new MalformedResultException(at + "field format: expected \"" + FORMAT + "\", found \"" + format
                + "\" (not a remora litmus result)");
        }
        long version = integer(header, "version", at, 1);
        if (version != VERSION) {
            throw new MalformedResultException(at + "field version: this remora reads version " + VERSION + ", not "
                + version);
        }
        for (String f : List.of("fabric", "device", "firmware", "host", "jdk", "date")) {
            text(header, f, at, false);
        }
        long runs = integer(header, "runs", at, 1);
        object(header, "knobs", at);
        List<Test> tests = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            tests.add(test(parse(file, i + 1, lines.get(i)), file + ":" + (i + 1) + ": ", runs));
        }
        return new Read(header, tests);
    }

    private static Test test(JsonNode o, String at, long headerRuns) throws MalformedResultException {
        String id = text(o, "test", at, false);
        String file = text(o, "file", at, false);
        String fin = text(o, "final", at, false);
        String expected = text(o, "expected", at, false);
        if (!expected.equals("allowed") && !expected.equals("forbidden")) {
            throw new MalformedResultException(at + "field expected: \"allowed\" or \"forbidden\", not \"" + expected
                + "\"");
        }
        long runs = integer(o, "runs", at, 0);
        String skipped = text(o, "skipped", at, true);
        JsonNode outs = o.get("outcomes");
        if (outs == null || !outs.isArray()) {
            throw new MalformedResultException(at + "field outcomes: expected an array" + found(outs));
        }
        List<Outcome> outcomes = new ArrayList<>();
        long total = 0;
        for (int k = 0; k < outs.size(); k++) {
            String where = at + "outcomes[" + k + "].";
            JsonNode x = outs.get(k);
            if (!x.isObject()) {
                throw new MalformedResultException(at + "field outcomes[" + k + "]: expected an object" + found(x));
            }
            JsonNode values = object(x, "outcome", where);
            Map<String, Long> m = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = values.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isIntegralNumber() || !e.getValue().canConvertToLong()) {
                    throw new MalformedResultException(field(where, "outcome." + e.getKey()) + ": expected a "
                        + "64-bit integer" + found(e.getValue()));
                }
                m.put(e.getKey(), e.getValue().longValue());
            }
            long count = integer(x, "count", where, 1);
            total += count;
            JsonNode fin2 = x.get("final");
            if (fin2 == null || !fin2.isBoolean()) {
                throw new MalformedResultException(field(where, "final") + ": expected true or false" + found(fin2));
            }
            String model = text(x, "model", where, false);
            Model mm;
            try {
                mm = Model.valueOf(model.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new MalformedResultException(field(where, "model") + ": \"allowed\", \"forbidden\" or "
                    + "\"unknown\", not \"" + model + "\"");
            }
            JsonNode weak = x.get("weak");
            if (weak != null && !weak.isNull() && !weak.isBoolean()) {
                throw new MalformedResultException(field(where, "weak") + ": expected true, false or null"
                    + found(weak));
            }
            outcomes.add(new Outcome(m, count, fin2.booleanValue(), mm,
                weak == null || weak.isNull() ? null : weak.booleanValue()));
        }
        if (skipped == null && total != runs) {
            throw new MalformedResultException(at + "field outcomes: the counts add up to " + total + ", not the "
                + runs + " runs of field runs");
        }
        if (skipped == null && runs != headerRuns) {
            throw new MalformedResultException(at + "field runs: " + runs + ", but the header says " + headerRuns);
        }
        return new Test(id, file, fin, expected, runs, skipped, outcomes);
    }

    private static JsonNode parse(Path file, int line, String text) throws MalformedResultException {
        try {
            JsonNode n = JSON.readTree(text);
            if (n == null || !n.isObject()) {
                throw new MalformedResultException(file + ":" + line + ": expected one JSON object on the line");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new MalformedResultException(file + ":" + line + ":" + e.getLocation().getColumnNr()
                + ": not JSON: " + e.getOriginalMessage());
        }
    }

    private static String found(JsonNode n) {
        return n == null ? " (missing)" : ", found " + n;
    }

    /** Splits {@code "FILE:LINE: outcomes[0]."} into where the message starts and the field's path prefix. */
    private static String field(String at, String field) {
        int dot = at.lastIndexOf(": ");
        return at.substring(0, dot + 2) + "field " + at.substring(dot + 2) + field;
    }

    private static String text(JsonNode o, String field, String at, boolean nullable) throws MalformedResultException {
        JsonNode n = o.get(field);
        if (nullable && (n == null || n.isNull())) {
            return null;
        }
        if (n == null || !n.isTextual()) {
            throw new MalformedResultException(field(at, field) + ": expected a string" + found(n));
        }
        return n.asText();
    }

    private static long integer(JsonNode o, String field, String at, long min) throws MalformedResultException {
        JsonNode n = o.get(field);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < min) {
            throw new MalformedResultException(field(at, field) + ": expected an integer of at least " + min
                + found(n));
        }
        return n.longValue();
    }

    private static JsonNode object(JsonNode o, String field, String at) throws MalformedResultException {
        JsonNode n = o.get(field);
        if (n == null || !n.isObject()) {
            throw new MalformedResultException(field(at, field) + ": expected an object" + found(n));
        }
        return n;
    }
}
