package dev.remora.cli;

import dev.remora.kv.CuckooMap;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Access;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.remora.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code remora workload} on the socket fabric against a home node in this process (as {@code remora serve} would
 * publish it, the kv table made here), each history then verified by {@code remora check}.
 */
class WorkloadCommandTest {
    @TempDir
    Path dir;

    private SocketFabric home;
    private Node node;
    private MemoryRegion data;

    @BeforeEach
    void serve() {
        home = SocketFabric.open();
        node = home.addNode("home");
        home.publish("hits", RemoteCounter.create(node));
        home.publish("L1", TicketLock.create(node).address());
        data = node.allocate(8, Access.ALL);
        home.publish("data", data.remote(0));
        home.publish("kv", CuckooMap.allocate(node, new CuckooMap.Params().rows(64).clients(16)));
    }

    @AfterEach
    void stop() {
        home.close();
    }



    private CliRun workload(String object, String name, Path history, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("workload", "--fabric", "socket", "--connect",
            node.address(), "--object", object, "--name", name, "--seconds", "0.7", "--threads", "2", "--history",
            history.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    private static long count(Path history, String function) throws IOException {
        return Files.readAllLines(history, StandardCharsets.UTF_8).stream()
            .filter(l -> l.contains("\"type\":\"ok\"") && l.contains("\"f\":\"" + function + "\"")).count();
    }

    @Test
    void shouldRecordACounterWorkloadThatTheCheckerFindsLinearizable() throws IOException {
        Path h = dir.resolve("counter.jsonl");
        CliRun r = workload("counter", "hits", h);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("check it with: remora check --model counter --init 0 " + h), r.all());
        long adds = count(h, "add");
        assertTrue(adds > 10, "adds recorded: " + adds + "\n" + Files.readString(h));
        assertChecked("--model", "counter", "--init", "0", h.toString());
    }

    @Test
    void shouldRecordALockWorkloadWhoseHistoryIsAMutexAndWhoseCountIsExact() throws IOException {
        Path h = dir.resolve("lock.jsonl");
        CliRun r = workload("lock", "L1", h, "--data", "data");
        assertEquals(0, r.code(), r.all());
        long acquisitions = count(h, "acquire");
        assertTrue(acquisitions > 5, r.all());
        // Every critical section incremented the data word once, and none lost an update.
        assertEquals(acquisitions, data.getLongVolatile(0));
        assertChecked("--model", "mutex", h.toString());
    }

    @Test
    void shouldRecordAKvWorkloadOnATableThatTheCheckerFindsLinearizable() throws IOException {
        Path h = dir.resolve("kv.jsonl");
        CliRun r = workload("kv", "kv", h, "--keys", "4");
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("--model map"), r.all());
        assertTrue(count(h, "put") > 5 && count(h, "get") > 5 && count(h, "delete") > 0, Files.readString(h));
        assertTrue(Files.readString(h).contains("\"type\":\"ok\",\"f\":\"cas\",\"key\""), "a cas with its outcome");
        assertChecked("--model", "map", h.toString());
    }

    @Test
    void shouldReadTheSecretFileAsServeDoesSoThatBothHoldTheSameSecret() throws IOException {
        // 'remora serve --secret-file' drops the file's trailing newlines and nothing else: a home holding the secret
        // "two words \t" is what serve makes of this file, and a workload given the same file must join it.
        try (SocketFabric secured = SocketFabric.open(new SocketContext().secret("two words \t"))) {
            Node home = secured.addNode("home");
            secured.publish("hits", RemoteCounter.create(home));
            Path secret = dir.resolve("secret");
            Files.writeString(secret, "two words \t\n", StandardCharsets.UTF_8);
            CliRun r = run("workload", "--fabric", "socket", "--connect", home.address(), "--object", "counter",
                "--name", "hits", "--seconds", "0.2", "--threads", "1", "--history", dir.resolve("s.jsonl").toString(),
                "--secret-file", secret.toString());
            assertEquals(0, r.code(), r.all());
            Files.writeString(secret, "\n", StandardCharsets.UTF_8);
            r = run("workload", "--fabric", "socket", "--connect", home.address(), "--object", "counter",
                "--name", "hits", "--history", dir.resolve("s.jsonl").toString(), "--secret-file", secret.toString());
            assertEquals(64, r.code(), r.all());
            assertTrue(r.err().contains("--secret-file " + secret + " is empty"), r.all());
        }
    }

    @Test
    void shouldNameAnObjectThatIsNotPublished() {
        CliRun r = workload("counter", "nope", dir.resolve("x.jsonl"));
        assertEquals(1, r.code(), r.all());
        assertTrue(r.err().startsWith("remora workload: " + node.address() + ": ") && r.err().contains("'nope'"),
            r.all());
    }

    @Test
    void shouldRefuseBadArguments() {
        CliRun r = workload("counter", "hits", dir.resolve("x.jsonl"), "--threads", "0");
        assertEquals(64, r.code(), r.all());
        r = workload("lock", "L1", dir.resolve("x.jsonl"), "--lock-kind", "mcs");
        assertEquals(64, r.code(), r.all());
        assertTrue(r.err().contains("--lock-kind is ticket or cas, not mcs"), r.all());
        r = run("workload", "--fabric", "nosuch", "--connect", node.address(), "--object", "counter", "--name", "hits",
            "--history", dir.resolve("x.jsonl").toString());
        assertEquals(64, r.code(), r.all());
        assertTrue(r.err().contains("no fabric provider named 'nosuch'"), r.all());
    }

    @Test
    void shouldServeOnTheProviderNamedAndSayWhyItCannot() {
        java.io.PrintStream before = System.err;
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = RemoraMain.commandLine().execute("serve", "--fabric", "nosuch", "--counter", "c");
        } finally {
            System.setErr(before);
        }
        assertEquals(ServeCommand.EXIT_USAGE, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("remora serve: no fabric provider named 'nosuch'"),
            err.toString(StandardCharsets.UTF_8));
    }

    /** {@code remora check ARGS} finds the history linearizable (its output is captured, not printed). */
    private static void assertChecked(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "check";
        System.arraycopy(args, 0, all, 1, args.length);
        CliRun r = CliRun.run(all);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("\tlinearizable"), r.all());
    }
}
