package dev.remora.cli;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code remora serve}: a memory node on the socket fabric (or another provider with {@code --fabric}). It creates the named objects it is given, publishes them,
 * prints one line {@code remora serve: node NAME listening at HOST:PORT (objects: ...)} and stays up until SIGTERM or
 * SIGINT, when a shutdown hook closes the fabric and the process exits 0.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = ServeCommand.EXIT_USAGE,
    description = "Runs a memory node on the socket fabric holding named counters, words, locks and cuckoo tables, "
        + "until SIGTERM.")
public final class ServeCommand implements Callable<Integer> {
    /** Exit code for unknown flags, bad values, a malformed config file or a refused fabric. */
    static final int EXIT_USAGE = 2;
    /** The start of the one line printed once the node listens. */
    static final String LISTENING = "remora serve: node ";

    @Option(names = "--host", defaultValue = SocketContext.HOST_DEFAULT,
        description = "Host or IP address to listen on (default ${DEFAULT-VALUE}); any other than loopback needs a "
            + "cluster secret.")
    String host;

    @Option(names = "--port", defaultValue = "0", description = "Port to listen on (default ${DEFAULT-VALUE}: an "
        + "ephemeral port, printed).")
    int port;

    @Option(names = "--fabric", defaultValue = "socket", paramLabel = "PROVIDER", description = "The provider the "
        + "node serves on: socket (default), disni (RDMA hardware; --host is the RDMA interface's address), ucx, or "
        + "any on the class path.")
    String fabricName;

    @Option(names = "--name", defaultValue = "home", description = "The node's name (default ${DEFAULT-VALUE}).")
    String name;

    @CommandLine.Mixin
    SecretFileOption secret;

    @Option(names = "--retry-timeout-ms", paramLabel = "MS", description = "How long a request to a silent peer may "
        + "go unanswered before it fails RETRY_EXC_ERR (default 1000).")
    Long retryTimeoutMs;

    @Option(names = "--counter", paramLabel = "NAME", description = "Create and publish a RemoteCounter (repeatable).")
    List<String> counters = new ArrayList<>();

    @Option(names = "--word", paramLabel = "NAME", description = "Create and publish a plain 8-byte word with every "
        + "remote access (repeatable).")
    List<String> words = new ArrayList<>();

    @Option(names = "--lock", paramLabel = "KIND:NAME", description = "Create and publish a lock; KIND is one of "
        + ServeObjects.LOCK_KINDS + " (a lease lock's fenced register is published as NAME" + ServeObjects.FENCE_SUFFIX
        + "). Repeatable.")
    List<String> locks = new ArrayList<>();

    @Option(names = "--kv", paramLabel = "NAME", description = "Create and publish a CuckooMap table of the shape the "
        + "--kv-* flags give (repeatable); clients attach it with CuckooMap.attach(endpoint, fabric.lookup(NAME)).")
    List<String> kvs = new ArrayList<>();

    @Option(names = "--kv-rows", defaultValue = "16384", description = "A table's rows, a power of two (default "
        + "${DEFAULT-VALUE}).")
    int kvRows;

    @Option(names = "--kv-slots", defaultValue = "4", description = "A table's slots per row, 1..64 (default "
        + "${DEFAULT-VALUE}).")
    int kvSlots;

    @Option(names = "--kv-key-bytes", defaultValue = "16", description = "A table's largest key in bytes, 16..255 "
        + "(default ${DEFAULT-VALUE}).")
    int kvKeyBytes;

    @Option(names = "--kv-value-bytes", defaultValue = "32", description = "A table's largest value in bytes, "
        + "32..4096 (default ${DEFAULT-VALUE}).")
    int kvValueBytes;

    @Option(names = "--kv-clients", defaultValue = "1024", description = "A table's client ids: handles ever attached, "
        + "never reused, 1..65535 (default ${DEFAULT-VALUE}).")
    int kvClients;

    @Option(names = "--config", paramLabel = "FILE", description = "A file of objects, one a line: 'counter NAME', "
        + "'word NAME', 'lock KIND NAME', '" + ServeObjects.KV_LINE + "'; # starts a comment.")
    Path config;

    @Option(names = "--mcs-capacity", defaultValue = "64", description = "Handles an MCS lock admits "
        + "(default ${DEFAULT-VALUE}).")
    int mcsCapacity;

