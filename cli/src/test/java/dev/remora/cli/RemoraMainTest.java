package dev.remora.cli;

import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RemoraMainTest {

    private static String[] run(String... args) {
        CliRun r = CliRun.run(args);
        return new String[] {Integer.toString(r.code()), r.out(), r.err()};
    }

    @Test
    void shouldRunTheDemoAndPassTheCountCheck() {
        String[] r = run("demo", "--seconds", "0.3", "--threads", "4");
        assertEquals("0", r[0], r[1] + r[2]);
        assertTrue(r[1].contains("count check") && r[1].contains("PASS"), r[1]);
        assertTrue(r[1].contains("round trips per increment") && r[1].contains("1.000"), r[1]);
        assertTrue(r[1].contains("latency p99"), r[1]);
        assertTrue(r[1].contains("checker (mutex model)        linearizable"), r[1]);
        assertTrue(r[1].contains("PASS (counter = acquisitions)"), r[1]);
        assertKvSection(r[1]);
    }

    /**
     * The demo's kv section: YCSB-B's history linearizable under the map model, every uncontended GET 1 round trip and
     * every uncontended update 2, and the workload's means no lower and not far above (a GET retries only while a
     * writer is in one of its rows, an update while another holds a lock).
     */
    static void assertKvSection(String printed) {
        assertTrue(printed.contains("KV workload: CuckooMap on N0-home"), printed);
        java.util.regex.Matcher load = java.util.regex.Pattern.compile("  load +([\\d,]+) puts in ").matcher(printed);
        assertTrue(load.find(), printed);
        long loaded = Long.parseLong(load.group(1).replace(",", ""));
        assertTrue(printed.contains("  checker (map model)          linearizable in "), printed);
        java.util.regex.Matcher get = java.util.regex.Pattern.compile(
            "round trips per GET +(\\d+\\.\\d+) \\(uncontended: 1 each\\)").matcher(printed);
        assertTrue(get.find(), printed);
        double perGet = Double.parseDouble(get.group(1));
        assertTrue(perGet >= 1.0 && perGet < 1.5, "round trips per GET " + perGet);
        java.util.regex.Matcher update = java.util.regex.Pattern.compile(
            "round trips per update +(\\d+\\.\\d+) \\(uncontended: 2 each\\)").matcher(printed);
        assertTrue(update.find(), printed);
        double perUpdate = Double.parseDouble(update.group(1));
        assertTrue(perUpdate >= 2.0 && perUpdate < 3.0, "round trips per update " + perUpdate);
        java.util.regex.Matcher history = java.util.regex.Pattern.compile(
            "history +([\\d,]+) operations \\(get/put/update, the load included\\)").matcher(printed);
        assertTrue(history.find(), printed);
        assertTrue(Long.parseLong(history.group(1).replace(",", "")) > loaded + 2 * KvWorkload.PROBES,
            "the workload's operations are in the history: " + history.group(1));
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
        assertEquals("64", run("demo", "--kv-keys", "10")[0]);
        assertEquals("64", run()[0]);
    }

    @Test
    void shouldRunLitmusFilesAndAgree() {
        String[] r = run("litmus", "../spec/litmus/L04.litmus", "../spec/litmus/L15.litmus");
        assertEquals("0", r[0], r[1] + r[2]);
        assertTrue(r[1].contains("L04 [RELAXED_ORDERING-TRUE]"), r[1]);
        assertTrue(r[1].contains("<- final holds (allowed)"), r[1]);
        assertTrue(r[1].strip().endsWith("agree: 2 files, 5 settings"), r[1]);
    }

    @Test
    void shouldRunLitmusWithSeedsAndAKnob() {
        String[] r = run("litmus", "--seeds", "50", "--knob", "ATOMIC_CAP=GLOB", "../spec/litmus/L11.litmus");
        assertEquals("0", r[0], r[1] + r[2]);
        assertTrue(r[1].contains("[ATOMIC_CAP-GLOB]") && r[1].contains("seeds"), r[1]);
    }

    @Test
    void shouldRejectMalformedLitmusWithFileAndLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
        throws java.io.IOException {
        java.nio.file.Path bad = dir.resolve("bad.litmus");
        java.nio.file.Files.writeString(bad, "test X\ninit x@N1=0\nT1@N1: x := \nfinal x = 1\nexpect allowed\n");
        String[] r = run("litmus", bad.toString());
        assertEquals("65", r[0]);
        assertTrue(r[2].contains("bad.litmus:3:"), r[2]);
        assertEquals("64", run("litmus", "--knob", "NOPE=1", "../spec/litmus/L04.litmus")[0]);
    }

    @Test
    void shouldNameTheCommandsForAnUnknownOne() {
        String[] r = run("frobnicate");
        assertEquals("64", r[0]);
        assertTrue(r[2].contains("unknown command 'frobnicate'"), r[2]);
        for (String c : RemoraMain.COMMANDS) {
            assertTrue(r[2].contains(c), c + " in " + r[2]);
        }
    }

    @Test
    void shouldPrintTheVersionAndTheJdk() {
        String[] r = run("--version");
        assertEquals("0", r[0]);
        assertTrue(r[1].contains("remora " + RemoraMain.VERSION), r[1]);
        assertTrue(r[1].contains("JDK " + Runtime.version()), r[1]);
    }

    @Test
    void shouldListEveryCommandInTheHelpAndSayWhichProvidersRunHere() {
        String[] help = run("--help");
        for (String c : RemoraMain.COMMANDS) {
            assertTrue(help[1].contains("  " + c + " "), c + " in " + help[1]);
        }
        String[] r = run("doctor");
        assertEquals("0", r[0]);
        assertTrue(r[1].contains("socket  can run here"), r[1]);
        assertTrue(r[1].contains("sim     can run here"), r[1]);
        assertTrue(r[1].contains("disni"), r[1]);
    }

    @Test
    void shouldOfferTheCheckSubcommand() {
        String[] r = run("check", "--help");
        assertEquals("0", r[0]);
        assertTrue(r[1].contains("--model"), r[1]);
    }
}
