package dev.remora.locks.faults;

import dev.remora.check.model.Models;
import dev.remora.verbs.testing.ChildJvm;
import dev.remora.verbs.testing.NetNs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real network faults between real processes: one node per Linux network namespace ({@link NetNs}: the
 * {@link FaultHome} on host 0, a {@link FaultClient} on hosts 1 and 2, all joined by a bridge), with a cluster
 * secret, since the addresses are not loopback. Under a 20 ms delay of client 1, 5 % loss on client 1, and a
 * partition of client 1 longer than the lease (taken while it holds the lock) and then healed, the merged histories
 * must be linearizable, no acknowledged increment may be lost, and the partitioned client's operations must end as
 * unknown outcomes (or refused stale writes), never as wrong answers. Skipped, with the reason, where namespaces (or
 * netem, or the bpf classifier for loss) are not available. In the fault tier ({@code -Pfaults}, run by {@code .ci/run} after {@code mvn -B verify}).
 */
@Timeout(90)
class NetworkFaultTest {
    private static final String SECRET = "faults-netns-secret";
    private static final Duration EXIT = Duration.ofSeconds(20);
    /** Client settings for a real (slower) network: longer retry and operation timeouts than on loopback. */
    private static final String[] NET = {"retryMs=1000", "opTimeoutMs=2000", "connectMs=1000"};

    private static Optional<String> why;
    private static NetNs.Topology topo;

    @TempDir
    Path dir;

    @BeforeAll
    static void up() {
        why = NetNs.available();
        if (why.isEmpty()) {
            topo = NetNs.Topology.create(3);
        }
    }

    @AfterAll
    static void down() {
        if (topo != null) {
            topo.close(); // also on failure: every namespace of this topology is deleted
        }
    }

    private static void assumeNamespaces() {
        assumeTrue(why.isEmpty(), () -> "network namespaces not available: " + why.get());
    }

    private static String head(String text, String tag, int n) {
        StringBuilder b = new StringBuilder();
        for (String l : text.split("\n")) {
            if (l.contains("\"" + tag) && n-- > 0) {
                b.append(l).append('\n');
            }
        }
        return b.toString();
    }

