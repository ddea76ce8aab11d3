package dev.remora.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LitmusCommandTest {

    /** Two settings (default, SC), 51 and 5 states, both forbidden. */
    private static final String L15 = catalogue("L15");
    /** Three settings, all agree. */
    private static final String L04 = catalogue("L04");

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }

        String lastLine() {
            List<String> lines = out.lines().toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        }

        String all() {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private static String catalogue(String id) {
        return Path.of("..", "spec", "litmus", id + ".litmus").toString();
    }

    private static Run run(String... args) {
        CommandLine cl = RemoraMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** A well-formed test whose default verdict is wrong (the SC setting agrees); 3 states. */
    private String wrongVerdict() throws IOException {
        Path f = dir.resolve("W.litmus");
        Files.writeString(f, "test W\ninit x@N1=0\nT1@N1: x := 1\nfinal x = 0\nexpect allowed\n");
        return f.toString();
    }

    @Test
    void shouldEndWithWhatAgreed() {
        Run r = run("litmus", L04, L15);
        assertEquals(0, r.code(), r.all());
        assertEquals("agree: 2 files, 5 settings", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldEndWithTheDisagreeingSettings() throws IOException {
        Run r = run("litmus", L15, wrongVerdict());
        assertEquals(1, r.code(), r.all());
        assertTrue(r.out().contains("  fabric: forbidden (3 states)   <- DISAGREE"), r.all());
        assertEquals("DISAGREE: 1 of 4 settings (W [default])", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldSayFabricAndTlcAgreeWithTlc() {
        Run r = run("litmus", "--tlc", L15);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("  fabric: forbidden (51 states)   tlc: forbidden (51 states)"), r.all());
        assertEquals("agree: fabric and TLC, 1 file, 2 settings", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }
}
