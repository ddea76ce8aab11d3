package dev.remora.verbs.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link NetNs}: two hosts that reach each other, a delay, a loss, a partition and its healing, and the cleanup.
 * The probes run as {@link NetProbeMain} children in the namespaces ({@code ping} may be missing). Skipped, with the
 * reason, where namespaces (or, for one test each, netem or the bpf classifier) are not available.
 */
@Timeout(20)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetNsTest {
    private static final Pattern ANSWER = Pattern.compile("^(CONNECTED|RTT|UDP|HELD|PONG|FAIL)\\b.*");
    private static final Duration START = Duration.ofSeconds(20);

    /** Why namespaces do not work here; each test assumes it empty, so that every skip is reported with it. */
    private static Optional<String> why;
    private static NetNs.Topology topo;
    private static ChildJvm server;
    private static ChildJvm client;
    private static int port;
    private static String target;

    @BeforeAll
    static void up() throws Exception {
        why = NetNs.available();
        if (why.isPresent()) {
            return;
        }
        topo = NetNs.Topology.create(2);
        target = topo.hostAddress(1);
        server = ChildJvm.builder(NetProbeMain.class).name("server@h1").prefix(topo.commandPrefix(1))
            .args("server", target).start();
        client = ChildJvm.builder(NetProbeMain.class).name("client@h0").prefix(topo.commandPrefix(0))
            .args("client").start();
        port = Integer.parseInt(server.awaitLine(Pattern.compile("^LISTENING (\\d+)$"), START).group(1));
        Matcher ready = client.awaitLine(Pattern.compile("^READY (\\d+)$"), START);
        assertEquals(client.pid(), Long.parseLong(ready.group(1)), "ip netns exec runs the JVM in its own process");
    }

    @AfterAll
    static void down() {
        closeAll();
    }

    private static void closeAll() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (topo != null) {
            topo.close();
        }
    }

    private static void assumeNamespaces() {
        assumeTrue(why.isEmpty(), () -> "network namespaces not available: " + why.get());
    }

    private static String ask(String command) throws InterruptedException {
        client.send(command);
        return client.awaitLine(ANSWER, Duration.ofSeconds(15)).group();
    }

    private static long[] rtt(int n) throws InterruptedException {
        String a = ask("rtt " + target + " " + port + " " + n);
        assertTrue(a.startsWith("RTT "), a);
        String[] w = a.split(" ");
        return new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])};
    }

    private static int udp(int n) throws InterruptedException {
        String a = ask("udp " + target + " " + port + " " + n);
        assertTrue(a.startsWith("UDP "), a);
        return Integer.parseInt(a.substring(4));
    }

    @Test
    @Order(1)
    void hostsReachEachOther() throws Exception {
        assumeNamespaces();
        NetNs.Result addr = topo.exec(0, "ip", "-4", "addr", "show", "dev", "eth0");
        assertTrue(addr.ok() && addr.output().contains(topo.hostAddress(0) + "/24"), addr.output());
        assertTrue(ask("connect " + target + " " + port + " 2000").startsWith("CONNECTED "));
        long[] r = rtt(20);
        System.out.println("NetNsTest: round trip h0-h1 min " + r[0] + " us, median " + r[1] + " us");
        assertTrue(r[1] < 100_000, "median round trip over a veth pair should be far below 100 ms: " + r[1] + " us");
        // No ARP: the topology made the neighbours permanent, so a partition cannot end in "no route to host".
        NetNs.Result none = topo.exec(1, "ip", "neigh", "show", topo.hostAddress(0));
        assertTrue(none.output().contains("PERMANENT"), none.output());
    }

    @Test
    @Order(2)
    void delayRaisesTheRoundTrip() throws Exception {
        assumeNamespaces();
        Optional<String> why = NetNs.delayAvailable();
        assumeTrue(why.isEmpty(), () -> why.get());
        long base = rtt(10)[1];
        try {
            topo.delay(1, Duration.ofMillis(50), Duration.ZERO);
            long[] r = rtt(5);
            System.out.println("NetNsTest: with 50 ms delay on h1, round trip min " + r[0] + " us (base " + base
                + " us)");
            assertTrue(r[0] >= base + 40_000, "min round trip " + r[0] + " us, base median " + base + " us");
            assertTrue(r[1] < 1_000_000, "median round trip " + r[1] + " us");
        } finally {
            topo.heal(1);
        }
        assertTrue(rtt(10)[1] < base + 40_000, "heal removes the delay");
    }

    @Test
    @Order(3)
    void lossDropsAboutThatShare() throws Exception {
        assumeNamespaces();
        Optional<String> why = NetNs.lossAvailable();
        assumeTrue(why.isEmpty(), () -> why.get());
        int n = 300;
        assertTrue(udp(n) >= n - 3, "no loss without a fault");
        try {
            topo.loss(1, 30);
            // Each direction loses 30 %: 49 % of the round trips survive, 147 of 300 expected (sd 8.7).
            int got = udp(n);
            System.out.println("NetNsTest: 30 % loss each way on h1, " + got + " of " + n + " echoes came back");
            assertTrue(got >= 100 && got <= 195, "echoes received with 30 % loss each way: " + got + " of " + n);
        } finally {
            topo.heal(1);
        }
        assertTrue(udp(n) >= n - 3, "heal removes the loss");
    }

    @Test
    @Order(4)
    void partitionTimesOutAndHealRestores() throws Exception {
        assumeNamespaces();
        assertTrue(ask("connect " + target + " " + port + " 2000").startsWith("CONNECTED "));
        try {
            topo.partition(1);
            long t0 = System.nanoTime();
            String a = ask("connect " + target + " " + port + " 1000");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(a.startsWith("FAIL java.net.SocketTimeoutException "), "a partition times out: " + a);
            assertTrue(ms < 3000, "connect failed after " + ms + " ms");
            System.out.println("NetNsTest: during the partition a connect timed out as it should, after " + ms + " ms");
        } finally {
            topo.heal(1);
        }
        String a = ask("connect " + target + " " + port + " 2000");
        assertTrue(a.startsWith("CONNECTED "), "healed: " + a);
    }

    @Test
    @Order(5)
    void anOpenConnectionStallsThroughAPartitionAndResumesAfterHeal() throws Exception {
        assumeNamespaces();
        assertEquals("HELD", ask("hold " + target + " " + port));
        assertTrue(ask("held 1 2000").startsWith("PONG "));
        try {
            topo.partition(1);
            String a = ask("held 2 1000");
            // Neither a reset nor an error: the connection just hears nothing.
            assertTrue(a.startsWith("FAIL java.net.SocketTimeoutException "), "an open connection stalls: " + a);
        } finally {
            topo.heal(1);
        }
        // TCP retransmits the unanswered byte (its timer backs off from about 0.2 s): the same connection resumes.
        String a = ask("held 3 8000");
        System.out.println("NetNsTest: the held connection after heal: " + a);
        assertTrue(a.startsWith("PONG "), "the same connection works again after heal: " + a);
    }

    @Test
    @Order(99)
    void closeRemovesEveryNamespaceAndStaleOnesAreCleaned() throws Exception {
        assumeNamespaces();
        String ours = "rmr" + ProcessHandle.current().pid();
        assertEquals(3, NetNs.listOurs().stream().filter(n -> n.startsWith(ours)).count(), NetNs.listOurs().toString());
        closeAll();
        topo.close(); // idempotent
        assertFalse(NetNs.listOurs().stream().anyMatch(n -> n.startsWith(ours)), NetNs.listOurs().toString());

        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String stale = "rmr" + gone.pid() + "h0";
        assertTrue(NetNs.run(List.of("ip", "netns", "add", stale)).ok());
        assertTrue(NetNs.listOurs().contains(stale));
        assertTrue(NetNs.cleanupStale().contains(stale));
        assertFalse(NetNs.listOurs().contains(stale));
    }
}