    private static String[] with(String[] base, String... more) {
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    /** The outcome of one run under a fault, for the checks and the fault matrix. */
    private record Outcome(FaultHistories counter, FaultHistories lock, FaultHistories register, long finalCounter,
                           int counterOps, int lockOps, int registerOps, String outputs) {
        String ops() {
            return "ops: counter " + counterOps + ", lock " + lockOps + ", register " + registerOps + "; counter "
                + finalCounter + " = " + counter.count("ok", "add") + " acked + " + (finalCounter
                - counter.count("ok", "add")) + " of " + counter.count("info", "add") + " info";
        }
    }

    /** What a test does to the network while the clients run. */
    private interface Fault {
        void apply(FaultCluster cluster, ChildJvm c1, ChildJvm c2) throws Exception;
    }

    private Outcome run(String[] c1Args, Fault fault) throws Exception {
        try (FaultCluster c = new FaultCluster(dir, List.of(), SECRET)) {
            FaultCluster.Home home = c.startHome(topo.commandPrefix(0), "host=" + topo.hostAddress(0), "retryMs=1000");
            ChildJvm c1 = c.startClient(topo.commandPrefix(1), 1, home.address(),
                with(with(NET, c1Args), "host=" + topo.hostAddress(1)));
            ChildJvm c2 = c.startClient(topo.commandPrefix(2), 2, home.address(),
                with(NET, "runMs=3000", "host=" + topo.hostAddress(2)));
            try {
                fault.apply(c, c1, c2);
                assertEquals(0, c1.awaitExit(EXIT), c.outputs());
                assertEquals(0, c2.awaitExit(EXIT), c.outputs());
            } finally {
                topo.heal(1);
            }
            FaultCluster.Reading r = c.readFrom(topo.commandPrefix(2), home.address(), topo.hostAddress(2));
            FaultHistories counter = c.histories("counter", 0);
            FaultHistories lock = c.histories("lock", 0);
            FaultHistories register = c.histories("register", 0);
            int counterOps = FaultCluster.checkCounter(counter, r.counter());
            int lockOps = lock.assertLinearizable(Models.mutex());
            int registerOps = register.assertLinearizable(Models.register(0L));
            return new Outcome(counter, lock, register, r.counter(), counterOps, lockOps, registerOps, c.outputs());
        }
    }

    @Test
    void aDelayedClient() throws Exception {
        assumeNamespaces();
        Optional<String> netem = NetNs.delayAvailable();
        assumeTrue(netem.isEmpty(), () -> netem.get());
        Outcome o = run(new String[] {"runMs=3000"}, (c, c1, c2) -> {
            c1.awaitLine(Pattern.compile("^READY$"), FaultCluster.START);
            topo.delay(1, Duration.ofMillis(20), Duration.ZERO);
        });
        System.out.println("FAULT netem delay 20 ms on client 1 | RemoteCounter, LeaseLock, FencedRegister |"
            + " linearizable | " + o.ops());
    }

    @Test
    void aLossyClient() throws Exception {
        assumeNamespaces();
        Optional<String> bpf = NetNs.lossAvailable();
        assumeTrue(bpf.isEmpty(), () -> bpf.get());
        Outcome o = run(new String[] {"runMs=3000"}, (c, c1, c2) -> {
            c1.awaitLine(Pattern.compile("^READY$"), FaultCluster.START);
            topo.loss(1, 5);
        });
        System.out.println("FAULT 5 % loss on client 1 | RemoteCounter, LeaseLock, FencedRegister | linearizable | "
            + o.ops());
    }

    @Test
    void aClientPartitionedWhileHoldingTheLease() throws Exception {
        assumeNamespaces();
        long[] cut = new long[2];
        long[] tokens = new long[2];
        Outcome o = run(new String[] {"runMs=4000", "holdMs=200",
            // Short timeouts, so that the partitioned client's operations end within the cut, not after the heal.
            "retryMs=300", "connectMs=300", "opTimeoutMs=1000"}, (c, c1, c2) -> {
            Matcher inCs = c1.awaitLine(FaultCluster.IN_CS, FaultCluster.START);
            tokens[0] = Long.parseLong(inCs.group(1));
            topo.partition(1);
            cut[0] = System.nanoTime();
            Matcher taken = c2.awaitLine(Pattern.compile("^IN_CS (\\d+) LEASE_EXPIRED (\\d+)$"), FaultCluster.START);
            tokens[1] = Long.parseLong(taken.group(1));
            long sinceCut = System.nanoTime() - cut[0];
            Thread.sleep(Math.max(0, Duration.ofMillis(1500).toNanos() - sinceCut) / 1_000_000);
            topo.heal(1);
            cut[1] = System.nanoTime();
        });
        assertTrue(tokens[1] > tokens[0], "the takeover's token " + tokens[1] + " after " + tokens[0]);
        // The partitioned client's operations invoked during the cut: none acknowledged before the heal, and some
        // ended unknown (info) or refused (fail), never with a wrong answer (the checks above).
        java.util.Map<String, Long> during = new java.util.TreeMap<>();
        long okDuring = 0;
        for (FaultHistories h : List.of(o.counter(), o.lock(), o.register())) {
            for (String f : List.of("add", "acquire", "release", "write", "read")) {
                h.outcomesInvokedWithin("c1", f, cut[0], cut[1]).forEach((k, v) -> during.merge(f + " " + k, v,
                    Long::sum));
                okDuring += h.countCompletedOkWithin("c1", f, cut[0] + 50_000_000L, cut[1]);
            }
        }
        long unknownOrRefused = during.entrySet().stream().filter(e -> !e.getKey().endsWith(" ok"))
            .mapToLong(java.util.Map.Entry::getValue).sum();
        assertTrue(unknownOrRefused > 0, "no operation of the partitioned client ended info or fail: " + during
            + " cut " + cut[0] + ".." + cut[1] + "\n" + head(o.register().text(), "c1-", 12)
            + head(o.lock().text(), "c1-", 12)
            + head(o.counter().text(), "c1-", 12) + o.outputs());
        assertEquals(0, okDuring, "an operation invoked and acknowledged inside the partition\n" + o.outputs());
        long okAfter = o.counter().countBetween("c1", "ok", "add", cut[1], Long.MAX_VALUE);
        assertTrue(okAfter > 0, "client 1 did not recover after the heal\n" + o.outputs());
        System.out.println("FAULT partition client 1 (holding the lease) for " + (cut[1] - cut[0]) / 1_000_000
            + " ms, healed | LeaseLock, FencedRegister, RemoteCounter | taken over, token " + tokens[0] + " -> "
            + tokens[1] + "; client 1's operations invoked in the cut: " + during
            + ", none acknowledged before the heal; "
            + okAfter
            + " acked adds after the heal | " + o.ops());
    }
}
