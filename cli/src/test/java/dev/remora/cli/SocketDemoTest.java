package dev.remora.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code remora demo --fabric socket} end to end: a home process and two client processes; both checks and the
 * merged history's verdict must pass, and the home must exit 0 after SIGTERM. Then the merge itself: a history that
 * is not mutually exclusive once merged must be found so.
 */
class SocketDemoTest {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void shouldPassTheDemoWithThreeProcesses(@TempDir Path dir) throws Exception {
        CommandLine cl = RemoraMain.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        int code = cl.execute("demo", "--fabric", "socket", "--seconds", "1", "--threads", "2",
            "--lock-acquisitions", "1000", "--history-dir", dir.toString());
        String printed = out.toString();
        assertEquals(0, code, printed);
        assertTrue(printed.contains("PASS (final count = acknowledged increments)"), printed);
        assertTrue(printed.contains("PASS (counter = acquisitions)"), printed);
        assertTrue(printed.contains("checker (mutex model)        linearizable"), printed);
        assertTrue(printed.contains("exit 0 after SIGTERM"), printed);
        assertTrue(printed.contains("8-byte READ round trip"), printed);
        assertTrue(printed.contains("1,000 in"), printed);
        assertEquals(4 * 1000, Files.readAllLines(dir.resolve("lock-history.jsonl")).size());
        CliRun check = CliRun.run("check", "--model", "mutex", dir.resolve("lock-history.jsonl").toString());
        assertEquals(0, check.code(), check.all());
        assertTrue(check.out().contains("\tlinearizable"), check.all());
    }

    @Test
    void shouldMergeByTimeKeepingEachFilesOrderAndInvocationsFirstAtTies(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a.jsonl");
        Path b = dir.resolve("b.jsonl");
        Files.write(a, List.of(
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\",\"time\":10}",
            "{\"process\":0,\"type\":\"ok\",\"f\":\"acquire\",\"time\":20}",
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"release\",\"time\":40}",
            "{\"process\":0,\"type\":\"ok\",\"f\":\"release\",\"time\":50}"));
        Files.write(b, List.of(
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\",\"time\":15}",
            "{\"process\":0,\"type\":\"ok\",\"f\":\"acquire\",\"time\":30}",
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"release\",\"time\":50}",
            "{\"process\":0,\"type\":\"ok\",\"f\":\"release\",\"time\":60}"));
        Path merged = dir.resolve("m.jsonl");
        assertEquals(8, MergeCommand.merge(List.of(a, b), merged));
        List<String> lines = Files.readAllLines(merged);
        assertEquals(List.of("1000000:invoke:10", "2000000:invoke:15", "1000000:ok:20", "2000000:ok:30",
            "1000000:invoke:40", "2000000:invoke:50", "1000000:ok:50", "2000000:ok:60"),
            lines.stream().map(l -> l.replaceAll(".*\"process\":(\\d+),\"type\":\"(\\w+)\".*\"time\":(\\d+).*",
                "$1:$2:$3")).toList());
        // Both acquisitions completed (20, 30) before either release was invoked (40, 50): two holders at once.
        CliRun check = CliRun.run("check", "--model", "mutex", merged.toString());
        assertEquals(1, check.code(), check.all());
        assertTrue(check.out().contains("\tnot-linearizable"), check.all());

        // The command: the same merge, and a file that is not a history is refused with its line.
        Path viaCommand = dir.resolve("c.jsonl");
        CliRun merge = CliRun.run("merge", "-o", viaCommand.toString(), a.toString(), b.toString());
        assertEquals(0, merge.code(), merge.all());
        assertEquals(lines, Files.readAllLines(viaCommand));
        Files.write(b, List.of("{\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\"}"));
        CliRun refused = CliRun.run("merge", "-o", viaCommand.toString(), a.toString(), b.toString());
        assertEquals(65, refused.code(), refused.all());
        assertTrue(refused.err().contains("b.jsonl line 1: an event needs a process and an integer time"),
            refused.all());
    }
}
