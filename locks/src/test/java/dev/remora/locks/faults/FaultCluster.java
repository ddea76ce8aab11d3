package dev.remora.locks.faults;

import dev.remora.check.model.Models;
import dev.remora.locks.TicketLock;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildJvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link FaultHome} and its {@link FaultClient}s as child JVMs, for one test: starts them, signals them, reads the
 * home's objects from the test JVM, and checks the clients' merged histories. Closing it kills every child.
 */
final class FaultCluster implements AutoCloseable {
    static final Duration START = Duration.ofSeconds(20);
    static final Pattern HOME = Pattern.compile("^HOME (\\S+)$");
    static final Pattern IN_CS = Pattern.compile("^IN_CS (\\d+) (\\w+) (\\d+)$");

    private final Path dir;
    private final List<String> prefix;
    private final String secret;
    private final List<ChildJvm> children = new ArrayList<>();
    private final List<Integer> clientIds = new ArrayList<>();

    /**
     * @param dir where the clients write their histories
     * @param prefix the command prefix of every child (e.g. a network namespace), or empty
     * @param secret the cluster secret, or null
     */
    FaultCluster(Path dir, List<String> prefix, String secret) {
        this.dir = dir;
        this.prefix = prefix;
        this.secret = secret;
    }

    /** A started home and the address it printed. */
    record Home(ChildJvm jvm, String address) {
    }

    Home startHome(List<String> childPrefix, String... args) throws InterruptedException {
        List<String> a = new ArrayList<>(List.of(args));
        if (secret != null) {
            a.add("secret=" + secret);
        }
        ChildJvm j = ChildJvm.builder(FaultHome.class).name("home").prefix(childPrefix).args(a.toArray(String[]::new))
            .start();
        children.add(j);
        Matcher m = j.awaitLine(HOME, START);
        return new Home(j, m.group(1));
    }

    Home startHome(String... args) throws InterruptedException {
        return startHome(prefix, args);
    }

    ChildJvm startClient(List<String> childPrefix, int id, String home, String... args) {
        List<String> a = new ArrayList<>(List.of("id=" + id, "home=" + home, "history=" + historyPrefix(id)));
        a.addAll(List.of(args));
        if (secret != null) {
            a.add("secret=" + secret);
        }
        ChildJvm j = ChildJvm.builder(FaultClient.class).name("client" + id).prefix(childPrefix)
            .args(a.toArray(String[]::new)).start();
        children.add(j);
        clientIds.add(id);
        return j;
    }

    ChildJvm startClient(int id, String home, String... args) {
        return startClient(prefix, id, home, args);
    }

    String historyPrefix(int id) {
        return dir.resolve("client" + id).toString();
    }

    /**
     * @param what {@code counter}, {@code lock} or {@code register}
     * @param epoch the home incarnation
     * @return every client's history of that object in that epoch, merged
     */
    FaultHistories histories(String what, int epoch) {
        FaultHistories h = new FaultHistories(what + " epoch " + epoch);
        for (int id : clientIds) {
            h.add(Path.of(FaultClient.file(historyPrefix(id), epoch, what)), "c" + id);
        }
        return h;
    }

    /** What the test JVM reads at the home: the counter and the register word. */
    record Reading(long counter, long registerToken, int registerValue) {
    }

    /**
     * Reads the counter and the register from the test JVM, over its own socket fabric.
     *
     * @param home the home's address
     * @param host the test JVM's own address (where the home can reach it)
     * @return what it read
     */
    Reading read(String home, String host) {
        return FaultProbe.read(home, host, secret);
    }

    /**
     * Reads the counter and the register from a {@link FaultProbe} child (in a network namespace).
     *
     * @param childPrefix the child's command prefix
     * @param home the home's address
     * @param host the child's own address
     * @return what it read
     */
    Reading readFrom(List<String> childPrefix, String home, String host) throws InterruptedException {
        List<String> a = new ArrayList<>(List.of("home=" + home, "host=" + host));
        if (secret != null) {
            a.add("secret=" + secret);
        }
        try (ChildJvm j = ChildJvm.builder(FaultProbe.class).name("probe").prefix(childPrefix)
            .args(a.toArray(String[]::new)).start()) {
            Matcher m = j.awaitLine(Pattern.compile("^READ (\\d+) (\\d+) (-?\\d+)$"), START);
            return new Reading(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Integer.parseInt(m.group(3)));
        }
    }

    /**
     * Resets the home's ticket lock from the test JVM (the operator's recovery of a stalled ticket lock).
     *
     * @param home the home's address
     * @return the new value of its serving counter
     */
    long resetTicket(String home) {
        try (SocketFabric f = SocketFabric.open(new SocketContext().port(0).secret(secret)
            .retryTimeoutNs(2_000_000_000L))) {
            Node me = f.addNode("operator");
            f.connect(home);
            try (Endpoint ep = Endpoint.open(me, new Endpoint.Context().operationTimeoutNs(5_000_000_000L))) {
                return TicketLock.reset(ep, f.lookup(FaultHome.TICKET));
            }
        }
    }

    /**
     * Checks the counter history (with the final value read by the test appended) and asserts the final value lies
     * between the acknowledged increments and the acknowledged plus the unknown ones.
     *
     * @return the number of operations checked
     */
    static int checkCounter(FaultHistories h, long finalValue) {
        long acked = h.count("ok", "add");
        long unknown = h.count("info", "add") + h.open("add");
        assertTrue(finalValue >= acked && finalValue <= acked + unknown, "counter " + finalValue + " with " + acked
            + " acknowledged and " + unknown + " unknown increments");
        h.addOk("read", finalValue);
        return h.assertLinearizable(Models.counter());
    }

    /** Sends a signal with {@code kill}, e.g. STOP or CONT. */
    static void signal(ChildJvm j, String sig) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(j.pid())).inheritIO().start();
            assertTrue(p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig + " " + j.pid());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the output of every child, for a failure message */
    String outputs() {
        return ChildJvm.outputs(children);
    }

    @Override
    public void close() {
        for (ChildJvm c : children) {
            c.close(); // SIGKILL ends a stopped child too

        }
    }
}
