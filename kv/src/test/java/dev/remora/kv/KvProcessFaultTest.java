package dev.remora.kv;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Verdict;
import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import dev.remora.kv.CuckooMap.Point;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cuckoo map under real process faults on the socket fabric (the fault tier, {@code -Pfaults}; it is not part of
 * {@code mvn verify}): the table's home is a {@link KvFaultHome} process, its clients are {@link KvFaultClient}
 * processes, and the test kills them with SIGKILL.
 *
 * <ul>
 *   <li>Clients killed in the middle of their operations: two steady clients (two threads each) and five victims (one
 *       thread each) get, put, delete and compareAndSet six keys of a table of 8 one-slot rows (inserts kick,
 *       TABLE_FULL is answered). Three victims are killed at random moments; one is killed paused between its
 *       doorbells (its rows locked, nothing of doorbell 2 posted), one paused inside its doorbell 2 (the intent log
 *       and the slot image landed, no bump, no unlock). The survivors run into the rows left locked and repair them
 *       (after the lease), are then told to {@link CuckooMap#recover()}, go on, and stop; the test's JVM recovers the
 *       table again, GETs every key and reads the table's memory word by word. Checked: the merged history (every
 *       killed client's open operation indeterminate) is linearizable with the map model, so no acknowledged write
 *       was lost (every write reports what it replaced, and the final GETs close the history); the memory has no row
 *       locked, no slot torn or unpublished, no key twice, and holds what the final GETs returned; the between-doorbells
 *       victim's op was only unlocked and the inside-doorbell-2 victim's rolled forward by someone.</li>
 *   <li>The home killed: the clients' calls end in timeouts or errors within a bound (never a hang), recorded
 *       {@code info}; no call succeeds after the kill; the history is linearizable.</li>
 * </ul>
 */
@Timeout(90)
class KvProcessFaultTest {
    private static final Duration START = Duration.ofSeconds(20);
    private static final Duration EXIT = Duration.ofSeconds(15);
    private static final int ROWS = 8;
    private static final long LEASE_MS = 500;
    private static final long MARGIN_MS = 250;
    private static final Pattern HOME = Pattern.compile("^HOME (\\S+)$");
    private static final Pattern DONE = Pattern.compile("^DONE (.*)$");

    @TempDir
    Path dir;

    /** Six keys whose rows all lie in rows 0..4 of the 8, no two with the same pair: inserts must kick. */
    private static String[] keys() {
        return KvTestKeys.distinctRowPairs(6, ROWS, 5);
    }

    /** The children of one test: started, killed and (at the end) all killed. */
    private final class Cluster implements AutoCloseable {
        final List<ChildJvm> children = new ArrayList<>();
        final Map<String, Path> histories = new LinkedHashMap<>();
        final String[] keys = keys();

        String startHome() throws InterruptedException {
            ChildJvm home = ChildJvm.builder(KvFaultHome.class).name("home").args("rows=" + ROWS, "slots=1",
                "clients=64", "leaseMs=" + LEASE_MS, "marginMs=" + MARGIN_MS).start();
            children.add(home);
            return home.awaitLine(HOME, START).group(1);
        }

        ChildJvm home() {
            return children.get(0);
        }

        ChildJvm startClient(String name, String home, String... extra) {
            String prefix = dir.resolve(name).toString();
            List<String> a = new ArrayList<>(List.of("home=" + home, "history=" + prefix, "keys=" + String.join(",",
                keys), "id=" + (children.size()), "seed=" + (children.size() * 7919L + System.nanoTime() % 1000)));
            a.addAll(List.of(extra));
            ChildJvm j = ChildJvm.builder(KvFaultClient.class).name(name).args(a.toArray(String[]::new)).start();
            children.add(j);
            histories.put(name, Path.of(KvFaultClient.file(prefix)));
            return j;
        }

        String outputs() {
            return ChildJvm.outputs(children);
        }

        @Override
        public void close() {
            for (ChildJvm c : children) {
                c.close();
            }
        }
    }

    /** @return the {@code key=value} counts of a client's {@code DONE} line */
    private static Map<String, Long> done(ChildJvm j) throws InterruptedException {
        Matcher m = j.awaitLine(DONE, EXIT);
        Map<String, Long> counts = new TreeMap<>();
        for (String kv : m.group(1).split(" ")) {
            int eq = kv.indexOf('=');
            counts.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        return counts;
    }

    private static void awaitEvery(List<ChildJvm> js, String regex) throws InterruptedException {
        for (ChildJvm j : js) {
            j.awaitLine(Pattern.compile(regex), START);
        }
    }

    @Test
    void clientsKilledInTheMiddleOfTheirOperationsAreRepairedAndNoAcknowledgedWriteIsLost() throws Exception {
        long startNs = System.nanoTime();
        Random rnd = new Random();
        try (Cluster c = new Cluster()) {
            String home = c.startHome();
            List<ChildJvm> steady = List.of(c.startClient("steady1", home, "threads=2"),
                c.startClient("steady2", home, "threads=2"));
            List<ChildJvm> random = new ArrayList<>();
            for (int v = 1; v <= 3; v++) {
                random.add(c.startClient("victim" + v, home, "threads=1"));
            }
            ChildJvm between = c.startClient("victim-between", home, "threads=1", "pause=between");
            ChildJvm prefix = c.startClient("victim-prefix", home, "threads=1", "pause=prefix");
            awaitEvery(steady, "^WORKING$");
            awaitEvery(random, "^WORKING$");
            awaitEvery(List.of(between, prefix), "^WORKING$");
            long workingMs = (System.nanoTime() - startNs) / 1_000_000;
            // The victims at random moments, one after another, while everyone else works.
            List<Long> killDelaysMs = new ArrayList<>();
            for (ChildJvm v : random) {
                long delay = 100 + rnd.nextInt(700);
                Thread.sleep(delay);
                v.kill();
                killDelaysMs.add(delay);
            }
            for (ChildJvm v : random) {
                assertEquals(137, v.awaitExit(EXIT), c.outputs());
            }
            // Then the paused ones, where they wait: between the doorbells, and inside doorbell 2. Armed only now, and
            // both at once (each pauses at its next update, well within a lease of the other), so that their ops are
            // repaired by the survivors (or the final pass), whose counts the test reads, and not by another victim.
            between.send("ARM");
            prefix.send("ARM");
            between.awaitLine(Pattern.compile("^PAUSED between$"), START);
            prefix.awaitLine(Pattern.compile("^PAUSED prefix$"), START);
            between.kill();
            prefix.kill();
            long lastKillNs = System.nanoTime();
            for (ChildJvm v : List.of(between, prefix)) {
                assertEquals(137, v.awaitExit(EXIT), c.outputs());
            }
            // The survivors go on past a lease (running into the locked rows), recover, go on, and stop.
            Thread.sleep(LEASE_MS + MARGIN_MS);
            for (ChildJvm s : steady) {
                s.send("RECOVER");
            }
            for (ChildJvm s : steady) {
                for (int t = 0; t < 2; t++) {
                    s.awaitLine(Pattern.compile("^RECOVERED "), START);
                }
            }
            Thread.sleep(500);
            for (ChildJvm s : steady) {
                s.send("STOP");
            }
            Map<String, Long> totals = new TreeMap<>();
            for (ChildJvm s : steady) {
                done(s).forEach((k, v) -> totals.merge(k, v, Long::sum));
                assertEquals(0, s.awaitExit(EXIT), c.outputs());
            }
            assertEquals(0L, totals.get("errors"), "a survivor's call failed\n" + c.outputs());
            // The test's JVM: recover once more (a margin after the last kill: a killed client's lock CAS in flight has
            // landed by now), GET every key, and read the table's memory.
            assertTrue(System.nanoTime() - lastKillNs > MARGIN_MS * 1_000_000L);
            Final fin = finalPass(home, c.keys, dir.resolve("test"));
            c.histories.put("test", Path.of(KvFaultClient.file(dir.resolve("test").toString())));
            Merged merged = merge(c.histories);
            CheckResult check = Checker.check(merged.history(), Models.map());
            assertEquals(Verdict.LINEARIZABLE, check.verdict(), check + "\n" + c.outputs());
            long open = merged.open();
            assertTrue(open >= 2 && open <= 5, "each killed victim leaves at most one open operation, the paused ones "
                + "one each: " + open);
            Map<String, String> memory = TableMemory.checkQuiescent(fin::word, KvFaultHome.params(Map.of(
                "rows", Integer.toString(ROWS), "slots", "1", "clients", "64", "leaseMs", Long.toString(LEASE_MS),
                "marginMs", Long.toString(MARGIN_MS))));
            for (int k = 0; k < c.keys.length; k++) {
                assertEquals(fin.gets()[k], memory.get(c.keys[k]), "key " + c.keys[k] + " in memory");
            }
            long unlocked = totals.get("unlocked") + fin.unlocked();
            long rolled = totals.get("rolled") + fin.rolled();
            String counts = "survivors " + totals + ", final pass " + fin + "\n" + c.outputs();
            assertTrue(unlocked >= 1, "the op killed between its doorbells was unlocked: " + counts);
            assertTrue(rolled >= 1, "the op killed inside its doorbell 2 was rolled forward: " + counts);
            long tookMs = (System.nanoTime() - startNs) / 1_000_000;
            System.out.println("FAULT kill -9 kv clients | CuckooMap, home in its own process, 2 steady clients x 2"
                + " threads, 5 victims | 5 kills (3 random, " + killDelaysMs + " ms apart, 1 between doorbells, 1"
                + " inside doorbell 2), all working " + workingMs + " ms after the start | repairs: " + totals.get(
                "repairs") + " by the survivors (" + rolled + " rolled forward, " + unlocked + " unlocked only, "
                + (totals.get("finished") + fin.finished()) + " finished), " + fin.recovered() + " by the final recover"
                + " | " + merged.history().size() + " operations (" + open + " open, " + merged.info() + " info), "
                + totals.get("busy") + " BUSY, " + totals.get("full") + " TABLE_FULL, " + totals.get("kicks")
                + " kicks | map model: " + check.verdict() + " | memory quiescent, " + memory.size()
                + " keys as the final GETs | " + tookMs + " ms");
        }
    }

    @Test
    void clientsOfAKilledHomeEndTheirCallsInTimeoutsOrErrorsRecordedInfo() throws Exception {
        long startNs = System.nanoTime();
        try (Cluster c = new Cluster()) {
            String home = c.startHome();
            List<ChildJvm> clients = List.of(c.startClient("a", home, "threads=2", "opTimeoutMs=1000"),
                c.startClient("b", home, "threads=2", "opTimeoutMs=1000"));
            awaitEvery(clients, "^WORKING$");
            Thread.sleep(300);
            long killNs = System.nanoTime();
            c.home().kill();
            assertEquals(137, c.home().awaitExit(EXIT));
            long errors = 0;
            for (ChildJvm j : clients) {
                errors += done(j).get("errors");
                assertEquals(0, j.awaitExit(Duration.ofSeconds(10)), c.outputs());
            }
            long doneMs = (System.nanoTime() - killNs) / 1_000_000;
            assertEquals(4, errors, "every client thread's call ended in an error or a timeout\n" + c.outputs());
            Merged merged = merge(c.histories);
            long afterKill = killNs + 50_000_000L; // a call completed just before the kill may be recorded after it
            assertEquals(0, merged.countAfter("ok", afterKill), "a call succeeded on a dead home");
            assertEquals(4, merged.info(), "each thread's last call is info, its outcome unknown");
            CheckResult check = Checker.check(merged.history(), Models.map());
            assertEquals(Verdict.LINEARIZABLE, check.verdict(), check::toString);
            List<String> kinds = new ArrayList<>();
            for (ChildJvm j : clients) {
                for (String l : j.stdoutLines()) {
                    if (l.startsWith("ERROR ")) {
                        String[] w = l.split(" ");
                        kinds.add(w[2] + (w[3].equals("-") ? "" : " " + w[3]));
                    }
                }
            }
            System.out.println("FAULT kill -9 kv home | CuckooMap, 2 clients x 2 threads | all calls ended "
                + doneMs + " ms after the kill: " + kinds + ", 4 info | " + merged.history().size() + " operations,"
                + " none ok after the kill | map model: " + check.verdict() + " | "
                + (System.nanoTime() - startNs) / 1_000_000 + " ms");
        }
    }

    /** What the test's own JVM did at the end: the final GETs, the table's memory, and its recover's repairs. */
    private record Final(String[] gets, long[] words, long recovered, long rolled, long unlocked, long finished) {
        @Override
        public String toString() {
            return "recovered " + recovered + " (rolled " + rolled + ", unlocked " + unlocked + ", finished " + finished
                + "), final GETs " + java.util.Arrays.toString(gets);
        }

        /** @return the word at a byte offset of the table */
        long word(long offset) {
            return words[(int) (offset / 8)];
        }
    }

    /**
     * Attaches from this JVM, runs {@link CuckooMap#recover()}, GETs every key (recorded), and reads the table's whole
     * memory with READs.
     */
    private static Final finalPass(String home, String[] keys, Path history) {
        long[] counts = new long[3];
        try (SocketFabric f = SocketFabric.open(new SocketContext().host("127.0.0.1").port(0)
            .retryTimeoutNs(2_000_000_000L).connectTimeoutNs(5_000_000_000L))) {
            Node me = f.addNode("final");
            f.connect(home);
            RemoteAddress table = f.lookup(KvFaultHome.TABLE);
            try (Endpoint ep = Endpoint.open(me, new Endpoint.Context().operationTimeoutNs(5_000_000_000L));
                 CuckooMap m = CuckooMap.attach(ep, table);
                 HistoryRecorder rec = HistoryRecorder.builder()
                     .writeTo(Path.of(KvFaultClient.file(history.toString()))).build()) {
                m.hook = new CuckooMap.Hook() {
                    @Override
                    public int beforePost(Point point, int requests) {
                        switch (point) {
                            case REPAIR_ROLL_FORWARD -> counts[0]++;
                            case REPAIR_UNLOCK -> counts[1]++;
                            case REPAIR_FINISH -> counts[2]++;
                            default -> {
                            }
                        }
                        return requests;
                    }
                };
                long recovered = m.recover();
                String[] gets = new String[keys.length];
                RecordedMap map = new RecordedMap(m, rec.client()::invoke);
                for (int k = 0; k < keys.length; k++) {
                    Result r = map.get(keys[k]);
                    assertTrue(r.status() != Status.BUSY, "a final GET after recover answered BUSY");
                    gets[k] = RecordedMap.text(r.value());
                }
                CuckooMap.Params p = new CuckooMap.Params();
                int bytes = (int) CuckooTableDescriptor.tableBytes(ROWS, 1, 64, p.keyCapacity(), p.valueCapacity());
                long[] words = new long[bytes / 8];
                try (MemoryRegion memory = me.allocate(bytes, Access.LOCAL_WRITE)) {
                    for (int off = 0; off < bytes; off += 4096) {
                        ep.read(table.plus(off), memory, off, Math.min(4096, bytes - off));
                    }
                    for (int i = 0; i < words.length; i++) {
                        words[i] = memory.getLong(8L * i);
                    }
                }
                return new Final(gets, words, recovered, counts[0], counts[1], counts[2]);
            }
        }
    }

    /** The clients' history files merged into one history, in the order of their times. */
    private record Merged(List<Line> lines) {
        long open() {
            Map<String, Long> balance = new TreeMap<>();
            for (Line l : lines) {
                balance.merge(l.process(), l.type().equals("invoke") ? 1L : -1L, Long::sum);
            }
            return balance.values().stream().mapToLong(Long::longValue).sum();
        }

        long info() {
            return lines.stream().filter(l -> l.type().equals("info")).count();
        }

        long countAfter(String type, long ns) {
            return lines.stream().filter(l -> l.type().equals(type) && l.time() > ns).count();
        }

        History history() {
            StringBuilder b = new StringBuilder();
            for (Line l : lines) {
                b.append(l.text()).append('\n');
            }
            return HistoryReader.read("merged", b.toString(), HistoryFormat.JSONL);
        }
    }

    private record Line(long time, String process, String type, String text) {
    }

    private static final Pattern PROCESS = Pattern.compile("^\\{\"process\":(\\d+),\"type\":\"(\\w+)\",");
    private static final Pattern TIME = Pattern.compile(",\"time\":(-?\\d+)}$");

    /**
     * Merges history files: each line's process becomes {@code "<name>-<n>"}, and the lines are ordered by their
     * times, which every process on one machine reads from one clock ({@code System.nanoTime()} is
     * {@code CLOCK_MONOTONIC} on Linux): an invocation's time is read before its call, a completion's after it, so the
     * order by time keeps every real-time precedence. Every event is flushed whole, so a killed client leaves no half
     * line; a line that does not parse fails the test.
     */
    private static Merged merge(Map<String, Path> files) {
        List<Line> lines = new ArrayList<>();
        for (Map.Entry<String, Path> e : files.entrySet()) {
            List<String> text;
            try {
                text = Files.exists(e.getValue()) ? Files.readAllLines(e.getValue()) : List.of();
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
            for (String l : text) {
                Matcher p = PROCESS.matcher(l);
                Matcher t = TIME.matcher(l);
                assertTrue(p.find() && t.find(), e.getKey() + ": a line cut short: " + l);
                String process = e.getKey() + "-" + p.group(1);
                lines.add(new Line(Long.parseLong(t.group(1)), process, p.group(2),
                    "{\"process\":\"" + process + "\"," + l.substring(l.indexOf(",\"type\"") + 1)));
            }
        }
        lines.sort(Comparator.comparingLong(Line::time));
        return new Merged(lines);
    }
}
