package dev.remora.check;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Progress lines, a stdout line for every file, standard input, refusals before any work. */
class CliMannersTest {
    @TempDir
    Path tmp;

    private static final String NL = System.lineSeparator();
    private static final String GOOD = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n"
            + "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n";

    private Path write(String name, String text) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** 20 concurrent writes of distinct values, then reads of 1, 2, 1: not linearizable, but only after a long search. */
    private Path hard() throws Exception {
        StringBuilder sb = new StringBuilder();
        int n = 20;
        for (int p = 0; p < n; p++) {
            sb.append("{\"process\":").append(p).append(",\"type\":\"invoke\",\"f\":\"write\",\"value\":").append(p).append("}\n");
        }
        for (int p = 0; p < n; p++) {
            sb.append("{\"process\":").append(p).append(",\"type\":\"ok\",\"f\":\"write\",\"value\":").append(p).append("}\n");
        }
        for (int v : new int[] {1, 2, 1}) {
            sb.append("{\"process\":100,\"type\":\"invoke\",\"f\":\"read\"}\n");
            sb.append("{\"process\":100,\"type\":\"ok\",\"f\":\"read\",\"value\":").append(v).append("}\n");
        }
        return write("hard.jsonl", sb.toString());
    }

    @Test
    void shouldPrintProgressLinesOnStandardErrorDuringALongCheck() throws Exception {
        Path h = hard();
        TestSupport.Run r = TestSupport.cli("--model", "register", "--time-limit", "0.4", "--progress", "0.05",
                h.toString());
        assertEquals(2, r.exitCode(), r.err());
        assertEquals(h + "\tunknown" + NL, r.out());
        Pattern line = Pattern.compile("check: " + Pattern.quote(h.toString())
                + ": [0-9,]+ states explored, 1 of 1 partitions left, [0-9.]+ s elapsed");
        List<String> progress = r.err().lines().filter(l -> l.contains("states explored")).collect(Collectors.toList());
        assertTrue(progress.size() >= 2, r.err());
        progress.forEach(l -> assertTrue(line.matcher(l).matches(), l));
        assertFalse(progress.get(progress.size() - 1).startsWith("check: " + h + ": 0 states"), r.err());
        // Off with 0, and a short check prints none with the default interval.
        assertFalse(TestSupport.cli("--model", "register", "--time-limit", "0.2", "--progress", "0", h.toString())
                .err().contains("states explored"));
        assertFalse(TestSupport.cli("--model", "register", write("g.jsonl", GOOD).toString())
                .err().contains("states explored"));
    }

    @Test
    void shouldGiveEveryFileAStdoutLineInTsvModeEvenWhenMalformed() throws Exception {
        Path g = write("g.jsonl", GOOD);
        Path m = write("m.jsonl", "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n");
        TestSupport.Run r = TestSupport.cli("--model", "register", m.toString(), g.toString());
        assertEquals(65, r.exitCode());
        assertEquals(m + "\tmalformed" + NL + g + "\tlinearizable" + NL, r.out());
        List<String> verdicts = r.out().lines().map(l -> l.split("\t")[1]).collect(Collectors.toList());
        assertEquals(List.of("malformed", "linearizable"), verdicts);
    }

    @Test
    void shouldReadStandardInputForDash() throws Exception {
        TestSupport.Run r = TestSupport.cliWithInput(GOOD.getBytes(StandardCharsets.UTF_8), "--model", "register", "-");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals("-\tlinearizable" + NL, r.out());
        String edn = "[{:process 0 :type :invoke :f :write :value 1}\n{:process 0 :type :ok :f :write :value 1}\n"
                + "{:process 1 :type :invoke :f :read :value nil}\n{:process 1 :type :ok :f :read :value 2}]";
        TestSupport.Run b = TestSupport.cliWithInput(edn.getBytes(StandardCharsets.UTF_8), "--model", "register", "-");
        assertEquals(1, b.exitCode(), b.err());
        assertEquals("-\tnot-linearizable" + NL, b.out());
        assertTrue(b.err().contains("-: cannot linearize read -> 2"), b.err());
        assertEquals(64, TestSupport.cli("--model", "register", "-", "-").exitCode());
    }

    @Test
    void shouldRefuseDirectoriesAndBinaryFilesBeforeAnyWork() throws Exception {
        Path g = write("g.jsonl", GOOD);
        TestSupport.Run d = TestSupport.cli("--model", "register", g.toString(), tmp.toString());
        assertEquals(64, d.exitCode());
        assertEquals("", d.out());
        assertEquals("check: " + tmp + " is a directory; expected a history file" + NL, d.err());

        // A large binary file (gzip magic, then NULs): refused from its first bytes.
        Path bin = tmp.resolve("h.jsonl.gz");
        byte[] block = new byte[1 << 20];
        block[0] = 0x1f;
        block[1] = (byte) 0x8b;
        try (OutputStream o = Files.newOutputStream(bin)) {
            for (int i = 0; i < 8; i++) {
                o.write(block);
                Arrays.fill(block, (byte) 0);
            }
        }
        TestSupport.Run b = TestSupport.cli("--model", "register", g.toString(), bin.toString());
        assertEquals(64, b.exitCode());
        assertEquals("", b.out());
        assertEquals("check: " + bin + " is not a text file (byte 0x8b at offset 1 is not UTF-8); expected a history file"
                + NL, b.err());
        TestSupport.Run n = TestSupport.cliWithInput(new byte[] {'{', 0, 1}, "--model", "register", "-");
        assertEquals(64, n.exitCode());
        assertEquals("check: standard input is not a text file (a NUL byte at offset 1); expected a history file" + NL,
                n.err());
        // UTF-8 text, with a multi-byte character, is fine.
        Path u = write("u.jsonl", GOOD.replace("\"value\":1}", "\"value\":\"é€\"}"));
        assertEquals(0, TestSupport.cli("--model", "register", u.toString()).exitCode());
    }

    @Test
    void shouldRefuseAnUnwritableHtmlPathBeforeAnyWork() throws Exception {
        Path g = write("g.jsonl", GOOD);
        Path missingDir = tmp.resolve("no-such-dir").resolve("r.html");
        TestSupport.Run r = TestSupport.cli("--model", "register", "--html", missingDir.toString(), g.toString());
        assertEquals(64, r.exitCode());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("check: cannot write the HTML report " + missingDir + ": its directory "), r.err());
        TestSupport.Run d = TestSupport.cli("--model", "register", "--html", tmp.toString(), g.toString());
        assertEquals(64, d.exitCode());
        assertEquals("", d.out());
        assertTrue(d.err().contains("it is a directory"), d.err());
        Path ok = tmp.resolve("r.html");
        assertEquals(0, TestSupport.cli("--model", "register", "--html", ok.toString(), g.toString()).exitCode());
        assertTrue(Files.size(ok) > 0);
    }
}
