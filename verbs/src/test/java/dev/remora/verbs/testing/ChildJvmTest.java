package dev.remora.verbs.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChildJvm} against {@link EchoMain}: start, talk, exit codes, SIGKILL, a failing main, close. */
@Timeout(30)
class ChildJvmTest {
    private static final Pattern READY = Pattern.compile("^READY (\\d+)$");
    private static final Duration START = Duration.ofSeconds(20);

    @Test
    void echoesAndExitsWithItsCode() throws Exception {
        try (ChildJvm c = ChildJvm.builder(EchoMain.class).start()) {
            Matcher ready = c.awaitLine(READY, START);
            assertEquals(c.pid(), Long.parseLong(ready.group(1)), "the handle's pid is the JVM's own");
            c.send("hello child");
            assertEquals("HELLO CHILD", c.awaitLine(Pattern.compile("^HELLO.*"), Duration.ofSeconds(5)).group());
            c.send("quit");
            assertEquals(3, c.awaitExit(Duration.ofSeconds(5)));
            assertFalse(c.isAlive());
            assertEquals("BYE", c.stdoutLines().get(c.stdoutLines().size() - 1));
        }
    }

    @Test
    void sigkillOfAHangingChildEndsItWith137() throws Exception {
        try (ChildJvm c = ChildJvm.builder(EchoMain.class).start()) {
            c.awaitLine(READY, START);
            c.send("hang");
            c.awaitLine(Pattern.compile("^HANGING$"), Duration.ofSeconds(5));
            IllegalStateException none = assertThrows(IllegalStateException.class,
                () -> c.awaitLine(Pattern.compile("^NEVER$"), Duration.ofMillis(200)));
            assertTrue(none.getMessage().contains("still running"), none.getMessage());
            assertTrue(none.getMessage().contains("HANGING"), "quotes the output: " + none.getMessage());
            long t0 = System.nanoTime();
            c.kill();
            assertEquals(128 + 9, c.awaitExit(Duration.ofSeconds(5)));
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
            assertFalse(ProcessHandle.of(c.pid()).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    @Test
    void aMainThatThrowsIsReportedWithItsStackTrace() throws Exception {
        try (ChildJvm c = ChildJvm.builder(EchoMain.class).args("throw").start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.awaitLine(READY, START));
            String m = e.getMessage();
            assertTrue(m.contains("exited with 1"), m);
            assertTrue(m.contains("java.lang.IllegalStateException: EchoMain was asked to throw"), m);
            assertTrue(m.contains("at dev.remora.verbs.testing.EchoMain.main(EchoMain.java"), m);
        }
    }

    @Test
    void aLongClassPathGoesThroughAnArgfileAndSigtermEndsItWith143() throws Exception {
        StringBuilder cp = new StringBuilder(System.getProperty("java.class.path"));
        for (int i = 0; i < 400; i++) {
            cp.append(java.io.File.pathSeparator).append("/nonexistent/dir with space/entry-").append(i);
        }
        try (ChildJvm c = ChildJvm.builder(EchoMain.class).classPath(cp.toString()).start()) {
            assertTrue(c.command().stream().anyMatch(w -> w.startsWith("@")), c.command().toString());
            c.awaitLine(READY, START);
            c.terminate();
            assertEquals(128 + 15, c.awaitExit(Duration.ofSeconds(5)), c::output);
            assertTrue(c.stderrLines().isEmpty(), "SIGTERM, not end of stdin, ended it: " + c.output());
        }
    }

    @Test
    void closeKillsALiveChild() throws Exception {
        long pid;
        try (ChildJvm c = ChildJvm.builder(EchoMain.class).name("victim").start()) {
            c.awaitLine(READY, START);
            pid = c.pid();
            assertTrue(c.isAlive());
            assertTrue(c.name().startsWith("victim["), c.name());
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "close() left " + pid + " alive");
    }
}
