package dev.remora.cli;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code remora demo} with round trips long enough that the waiting threads block (25 µs and 100 µs): it must finish
 * and pass every check (the count, the lock history, the kv history and round trips; the kv section with 2,000 keys,
 * to keep its load short). The command runs on its own thread; if it has not finished within {@link #LIMIT_MS}, the
 * test fails with what it printed so far and the stacks of the demo's and the fabric's threads.
 */
class DemoLatencyTest {
    private static final long LIMIT_MS = 40_000;

    @ParameterizedTest(name = "--rtt-ns {0}")
    @ValueSource(longs = {25_000, 100_000})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldFinishTheDemoWithLongRoundTrips(long rttNs) throws Exception {
        CommandLine cl = RemoraMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int[] code = {-1};
        Thread runner = new Thread(() -> code[0] = cl.execute("demo", "--seconds", "0.3", "--threads", "8",
            "--rtt-ns", Long.toString(rttNs), "--kv-keys", "2000"), "demo-runner");
        runner.setDaemon(true);
        runner.start();
        runner.join(LIMIT_MS);
        if (runner.isAlive()) {
            throw new AssertionError("remora demo --rtt-ns " + rttNs + " did not finish within " + LIMIT_MS
                + " ms; it printed:\n" + out + err + "\n" + stacks());
        }
        String printed = out.toString();
        assertEquals(0, code[0], printed + err);
        assertTrue(printed.contains("count check") && printed.contains("PASS (final count = acknowledged increments)"),
            printed);
        assertTrue(printed.contains("PASS (counter = acquisitions)"), printed);
        assertTrue(printed.contains("checker (mutex model)        linearizable"), printed);
        RemoraMainTest.assertKvSection(printed);
    }

    /** The stacks of the demo's threads and the fabric's NIC threads. */
    private static String stacks() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            if (t.getName().startsWith("demo-") || t.getName().startsWith("remora-")) {
                sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
                for (StackTraceElement frame : e.getValue()) {
                    sb.append("    at ").append(frame).append('\n');
                }
            }
        }
        return sb.toString();
    }
}
