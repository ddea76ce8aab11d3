package dev.remora.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RemoraMainTest {

    private static String[] run(String... args) {
        CommandLine cl = RemoraMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void shouldRunTheDemoAndPassTheCountCheck() {
        String[] r = run("demo", "--seconds", "0.3", "--threads", "4");
        assertEquals("0", r[0], r[1] + r[2]);
        assertTrue(r[1].contains("count check") && r[1].contains("PASS"), r[1]);
        assertTrue(r[1].contains("round trips per increment") && r[1].contains("1.000"), r[1]);
        assertTrue(r[1].contains("latency p99"), r[1]);
    }

    @Test
    void shouldRunTheDemoWithInjectedLatency() {
        String[] r = run("demo", "--seconds", "0.2", "--threads", "2", "--rtt-ns", "2000");
        assertEquals("0", r[0], r[1] + r[2]);
        assertTrue(r[1].contains("PASS"), r[1]);
    }

    @Test
    void shouldRejectBadOptionsWithUsageExitCode() {
        assertEquals("64", run("demo", "--threads", "0")[0]);
        assertEquals("64", run("demo", "--bogus")[0]);
        assertEquals("64", run()[0]);
    }

    @Test
    void shouldOfferTheCheckSubcommand() {
        String[] r = run("check", "--help");
        assertEquals("0", r[0]);
        assertTrue(r[1].contains("--model"), r[1]);
    }
}