    @Option(names = "--lease-ms", defaultValue = "1000", description = "A lease lock's lease length in ms "
        + "(default ${DEFAULT-VALUE}).")
    long leaseMs;

    @Option(names = "--lease-margin-ms", defaultValue = "100", description = "A lease lock's safety margin in ms "
        + "(default ${DEFAULT-VALUE}).")
    long leaseMarginMs;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public ServeCommand() {
    }

    @Override
    public Integer call() throws Exception {
        ServeObjects objects = new ServeObjects();
        SocketContext context = new SocketContext().host(host).port(port);
        String secretValue;
        try {
            objects.kvDefaults(new ServeObjects.KvShape(kvRows, kvSlots, kvKeyBytes, kvValueBytes, kvClients));
            for (String c : counters) {
                objects.add(new ServeObjects.Spec(ServeObjects.Kind.COUNTER, c), "--counter " + c);
            }
            for (String w : words) {
                objects.add(new ServeObjects.Spec(ServeObjects.Kind.WORD, w), "--word " + w);
            }
            for (String l : locks) {
                objects.add(ServeObjects.parseLockFlag(l), "--lock " + l);
            }
            for (String k : kvs) {
                objects.add(new ServeObjects.Spec(ServeObjects.Kind.KV, k, objects.kvDefaults()), "--kv " + k);
            }
            if (config != null) {
                objects.readConfig(config);
            }
            if (mcsCapacity < 1 || mcsCapacity > (1 << 20)) {
                throw new ServeObjects.ConfigException("--mcs-capacity must be in 1..2^20: " + mcsCapacity);
            }
            if (leaseMarginMs <= 0 || leaseMarginMs >= leaseMs) {
                throw new ServeObjects.ConfigException("need 0 < --lease-margin-ms < --lease-ms: " + leaseMarginMs
                    + ", " + leaseMs);
            }
            if (retryTimeoutMs != null) {
                if (retryTimeoutMs <= 0 || retryTimeoutMs > 3_600_000) {
                    throw new ServeObjects.ConfigException("--retry-timeout-ms must be in 1..3600000: "
                        + retryTimeoutMs);
                }
                context.retryTimeoutNs(retryTimeoutMs * 1_000_000);
            }
            secretValue = secret.read();
            if (secretValue != null) {
                context.secret(secretValue);
            }
        } catch (ServeObjects.ConfigException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } catch (IOException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "cannot read " + e.getMessage() + " ("
                + e.getClass().getSimpleName() + ")");
        }
        Fabric fabric;
        Node home;
        String published;
        try {
            if (fabricName.equals("socket")) {
                fabric = SocketFabric.open(context);
            } else {
                if (retryTimeoutMs != null) {
                    throw new IllegalArgumentException("--retry-timeout-ms applies to the socket fabric; on "
                        + fabricName + " the transport's retries decide");
                }
                java.util.Map<String, String> props = new java.util.LinkedHashMap<>();
                props.put("host", host);
                props.put("port", Integer.toString(port));
                if (secretValue != null) {
                    props.put("secret", secretValue);
                }
                fabric = Fabric.open(fabricName, props);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("remora serve: " + e.getMessage());
            return e instanceof IllegalArgumentException ? EXIT_USAGE : 1;
        }
        try {
            home = fabric.addNode(name);
            published = objects.createAndPublish(fabric, home,
                new ServeObjects.LockSettings(mcsCapacity, leaseMs * 1_000_000, leaseMarginMs * 1_000_000));
        } catch (RuntimeException e) {
            fabric.close();
            System.err.println("remora serve: " + e.getMessage());
            return e instanceof IllegalArgumentException ? EXIT_USAGE : 1;
        }
        PrintStream out = System.out;
        String address = home.address();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            int code = 0;
            try {
                fabric.close();
                out.println("remora serve: node " + name + " at " + address + " closed on a termination signal; "
                    + "exiting");
            } catch (RuntimeException e) {
                out.println("remora serve: node " + name + " at " + address + " could not close: " + e);
                code = 1;
            }
            out.flush();
            // The JVM would exit with 128 + the signal's number after its hooks; a requested stop is a normal exit.
            Runtime.getRuntime().halt(code);
        }, "remora-serve-shutdown"));
        out.println(LISTENING + name + " listening at " + address + " (objects: " + published + ")");
        out.flush();
        new CountDownLatch(1).await(); // until the shutdown hook halts the JVM
        return 0;
    }
}
