package dev.remora.check.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The plain-argument path of {@code check} (no picocli) gives the same exit code, standard output
 * and standard error as picocli's for the arguments it takes, and leaves every other command line
 * to picocli untouched.
 */
class PlainArgsTest {
    @TempDir
    Path tmp;

    private static final String LIN = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n"
            + "{\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n";

    private static final String ETCD = String.join("\n",
            "INFO  jepsen.util - 0\t:invoke\t:write\t1",
            "INFO  jepsen.util - 1\t:invoke\t:cas\t[1 2]",
            "INFO  jepsen.util - 0\t:ok\t:write\t1",
            "INFO  jepsen.util - 2\t:invoke\t:write\t3",
            "INFO  jepsen.util - 1\t:ok\t:cas\t[1 2]",
            "INFO  jepsen.util - 2\t:info\t:write\t:timed-out",
            "INFO  jepsen.util - 4\t:invoke\t:write\t0",
            "INFO  jepsen.util - 4\t:ok\t:write\t0",
            "INFO  jepsen.util - 0\t:invoke\t:read\tnil",
            "INFO  jepsen.util - 0\t:ok\t:read\t1", "");

    private record Run(Integer code, String out, String err) {
    }

    private static Run plain(byte[] stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Integer code = CheckCommand.runPlain(args, new ByteArrayInputStream(stdin), new PrintWriter(out, true),
                new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    private static Run picocli(byte[] stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = CheckCommand.newCommandLine(new ByteArrayInputStream(stdin));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** The check's own time differs from run to run. */
    private static String noTimes(String s) {
        return s.replaceAll("\"elapsedMs\":[0-9.E-]+", "\"elapsedMs\":T");
    }

    @Test
    void shouldMatchPicocliOnPlainArguments() throws Exception {
        String lin = Files.writeString(tmp.resolve("lin.jsonl"), LIN).toString();
        String etcd = Files.writeString(tmp.resolve("etcd.log"), ETCD).toString();
        String bad = Files.writeString(tmp.resolve("bad.jsonl"), "{\"process\":1,\"type\":\"ok\"}\n").toString();
        String missing = tmp.resolve("missing.log").toString();
        String dir = tmp.toString();
        String html = tmp.resolve("r.html").toString();
        byte[] in = LIN.getBytes(StandardCharsets.UTF_8);
        List<String[]> cases = new ArrayList<>(List.of(
                new String[] {"--model", "register", lin},
                new String[] {"--model=register", lin, etcd},
                new String[] {"--model", "cas-register", etcd},
                new String[] {etcd, "--model", "cas-register", "--threads", "1", "--time-limit", "30"},
                new String[] {"--model", "cas-register", "--init", "nil", "--format", "jepsen-log", etcd},
                new String[] {"--model", "cas-register", "--format", "nope", etcd},
                new String[] {"--model", "nope", etcd},
                new String[] {"--model", "register", "--init", "[1", lin},
                new String[] {"--model", "register", lin, missing},
                new String[] {"--model", "register", dir},
                new String[] {"--model", "register", bad, lin},
                new String[] {"--model", "register", "-"},
                new String[] {"--model", "register", "-", "-"},
                new String[] {"--model", "register", "--memory-limit", "64", "--progress", "0.5", lin},
                new String[] {"--model", "register", "--time-limit", "0", "--progress=0", lin},
                new String[] {"--model", "register", "--html", html, lin, etcd},
                new String[] {"--model", "register", "--html", dir, lin},
                new String[] {"--model", "cas-register", "--json", etcd, lin},
                new String[] {"--version"},
                new String[] {"-V"}));
        for (String[] args : cases) {
            Run p = plain(in, args);
            Run q = picocli(in, args);
            String what = String.join(" ", args);
            assertNotNull(p.code(), "plain arguments left to picocli: " + what);
            assertEquals(q.code(), p.code(), what + "\n" + p.err() + "\n---\n" + q.err());
            assertEquals(noTimes(q.out()), noTimes(p.out()), what);
            assertEquals(q.err(), p.err(), what);
        }
        assertEquals(Files.readString(Path.of(html)).length() > 0, true);
    }

    @Test
    void shouldLeaveEverythingElseToPicocli() throws Exception {
        String lin = Files.writeString(tmp.resolve("lin.jsonl"), LIN).toString();
        String[][] cases = {
            {},
            {lin},
            {"--model", "register"},
            {"--help"},
            {"-h"},
            {"--version", lin},
            {"--model", "register", "--bogus", lin},
            {"--model"},
            {"--model", "register", "--model", "kv", lin},
            {"--model", "register", "--json", "--json", lin},
            {"--model", "register", "--json=true", lin},
            {"--model", "register", "--", lin},
            {"--model", "register", "@" + lin},
            {"--model", "register", "--threads", "010", lin},
            {"--model", "register", "--threads", "-1", lin},
            {"--model", "register", "--threads", "99999999999", lin},
            {"--model", "register", "--time-limit", "1e3", lin},
            {"--model", "register", "--time-limit", "+5", lin},
            {"--model", "register", "--time-limit", lin},
            {"--model", "register", "--init", "-1", lin},
            {"--model", "", lin},
            {"--model", "register", ""},
            {"--model", "register", "-x"},
            {"-hV", "--model", "register", lin},
        };
        for (String[] args : cases) {
            Run p = plain(new byte[0], args);
            String what = String.join(" ", args);
            assertNull(p.code(), "taken by the plain path: " + what);
            assertEquals("", p.out() + p.err(), what);
        }
    }

    @Test
    void shouldReadTheSameFieldsAsPicocliWouldGiveByDefault() {
        PlainArgs a = PlainArgs.parse(new String[] {"--model", "kv", "f"});
        assertNotNull(a);
        assertEquals(600.0, a.timeLimitSeconds);
        assertEquals(5.0, a.progressSeconds);
        assertEquals(0, a.memoryLimitMib);
        assertEquals(0, a.threads);
        assertEquals(List.of(Path.of("f")), a.files);
        PlainArgs b = PlainArgs.parse(new String[] {"--time-limit=2.5", "--threads=3", "--memory-limit", "100",
            "--model", "kv", "--json", "g", "-"});
        assertNotNull(b);
        assertEquals(2.5, b.timeLimitSeconds);
        assertEquals(3, b.threads);
        assertEquals(100, b.memoryLimitMib);
        assertEquals(true, b.json);
        assertEquals(List.of(Path.of("g"), Path.of("-")), b.files);
    }
}
