package dev.remora.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.remora.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conformance kit: {@code remora litmus --fabric sim|socket --result FILE} writes the machine-readable result and
 * {@code remora litmus --compare FILE} reads it back.
 */
class LitmusKitTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;



    private static String litmus(String id) {
        return Path.of("..", "spec", "litmus", id + ".litmus").toString();
    }

    private static List<JsonNode> lines(Path f) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String l : Files.readAllLines(f, StandardCharsets.UTF_8)) {
            out.add(JSON.readTree(l));
        }
        return out;
    }

    @Test
    void shouldWriteAResultOnTheSimFabricAndFindItInsideTheModel() throws IOException {
        Path result = dir.resolve("sim.jsonl");
        CliRun r = run("litmus", "--fabric", "sim", "--runs", "40", "--result", result.toString(), litmus("L01"),
            litmus("L04"), litmus("L18"), litmus("E07"));
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("result written to " + result), r.all());
        List<JsonNode> lines = lines(result);
        assertEquals(5, lines.size(), "a header and one line per test");
        JsonNode h = lines.get(0);
        assertEquals("remora-litmus-result", h.get("format").asText());
        assertEquals("sim", h.get("fabric").asText());
        assertEquals(40, h.get("runs").asInt());
        assertEquals("none (software fabric)", h.get("device").asText());
        assertEquals("HCA", h.get("knobs").get("ATOMIC_CAP").asText());
        for (String f : List.of("firmware", "host", "jdk", "date", "os", "remora")) {
            assertTrue(h.get(f).isTextual() && !h.get(f).asText().isEmpty(), f);
        }
        for (JsonNode t : lines.subList(1, 4)) {
            long total = 0;
            for (JsonNode o : t.get("outcomes")) {
                total += o.get("count").asLong();
                // The fast fabric is stronger than the model: every outcome it gives is one the model reaches.
                assertEquals("allowed", o.get("model").asText(), t.get("test") + " " + o);
            }
            assertEquals(40, total, t.get("test").asText());
            assertTrue(t.get("skipped").isNull());
        }
        JsonNode e07 = lines.get(4);
        assertEquals("E07", e07.get("test").asText());
        assertTrue(e07.get("skipped").asText().contains("faults"), e07.toString());

        CliRun c = run("litmus", "--compare", result.toString());
        assertEquals(0, c.code(), c.all());
        assertTrue(c.out().startsWith(result + ": fabric sim, device none (software fabric)"), c.all());
        assertTrue(c.out().contains("L04 (") && c.out().contains("): inside the model"), c.all());
        assertTrue(c.out().contains("E07: not run (it injects faults"), c.all());
        assertTrue(c.lastLine().startsWith("inside the model: 3 of 3 tests run on sim; weak outcomes shown in "),
            c.all());
        assertTrue(c.lastLine().endsWith("; 1 not run"), c.all());
    }

    @Test
    void shouldWriteAResultOnTheSocketFabricWithADefaultName() throws IOException {
        Path cwd = Path.of(System.getProperty("user.dir"));
        List<Path> before;
        try (var s = Files.list(cwd)) {
            before = s.toList();
        }
        CliRun r = run("litmus", "--fabric", "socket", "--runs", "6", litmus("L04"), litmus("L11"));
        List<Path> made;
        try (var s = Files.list(cwd)) {
            made = s.filter(p -> !before.contains(p) && p.getFileName().toString().startsWith("litmus-socket-"))
                .toList();
        }
        try {
            assertEquals(0, r.code(), r.all());
            assertEquals(1, made.size(), made + "\n" + r.all());
            assertTrue(made.get(0).getFileName().toString().endsWith(".jsonl"));
            List<JsonNode> lines = lines(made.get(0));
            assertEquals("socket", lines.get(0).get("fabric").asText());
            assertEquals(List.of("L04", "L11"), lines.subList(1, 3).stream().map(t -> t.get("test").asText()).toList());
            CliRun c = run("litmus", "--compare", made.get(0).toString());
            assertEquals(0, c.code(), c.all());
            assertTrue(c.lastLine().startsWith("inside the model: 2 of 2 tests run on socket"), c.all());
        } finally {
            for (Path p : made) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** A result with one line changed by {@code edit}. */
    private Path edited(int line, java.util.function.Consumer<ObjectNode> edit) throws IOException {
        Path result = dir.resolve("base.jsonl");
        if (!Files.exists(result)) {
            CliRun r = run("litmus", "--fabric", "sim", "--runs", "10", "--result", result.toString(), litmus("L04"),
                litmus("L11"));
            assertEquals(0, r.code(), r.all());
        }
        List<String> text = new ArrayList<>(Files.readAllLines(result, StandardCharsets.UTF_8));
        ObjectNode o = (ObjectNode) JSON.readTree(text.get(line - 1));
        edit.accept(o);
        text.set(line - 1, JSON.writeValueAsString(o));
        Path f = dir.resolve("edited-" + System.nanoTime() + ".jsonl");
        Files.write(f, text, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void shouldSayAForbiddenOutcomeIsOutsideTheModel() throws IOException {
        // L04 forbids a = 1 /\ b = 0: a hardware run that saw it, as the kit would have written it.
        Path f = edited(2, t -> {
            ObjectNode first = (ObjectNode) t.get("outcomes").get(0);
            ((ObjectNode) first.get("outcome")).put("a", 1).put("b", 0);
            first.put("final", true).put("model", "forbidden").putNull("weak");
        });
        CliRun c = run("litmus", "--compare", f.toString());
        assertEquals(1, c.code(), c.all());
        assertTrue(c.out().contains("L04 (") && c.out().contains("OUTSIDE THE MODEL: forbidden outcome {a=1, b=0"),
            c.all());
        assertEquals("OUTSIDE THE MODEL: 1 of 2 tests run on sim [L04]; weak outcomes shown in 0", c.lastLine(),
            c.all());
    }

    @Test
    void shouldListTheWeakOutcomesAProviderShowed() throws IOException {
        Path f = edited(3, t -> ((ObjectNode) t.get("outcomes").get(0)).put("weak", true));
        CliRun c = run("litmus", "--compare", f.toString());
        assertEquals(0, c.code(), c.all());
        assertTrue(c.out().contains("L11 (") && c.out().contains("; weak outcome shown: {"), c.all());
        assertTrue(c.lastLine().startsWith("inside the model: 2 of 2 tests run on sim; weak outcomes shown in 1 [L11]"),
            c.all());
    }

    @Test
    void shouldNameTheLineAndFieldOfAMalformedResult() throws IOException {
        Path f = edited(3, t -> ((ObjectNode) t.get("outcomes").get(0)).put("count", -3));
        CliRun c = run("litmus", "--compare", f.toString());
        assertEquals(65, c.code(), c.all());
        assertEquals(f + ":3: field outcomes[0].count: expected an integer of at least 1, found -3\n", c.err(),
            c.all());

        f = edited(2, t -> ((ObjectNode) t.get("outcomes").get(0)).put("model", "maybe"));
        c = run("litmus", "--compare", f.toString());
        assertEquals(65, c.code(), c.all());
        assertEquals(f + ":2: field outcomes[0].model: \"allowed\", \"forbidden\" or \"unknown\", not \"maybe\"\n",
            c.err(), c.all());

        f = edited(1, h -> h.put("format", "something-else"));
        c = run("litmus", "--compare", f.toString());
        assertEquals(65, c.code(), c.all());
        assertTrue(c.err().startsWith(f + ":1: field format: expected \"remora-litmus-result\""), c.all());

        f = edited(2, t -> t.remove("expected"));
        c = run("litmus", "--compare", f.toString());
        assertEquals(f + ":2: field expected: expected a string (missing)\n", c.err(), c.all());

        f = edited(2, t -> t.put("runs", 11));
        c = run("litmus", "--compare", f.toString());
        assertTrue(c.err().startsWith(f + ":2: field outcomes: the counts add up to 10, not the 11 runs"), c.all());

        Path broken = dir.resolve("broken.jsonl");
        List<String> text = new ArrayList<>(Files.readAllLines(dir.resolve("base.jsonl"), StandardCharsets.UTF_8));
        text.set(2, text.get(2).substring(0, 40));
        Files.write(broken, text, StandardCharsets.UTF_8);
        c = run("litmus", "--compare", broken.toString());
        assertEquals(65, c.code(), c.all());
        assertTrue(c.err().startsWith(broken + ":3:") && c.err().contains("not JSON"), c.all());
        assertEquals("", c.out(), c.all());
    }

    @Test
    void shouldRefuseCompareWithLitmusFilesAndAResultOnTheDeterministicFabric() throws IOException {
        CliRun c = run("litmus", "--compare", dir.resolve("x.jsonl").toString(), litmus("L04"));
        assertEquals(64, c.code(), c.all());
        assertTrue(c.err().contains("--compare takes a result file and no litmus files"), c.all());
        c = run("litmus", "--compare", dir.resolve("missing.jsonl").toString());
        assertEquals(64, c.code(), c.all());
        assertEquals(dir.resolve("missing.jsonl") + ": no such file\n", c.err(), c.all());
        c = run("litmus", "--result", dir.resolve("r.jsonl").toString(), litmus("L04"));
        assertEquals(64, c.code(), c.all());
        assertTrue(c.err().contains("--result applies to a real provider"), c.all());
        assertNotNull(c.err());
        c = run("litmus");
        assertEquals(64, c.code(), c.all());
        assertTrue(c.err().contains("Missing required parameter: 'FILE'"), c.all());
    }

    @Test
    void shouldPassFabricPropertiesAndSayWhyAProviderCannotRun() {
        CliRun r = run("litmus", "--fabric", "socket", "--runs", "1", "--property", "hots=1", litmus("L04"));
        assertEquals(64, r.code(), r.all());
        assertTrue(r.err().contains("unknown socket fabric property 'hots'"), r.all());
        r = run("litmus", "--fabric", "socket", "--runs", "1", "--property", "nonsense", litmus("L04"));
        assertEquals(64, r.code(), r.all());
        assertTrue(r.err().contains("--property nonsense: expected KEY=VALUE"), r.all());
    }
}
