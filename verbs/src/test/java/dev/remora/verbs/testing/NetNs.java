package dev.remora.verbs.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Linux network namespaces for tests of processes that talk over a real network and suffer its faults: a
 * {@link Topology} of host namespaces joined by veth pairs to one bridge, with delay, loss and partitions per host.
 *
 * <p>Needs root, iproute2's {@code ip} and {@code tc}, and a kernel that lets {@code ip netns add} work (an
 * unprivileged container does not). {@link #available()} says why not, so that tests skip with the reason:
 * <pre>
 * Optional&lt;String&gt; why = NetNs.available();
 * Assumptions.assumeTrue(why.isEmpty(), () -&gt; why.get());
 * </pre>
 * The faults need more of the kernel: {@link Topology#delay} needs the {@code netem} queueing discipline
 * ({@link #delayAvailable()}), {@link Topology#loss} the {@code clsact} discipline and the {@code bpf} classifier
 * ({@link #lossAvailable()}); partitions need nothing more.
 *
 * <p>Names: namespaces are {@code rmr<pid>h<i>} for host {@code i} and {@code rmr<pid>br} for the bridge, where
 * {@code pid} is this JVM's; {@link #cleanupStale()} removes those of JVMs that are gone (e.g. killed while a test
 * ran). Inside them the interfaces have short fixed names: {@code eth0} in each host, and {@code br0} and one port
 * {@code h<i>} per host in the bridge namespace, so no name reaches the 15-character limit and parallel runs never
 * clash.
 */
public final class NetNs {
    /** How long one {@code ip} or {@code tc} command may take. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern OURS = Pattern.compile("^rmr(\\d+)(h\\d+|br|probe)$");
    private static final Set<Topology> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Topology t : LIVE) {
                t.close();
            }
        }, "NetNs-cleanup"));
    }

    private NetNs() {
    }

    /** The outcome of a command: its exit code and its stdout and stderr, merged. */
    public record Result(int exitCode, String output) {
        /** @return whether the command exited with 0 */
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** What the probe found, computed once per JVM. */
    private record Support(Optional<String> namespaces, Optional<String> delay, Optional<String> loss) {
    }

    private static volatile Support support;

    /**
     * Whether namespaces, veth pairs and bridges work here: checks that this process runs as root, that {@code ip}
     * runs, and that a probe namespace with a veth pair and a bridge can be made (and removes it).
     *
     * @return empty when {@link Topology#create} can work, else why not
     */
    public static Optional<String> available() {
        return support().namespaces;
    }

    /**
     * @return empty when {@link Topology#delay} can work (the kernel has {@code sch_netem}), else why not
     */
    public static Optional<String> delayAvailable() {
        Support s = support();
        return s.namespaces.isPresent() ? s.namespaces : s.delay;
    }

    /**
     * @return empty when {@link Topology#loss} can work (the kernel has {@code sch_ingress}'s {@code clsact} and
     *     {@code cls_bpf}), else why not
     */
    public static Optional<String> lossAvailable() {
        Support s = support();
        return s.namespaces.isPresent() ? s.namespaces : s.loss;
    }

    private static Support support() {
        Support s = support;
        if (s == null) {
            synchronized (NetNs.class) {
                s = support;
                if (s == null) {
                    s = probe();
                    support = s;
                }
            }
        }
        return s;
    }

    private static Support probe() {
        Optional<String> root = notRoot();
        if (root.isPresent()) {
            return new Support(root, root, root);
        }
        Result ip;
        try {
            ip = run(List.of("ip", "-V"));
        } catch (UncheckedIOException e) {
            Optional<String> why = Optional.of("iproute2's ip cannot run: " + e.getCause().getMessage());
            return new Support(why, why, why);
        }
        if (!ip.ok()) {
            Optional<String> why = Optional.of("ip -V failed: " + ip.output().trim());
            return new Support(why, why, why);
        }
        cleanupStale();
        String ns = "rmr" + ProcessHandle.current().pid() + "probe";
        Result add = run(List.of("ip", "netns", "add", ns));
        if (!add.ok()) {
            Optional<String> why = Optional.of("ip netns add " + ns + " failed: " + add.output().trim());
            return new Support(why, why, why);
        }
        try {
            Optional<String> nsWhy = firstFailure(
                List.of("ip", "-n", ns, "link", "add", "name", "veth0", "type", "veth", "peer", "name", "veth1"),
                List.of("ip", "-n", ns, "link", "add", "name", "br0", "type", "bridge"),
                List.of("ip", "-n", ns, "link", "set", "dev", "veth0", "up"),
                List.of("ip", "-n", ns, "link", "set", "dev", "veth1", "up"));
            if (nsWhy.isPresent()) {
                return new Support(nsWhy, nsWhy, nsWhy);
            }
            Optional<String> delayWhy = tcMissing().or(() -> firstFailure(
                List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "veth0", "root", "netem", "delay",
                    "1ms")))
                .map(w -> "tc netem (delay) does not work here, the kernel probably lacks sch_netem"
                    + " (CONFIG_NET_SCH_NETEM): " + w);
            Optional<String> lossWhy = tcMissing().or(() -> firstFailure(
                List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "veth1", "clsact"),
                List.of("ip", "netns", "exec", ns, "tc", "filter", "add", "dev", "veth1", "ingress", "bpf", "da",
                    "bytecode", dropBytecode(50))))
                .map(w -> "tc clsact with a bpf filter (loss) does not work here, the kernel probably lacks"
                    + " sch_ingress or cls_bpf: " + w);
            return new Support(Optional.empty(), delayWhy, lossWhy);
        } finally {
            run(List.of("ip", "netns", "del", ns));
        }
    }

    private static Optional<String> tcMissing() {
        try {
            Result r = run(List.of("tc", "-V"));
            return r.ok() ? Optional.empty() : Optional.of("tc -V failed: " + r.output().trim());
        } catch (UncheckedIOException e) {
            return Optional.of("iproute2's tc cannot run: " + e.getCause().getMessage());
        }
    }

    @SafeVarargs
    private static Optional<String> firstFailure(List<String>... commands) {
        for (List<String> c : commands) {
            Result r = run(c);
            if (!r.ok()) {
                return Optional.of("`" + String.join(" ", c) + "` exited with " + r.exitCode() + ": "
                    + r.output().trim());
            }
        }
        return Optional.empty();
    }

    /** @return why this process is not root, or empty when its effective uid is 0 */
    private static Optional<String> notRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    String[] f = line.substring(4).trim().split("\\s+");
                    return f.length > 1 && f[1].equals("0") ? Optional.empty()
                        : Optional.of("not root (effective uid " + (f.length > 1 ? f[1] : "?")
                            + "): network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN");
                }
            }
        } catch (IOException e) {
            // not Linux, or no /proc: ask id
        }
        try {
            Result id = run(List.of("id", "-u"));
            String uid = id.output().trim();
            return id.ok() && uid.equals("0") ? Optional.empty()
                : Optional.of("not root (id -u: " + uid + "): network namespaces need root");
        } catch (UncheckedIOException e) {
            return Optional.of("cannot tell whether this is root (no /proc/self/status, no id): not Linux?");
        }
    }

    /**
     * Removes the namespaces named {@code rmr<pid>...} whose JVM is no longer alive, e.g. of a test run that was
     * killed. A namespace whose pid has been reused by another process stays (harmless). Namespace names are shared
     * by everything that sees the same {@code /run/netns}: a JVM in another pid namespace that shares it would look
     * dead from here, so do not share {@code /run/netns} between containers that run these tests at once.
     *
     * @return the namespaces removed
     */
    public static List<String> cleanupStale() {
        List<String> removed = new ArrayList<>();
        Result list;
        try {
            list = run(List.of("ip", "netns", "list"));
        } catch (UncheckedIOException e) {
            return removed;
        }
        if (!list.ok()) {
            return removed;
        }
        for (String line : list.output().split("\n")) {
            String name = line.trim().split("\\s+")[0];
            Matcher m = OURS.matcher(name);
            if (!m.matches()) {
                continue;
            }
            long pid = Long.parseLong(m.group(1));
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive && run(List.of("ip", "netns", "del", name)).ok()) {
                removed.add(name);
            }
        }
        return removed;
    }

    /**
     * @return our namespaces ({@code rmr<pid>...}) that {@code ip netns list} shows now, of any pid
     */
    public static List<String> listOurs() {
        List<String> ours = new ArrayList<>();
        for (String line : run(List.of("ip", "netns", "list")).output().split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (OURS.matcher(name).matches()) {
                ours.add(name);
            }
        }
        return ours;
    }

    /**
     * Runs a command and waits for it (10 s at most, then kills it and reports exit code -1).
     *
     * @param command the command words
     * @return its exit code and output
     * @throws UncheckedIOException if it cannot be started (e.g. not installed)
     */
    public static Result run(List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // the process died; keep what was read
            }
        }, "NetNs-run");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                reader.join(1000);
                return new Result(-1, "timed out after " + COMMAND_TIMEOUT + ": " + command + "\n" + text(out));
            }
            reader.join(5000);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted: " + command);
        }
        return new Result(p.exitValue(), text(out));
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * The classic BPF program of {@link Topology#loss}, in {@code tc}'s {@code bytecode} syntax: load a random 32-bit
     * number (the {@code SKF_AD_RANDOM} ancillary load), drop the packet ({@code TC_ACT_SHOT}, 2) when it is below
     * {@code percent}% of 2^32, else let it pass ({@code TC_ACT_OK}, 0).
     */
    static String dropBytecode(double percent) {
        long threshold = Math.round(Math.min(100, Math.max(0, percent)) / 100.0 * 4294967296.0);
        String ret = "6 0 0 2,6 0 0 0";
        if (threshold >= 4294967296L) {
            return "1,6 0 0 2"; // drop everything
        }
        // ld rand (SKF_AD_OFF + SKF_AD_RANDOM = -4096 + 56, as u32); jge #threshold, pass, drop
        return "4,32 0 0 " + (4294967296L - 4096 + 56) + ",53 1 0 " + threshold + "," + ret;
    }

    /**
     * Host namespaces joined to one bridge. Host {@code i} is namespace {@code rmr<pid>h<i>} with interface
     * {@code eth0} at {@code 10.<x>.<y>.<i+1>/24} ({@code x}, {@code y} from the pid); its veth peer is port
     * {@code h<i>} of bridge {@code br0} in namespace {@code rmr<pid>br}. Every host knows every other host's MAC
     * address as a permanent neighbour entry, so there is no ARP: a partitioned host's packets vanish instead of
     * failing neighbour resolution (which would end a connect with "no route to host").
     *
     * <p>Processes run in a host with {@link #exec} (a command, waited for) or with
     * {@code ChildJvm.builder(...).prefix(topology.commandPrefix(i))}. Close such children before the topology:
     * a namespace whose processes still run loses its name but lives on until they exit.
     */
    public static final class Topology implements AutoCloseable {
        private final String base;
        private final int hosts;
        private final int x;
        private final int y;
        /** The namespaces made so far, in order; guarded by {@code this}. */
        private final List<String> made = new ArrayList<>();
        private boolean closed;

        private Topology(int hosts) {
            long pid = ProcessHandle.current().pid();
            this.base = "rmr" + pid;
            this.hosts = hosts;
            this.x = (int) ((pid >> 8) & 0xff);
            this.y = (int) (pid & 0xff);
        }

        /**
         * Makes {@code hosts} host namespaces joined to a bridge, after removing stale namespaces of dead JVMs
         * ({@link NetNs#cleanupStale()}). Only one topology per JVM at a time (the names derive from the pid).
         *
         * @param hosts how many hosts, 1 to 250
         * @return the topology; close it to remove every namespace and interface
         * @throws IllegalStateException if namespaces are not {@linkplain NetNs#available() available}, a topology
         *     of this JVM is open, or a command fails (with its output; what was made is removed again)
         */
        public static Topology create(int hosts) {
            if (hosts < 1 || hosts > 250) {
                throw new IllegalArgumentException("hosts must be in 1..250: " + hosts);
            }
            Optional<String> why = available();
            if (why.isPresent()) {
                throw new IllegalStateException("network namespaces are not available: " + why.get());
            }
            if (!LIVE.isEmpty()) {
                throw new IllegalStateException("a topology of this JVM is open: " + LIVE);
            }
            cleanupStale();
            Topology t = new Topology(hosts);
            LIVE.add(t);
            try {
                t.build();
            } catch (RuntimeException e) {
                t.close();
                throw e;
            }
            return t;
        }

        private void build() {
            String br = bridgeNamespace();
            addNamespace(br);
            must("ip", "-n", br, "link", "set", "dev", "lo", "up");
            must("ip", "-n", br, "link", "add", "name", "br0", "type", "bridge");
            must("ip", "-n", br, "link", "set", "dev", "br0", "up");
            for (int i = 0; i < hosts; i++) {
                String ns = namespace(i);
                addNamespace(ns);
                must("ip", "-n", ns, "link", "set", "dev", "lo", "up");
                must("ip", "link", "add", "name", port(i), "address", mac(i, 1), "netns", br, "type", "veth",
                    "peer", "name", "eth0", "address", mac(i, 0), "netns", ns);
                must("ip", "-n", br, "link", "set", "dev", port(i), "master", "br0", "up");
                must("ip", "-n", ns, "addr", "add", hostAddress(i) + "/24", "dev", "eth0");
                must("ip", "-n", ns, "link", "set", "dev", "eth0", "up");
            }
            for (int i = 0; i < hosts; i++) {
                for (int j = 0; j < hosts; j++) {
                    if (i != j) {
                        must("ip", "-n", namespace(i), "neigh", "replace", hostAddress(j), "lladdr", mac(j, 0),
                            "dev", "eth0", "nud", "permanent");
                    }
                }
            }
        }

        private synchronized void addNamespace(String ns) {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            must("ip", "netns", "add", ns);
            made.add(ns);
        }

        private static void must(String... command) {
            Result r = run(List.of(command));
            if (!r.ok()) {
                throw new IllegalStateException("`" + String.join(" ", command) + "` exited with " + r.exitCode()
                    + ": " + r.output().trim());
            }
        }

        /** Locally administered MAC {@code 02:72:x:y:side:i}: side 0 is the host's eth0, 1 its bridge port. */
        private String mac(int i, int side) {
            return String.format(Locale.ROOT, "02:72:%02x:%02x:%02x:%02x", x, y, side, i);
        }

        private String port(int i) {
            return "h" + i;
        }

        private void check(int i) {
            if (i < 0 || i >= hosts) {
                throw new IndexOutOfBoundsException("host " + i + " of " + hosts);
            }
        }

        /** @return how many hosts */
        public int hosts() {
            return hosts;
        }

        /**
         * @param i the host
         * @return its IPv4 address, without the prefix length
         */
        public String hostAddress(int i) {
            check(i);
            return "10." + x + "." + y + "." + (i + 1);
        }

        /**
         * @param i the host
         * @return the name of its network namespace
         */
        public String namespace(int i) {
            check(i);
            return base + "h" + i;
        }

        /** @return the name of the bridge's namespace */
        public String bridgeNamespace() {
            return base + "br";
        }

        /**
         * @param i the host
         * @return the words that run a command in host {@code i}: {@code ip netns exec <namespace>}, which exec's
         *     the command (same pid), for {@link ChildJvm.Builder#prefix}
         */
        public List<String> commandPrefix(int i) {
            return List.of("ip", "netns", "exec", namespace(i));
        }

        /**
         * Runs a command in host {@code i} and waits for it (10 s at most).
         *
         * @param i the host
         * @param command the command words
         * @return its exit code and output
         */
        public Result exec(int i, String... command) {
            List<String> cmd = new ArrayList<>(commandPrefix(i));
            Collections.addAll(cmd, command);
            return run(cmd);
        }

        /**
         * Delays every packet that host {@code i} sends by {@code delay} (plus or minus up to {@code jitter}, which
         * also lets packets overtake each other): a {@code netem} queueing discipline at the root of the host's
         * {@code eth0}. It shapes that interface's egress only, so it delays one direction: a round trip between
         * host {@code i} and any other host takes {@code delay} longer (not twice that), and traffic between two
         * other hosts is not affected. Replaces an earlier delay; {@link #heal} removes it.
         *
         * @param i the host
         * @param delay the added one-way delay
         * @param jitter the random variation, or zero
         * @throws IllegalStateException if {@code tc} fails, e.g. without {@code sch_netem}
         *     ({@link NetNs#delayAvailable()})
         */
        public void delay(int i, Duration delay, Duration jitter) {
            check(i);
            List<String> cmd = new ArrayList<>(commandPrefix(i));
            Collections.addAll(cmd, "tc", "qdisc", "replace", "dev", "eth0", "root", "netem", "delay",
                micros(delay));
            if (!jitter.isZero()) {
                cmd.add(micros(jitter));
            }
            must(cmd.toArray(String[]::new));
        }

        private static String micros(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("negative: " + d);
            }
            return (d.toNanos() / 1000) + "us";
        }

        /**
         * Drops each packet to or from host {@code i} with probability {@code percent}/100, each direction
         * independently (so a round trip is lost with probability 1 - (1 - p)^2): a classic BPF filter drawing a
         * random number on both hooks ({@code clsact} ingress and egress) of the host's bridge port. The sender sees
         * nothing (the packet is dropped past its own interface, as on a lossy wire). Replaces an earlier loss;
         * {@link #heal} removes it.
         *
         * @param i the host
         * @param percent 0 to 100
         * @throws IllegalStateException if {@code tc} fails ({@link NetNs#lossAvailable()})
         */
        public void loss(int i, double percent) {
            check(i);
            if (!(percent >= 0 && percent <= 100)) {
                throw new IllegalArgumentException("percent must be in 0..100: " + percent);
            }
            String br = bridgeNamespace();
            run(List.of("ip", "netns", "exec", br, "tc", "qdisc", "del", "dev", port(i), "clsact"));
            must("ip", "netns", "exec", br, "tc", "qdisc", "add", "dev", port(i), "clsact");
            for (String hook : List.of("ingress", "egress")) {
                must("ip", "netns", "exec", br, "tc", "filter", "add", "dev", port(i), hook, "bpf", "da",
                    "bytecode", dropBytecode(percent));
            }
        }

        /**
         * Cuts host {@code i} off: sets its bridge port down ({@code ip link set h<i> down} in the bridge
         * namespace). Packets in both directions then vanish without a trace: the host's own {@code eth0} stays
         * administratively up with its address and routes (it only loses carrier) and its neighbours are permanent,
         * so its sends succeed locally and go nowhere, and nothing answers with a reset or an ICMP error. TCP
         * connections therefore time out (a connect after its connect timeout, an open connection after its
         * retransmissions give up or the application's own timeout) rather than being reset; that is why the port
         * goes down and not the host's own {@code eth0}, whose routes would go with it and make sends fail at
         * once with "network unreachable". {@link #heal} sets the port up again.
         *
         * @param i the host
         */
        public void partition(int i) {
            check(i);
            must("ip", "-n", bridgeNamespace(), "link", "set", "dev", port(i), "down");
        }

        /**
         * Removes every fault of host {@code i}: its delay, its loss, and its partition.
         *
         * @param i the host
         */
        public void heal(int i) {
            check(i);
            // Absent disciplines make these fail; that is fine.
            run(List.of("ip", "netns", "exec", namespace(i), "tc", "qdisc", "del", "dev", "eth0", "root"));
            run(List.of("ip", "netns", "exec", bridgeNamespace(), "tc", "qdisc", "del", "dev", port(i), "clsact"));
            must("ip", "-n", bridgeNamespace(), "link", "set", "dev", port(i), "up");
        }

        /**
         * Deletes every namespace this topology made, which deletes the veth pairs in them. Idempotent; also run by
         * a shutdown hook for a topology left open.
         */
        @Override
        public void close() {
            List<String> toDelete;
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                toDelete = new ArrayList<>(made);
            }
            Collections.reverse(toDelete);
            List<String> failed = new ArrayList<>();
            for (String ns : toDelete) {
                Result r = run(List.of("ip", "netns", "del", ns));
                if (!r.ok()) {
                    failed.add(ns + ": " + r.output().trim());
                }
            }
            LIVE.remove(this);
            if (!failed.isEmpty()) {
                System.err.println("NetNs: could not delete " + failed);
            }
        }

        @Override
        public String toString() {
            return base + " (" + hosts + " hosts)";
        }
    }
}
