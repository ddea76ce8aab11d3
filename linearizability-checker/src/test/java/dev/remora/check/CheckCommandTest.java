package dev.remora.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Exit codes and output of the {@code check} command. */
class CheckCommandTest {
    @TempDir
    Path tmp;

    private Path write(String name, String text) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private static final String GOOD = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n"
            + "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n";
    private static final String BAD = GOOD.replace("\"read\",\"value\":1", "\"read\",\"value\":7");

    @Test
    void shouldExitZeroAndPrintTabSeparatedVerdictWhenAllLinearizable() throws Exception {
        Path g = write("g.jsonl", GOOD);
        TestSupport.Run r = TestSupport.cli("--model", "register", g.toString(), g.toString());
        assertEquals(0, r.exitCode());
        assertEquals(g + "\tlinearizable" + System.lineSeparator() + g + "\tlinearizable" + System.lineSeparator(),
                r.out());
    }

    @Test
    void shouldExitOneWhenAnyFileIsNotLinearizable() throws Exception {
        Path g = write("g.jsonl", GOOD);
        Path b = write("b.jsonl", BAD);
        TestSupport.Run r = TestSupport.cli("--model", "register", g.toString(), b.toString());
        assertEquals(1, r.exitCode());
        assertTrue(r.out().contains(b + "\tnot-linearizable"), r.out());
        assertTrue(r.err().contains("cannot linearize read -> 7"), r.err());
    }

    @Test
    void shouldExitTwoWhenTheTimeLimitIsReached() throws Exception {
        Path g = write("g.jsonl", GOOD);
        TestSupport.Run r = TestSupport.cli("--model", "register", "--time-limit", "0.000000001", g.toString());
        assertEquals(2, r.exitCode(), r.err());
        assertEquals(g + "\tunknown" + System.lineSeparator(), r.out());
        assertTrue(r.err().contains("time limit"), r.err());
    }

    @Test
    void shouldExitSixtyFourOnUsageErrors() throws Exception {
        Path g = write("g.jsonl", GOOD);
        assertEquals(64, TestSupport.cli("--model", "nosuchmodel", g.toString()).exitCode());
        assertEquals(64, TestSupport.cli("--model", "register").exitCode());
        assertEquals(64, TestSupport.cli(g.toString()).exitCode());
        assertEquals(64, TestSupport.cli("--model", "register", "--bogus", g.toString()).exitCode());
        assertEquals(64, TestSupport.cli("--model", "register", "--format", "xml", g.toString()).exitCode());
        assertEquals(64, TestSupport.cli("--model", "register", "--init", "[1", g.toString()).exitCode());
        TestSupport.Run map = TestSupport.cli("--model", "map", "--init", "1", g.toString());
        assertEquals(64, map.exitCode());
        assertTrue(map.err().contains("model map takes no initial value: every key starts absent"), map.err());
        assertEquals(64, TestSupport.cli("--model", "register", tmp.resolve("missing.jsonl").toString()).exitCode());
    }

    @Test
    void shouldExitSixtyFiveOnMalformedInputEvenWhenOtherFilesAreFine() throws Exception {
        Path g = write("g.jsonl", GOOD);
        Path m = write("m.jsonl", GOOD + "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n");
        TestSupport.Run r = TestSupport.cli("--model", "register", g.toString(), m.toString());
        assertEquals(65, r.exitCode());
        assertTrue(r.err().contains(m + ":5: unmatched :ok completion of process 1"), r.err());
    }

    @Test
    void shouldHonourInitialValue() throws Exception {
        Path p = write("i.jsonl", "{\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n"
                + "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":5}\n");
        assertEquals(1, TestSupport.cli("--model", "cas-register", p.toString()).exitCode());
        assertEquals(0, TestSupport.cli("--model", "cas-register", "--init", "5", p.toString()).exitCode());
    }

    @Test
    void shouldHonourFormatOverride() throws Exception {
        Path p = write("e.txt", "[{:process 0 :type :invoke :f :write :value 1}\n{:process 0 :type :ok :f :write :value 1}]");
        assertEquals(0, TestSupport.cli("--model", "register", "--format", "knossos-edn", p.toString()).exitCode());
        TestSupport.Run r = TestSupport.cli("--model", "register", "--format", "jsonl", p.toString());
        assertEquals(65, r.exitCode());
        assertTrue(r.err().contains(p + ":1: expected a JSON object, found ["), r.err());
    }

    @Test
    void shouldPrintTheSameFactsAsJson() throws Exception {
        Path b = write("b.jsonl", BAD);
        TestSupport.Run r = TestSupport.cli("--model", "register", "--json", b.toString());
        assertEquals(1, r.exitCode());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("not-linearizable", j.get("verdict").asText());
        assertEquals(b.toString(), j.get("file").asText());
        assertEquals("read -> 7", j.at("/failure/blocking/description").asText());
        assertEquals(4, j.at("/failure/blocking/returnLine").asInt());
        assertEquals("write 1", j.at("/failure/partialLinearization/0/description").asText());
        assertEquals("1", j.at("/failure/partialLinearization/0/stateAfter").asText());
        assertTrue(j.at("/failure/window/operations").size() >= 1);
    }
}
