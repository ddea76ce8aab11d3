package dev.remora.cli;

import dev.remora.kv.CuckooMap;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code remora serve} as a child process: this JVM connects to it over the socket fabric, looks its objects up by
 * name and uses them; SIGTERM then ends it with exit code 0. Bad command lines exit 2.
 */
class ServeProcessTest {
    private static final Pattern LISTENING =
        Pattern.compile("^remora serve: node home listening at (\\S+) \\(objects: (.*)\\)$");

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldServeItsObjectsToAnotherProcessAndExitZeroOnSigterm() throws Exception {
        try (ChildJvm serve = ChildJvm.builder(RemoraMain.class).name("serve")
            .args("serve", "--counter", "hits", "--lock", "ticket:L1", "--retry-timeout-ms", "500").start()) {
            Matcher m = serve.awaitLine(LISTENING, Duration.ofSeconds(20));
            assertEquals("counter hits, lock ticket:L1", m.group(2));
            try (SocketFabric fabric = SocketFabric.open()) {
                Node me = fabric.addNode("test");
                Node home = fabric.connect(m.group(1));
                assertFalse(home.isLocal());
                RemoteAddress hits = fabric.lookup("hits");
                assertEquals(home.id(), hits.nodeId());
                try (Endpoint ep = Endpoint.open(me)) {
                    RemoteCounter counter = RemoteCounter.attach(ep, hits);
                    assertEquals(1, counter.incrementAndGet());
                    assertEquals(11, counter.addAndGet(10));
                    assertEquals(11, counter.get());
                    TicketLock lock = TicketLock.attach(ep, fabric.lookup("L1"));
                    lock.lock();
                    lock.unlock();
                }
                NoSuchElementException e = assertThrows(NoSuchElementException.class, () -> fabric.lookup("L2"));
                assertTrue(e.getMessage().contains("home@" + m.group(1)), e.getMessage());
            }
            // SIGTERM through the process handle: Process.destroy (ChildJvm.terminate) also closes this side's pipes,
            // and the line the child prints on its way out would be lost.
            assertTrue(serve.process().toHandle().destroy());
            assertEquals(0, serve.awaitExit(Duration.ofSeconds(10)), serve.output());
            assertTrue(serve.output().contains("closed on a termination signal"), serve.output());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldServeCuckooTablesFromFlagsAndConfigToAnotherProcess(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("serve.conf");
        Files.write(conf, List.of("# a table for the cache", "kv cache rows=256 slots=2 value=40 clients=8"));
        try (ChildJvm serve = ChildJvm.builder(RemoraMain.class).name("serve")
            .args("serve", "--kv", "sessions", "--kv-rows", "64", "--config", conf.toString()).start()) {
            Matcher m = serve.awaitLine(LISTENING, Duration.ofSeconds(20));
            assertEquals("kv sessions (64 rows x 4 slots, keys <= 16 B, values <= 32 B, 1024 clients), "
                + "kv cache (256 rows x 2 slots, keys <= 16 B, values <= 40 B, 8 clients)", m.group(2));
            try (SocketFabric fabric = SocketFabric.open()) {
                Node me = fabric.addNode("test");
                fabric.connect(m.group(1));
                try (Endpoint ep = Endpoint.open(me);
                     CuckooMap cache = CuckooMap.attach(ep, fabric.lookup("cache"));
                     CuckooMap sessions = CuckooMap.attach(ep, fabric.lookup("sessions"))) {
                    assertEquals(256, cache.rows());
                    assertEquals(2, cache.slotsPerRow());
                    assertEquals(40, cache.valueCapacity());
                    assertEquals(64 * 4, sessions.capacity());
                    byte[] key = "user:42".getBytes(StandardCharsets.UTF_8);
                    byte[] value = new byte[40];
                    Arrays.fill(value, (byte) 7);
                    VerbsStatistics before = ep.statistics();
                    assertTrue(cache.put(key, value).isOk());
                    assertEquals(2, ep.statistics().minus(before).roundTrips(), "an insert: 2 round trips");
                    before = ep.statistics();
                    assertArrayEquals(value, cache.get(key));
                    assertEquals(1, ep.statistics().minus(before).roundTrips(), "a GET: 1 round trip");
                    assertNull(sessions.get(key), "the tables are distinct");
                }
            }
            assertTrue(serve.process().toHandle().destroy());
            assertEquals(0, serve.awaitExit(Duration.ofSeconds(10)), serve.output());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldExitTwoWithTheFabricsMessageOffLoopbackWithoutASecret() throws Exception {
        // 192.0.2.1 is a documentation address (TEST-NET-1): the fabric refuses it before binding, for want of a
        // secret.
        // env -u: a REMORA_SECRET in the test's environment would satisfy the fabric.
        try (ChildJvm serve = ChildJvm.builder(RemoraMain.class).name("serve").prefix(List.of("env", "-u",
            "REMORA_SECRET")).args("serve", "--host", "192.0.2.1", "--counter", "hits").start()) {
            assertEquals(2, serve.awaitExit(Duration.ofSeconds(20)), serve.output());
            assertTrue(serve.output().contains("needs a cluster secret"), serve.output());
        }
    }

    @Test
    void shouldExitTwoForUnknownFlagsAndBadValues() {
        assertRefused("Unknown option: '--bogus'", "serve", "--bogus");
        assertRefused("'many' is not an int", "serve", "--port", "many");
        assertRefused("unknown lock kind 'spin'", "serve", "--lock", "spin:L");
        assertRefused("expected KIND:NAME", "serve", "--lock", "L");
        assertRefused("the name 'a' is used twice", "serve", "--counter", "a", "--word", "a");
        assertRefused("--retry-timeout-ms must be in 1..3600000: 0", "serve", "--retry-timeout-ms", "0");
        assertRefused("cannot read /nonexistent/remora.conf", "serve", "--config", "/nonexistent/remora.conf");
        assertRefused("rows must be a power of two", "serve", "--kv", "t", "--kv-rows", "100");
        assertRefused("the name 't' is used twice", "serve", "--kv", "t", "--counter", "t");
    }

    /** The command exits 2 and says why on its error writer (captured, so the build's log stays quiet). */
    private static void assertRefused(String why, String... args) {
        CliRun r = CliRun.run(args);
        assertEquals(2, r.code(), r.all());
        assertTrue(r.err().contains(why), r.all());
    }
}
