package dev.remora.bench.socket;

import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The raw baseline of the socket fabric's round trips: 8-byte TCP ping-pongs over loopback, one outstanding, with
 * nothing else in the way (no framing, no work requests, no completion queue). The socket fabric's benchmarks print
 * their 8-byte READ and CAS round trips beside these numbers, measured in the same run.
 *
 * <p>The server answers every 8-byte message with the same 8 bytes, on a single thread, in one of two ways:
 * {@link ServerKind#BLOCKING} (a blocking {@link SocketChannel}, one connection at a time) or
 * {@link ServerKind#SELECTOR} (non-blocking channels on a {@link Selector}, as a fabric's service thread serves its
 * connections). Both set {@code TCP_NODELAY}, as does the client. Usage:
 * <pre>
 * java -cp bench/target/remora-bench.jar dev.remora.bench.socket.NioPingPong both [--warmup N] [--iterations N]
 * java -cp bench/target/remora-bench.jar dev.remora.bench.socket.NioPingPong server [--selector]
 * java -cp bench/target/remora-bench.jar dev.remora.bench.socket.NioPingPong client HOST PORT [--warmup N]
 *     [--iterations N]
 * </pre>
 * {@code both} starts each kind of server in turn as a child JVM (another OS process, so the round trip crosses
 * processes as the fabric's does), runs 20,000 warm-up and 200,000 measured round trips against it, and prints the
 * percentiles in microseconds; {@code server} prints {@code LISTENING <port>} and serves 127.0.0.1 until killed;
 * {@code client} measures against a running server.
 */
public final class NioPingPong {
    /** The size of a ping and of its pong. */
    public static final int MESSAGE_BYTES = 8;
    /** Warm-up round trips of {@code both} and {@code client}, unless {@code --warmup} says otherwise. */
    public static final int DEFAULT_WARMUP = 20_000;
    /** Measured round trips of {@code both} and {@code client}, unless {@code --iterations} says otherwise. */
    public static final int DEFAULT_ITERATIONS = 200_000;
    /** The longest round trip the histogram records exactly (longer ones are clamped to it). */
    private static final long MAX_NS = TimeUnit.SECONDS.toNanos(10);

    private NioPingPong() {
    }

    /** How the server serves its connections. */
    public enum ServerKind {
        /** One blocking channel at a time, read 8, write 8. */
        BLOCKING("blocking SocketChannel"),
        /** Non-blocking channels on one selector, woken by {@code select()}. */
        SELECTOR("Selector, non-blocking");

        final String description;

        ServerKind(String description) {
            this.description = description;
        }
    }

    /** A listening echo server on 127.0.0.1; {@link #serve()} runs it on the calling thread until closed. */
    public static final class Server implements AutoCloseable {
        private final ServerKind kind;
        private final ServerSocketChannel listener;
        private final Selector selector;
        private volatile boolean closed;

        private Server(ServerKind kind) throws IOException {
            this.kind = kind;
            this.listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.selector = kind == ServerKind.SELECTOR ? Selector.open() : null;
        }

        /**
         * @param kind how to serve
         * @return a server listening on a free port of 127.0.0.1
         * @throws IOException if it cannot listen
         */
        public static Server open(ServerKind kind) throws IOException {
            return new Server(kind);
        }

        /** @return the port it listens on */
        public int port() {
            return listener.socket().getLocalPort();
        }

        /**
         * Serves until {@link #close()}.
         *
         * @throws IOException on an I/O error other than the close
         */
        public void serve() throws IOException {
            try {
                if (kind == ServerKind.BLOCKING) {
                    serveBlocking();
                } else {
                    serveSelector();
                }
            } catch (ClosedChannelException | ClosedSelectorException e) {
                if (!closed) {
                    throw e;
                }
            }
        }

        private void serveBlocking() throws IOException {
            ByteBuffer buf = ByteBuffer.allocateDirect(MESSAGE_BYTES);
            while (!closed) {
                try (SocketChannel c = listener.accept()) {
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    while (true) {
                        buf.clear();
                        if (!readFully(c, buf)) {
                            break; // the client closed the connection
                        }
                        buf.flip();
                        while (buf.hasRemaining()) {
                            c.write(buf);
                        }
                    }
                } catch (IOException e) {
                    if (closed) {
                        throw new ClosedChannelException();
                    }
                    // a client that vanished mid-message: serve the next one
                }
            }
        }

        private void serveSelector() throws IOException {
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
            while (!closed) {
                selector.select();
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    try {
                        if (k.isAcceptable()) {
                            SocketChannel c = listener.accept();
                            if (c != null) {
                                c.configureBlocking(false);
                                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                c.register(selector, SelectionKey.OP_READ, ByteBuffer.allocateDirect(MESSAGE_BYTES));
                            }
                        } else {
                            step(k);
                        }
                    } catch (IOException e) {
                        if (k.channel() != listener) {
                            k.channel().close(); // that client is gone; the others are served on
                        } else {
                            throw e;
                        }
                    }
                }
            }
        }

        /** Reads into the connection's 8-byte buffer and echoes it once full, waiting for writability if need be. */
        private static void step(SelectionKey k) throws IOException {
            SocketChannel c = (SocketChannel) k.channel();
            ByteBuffer buf = (ByteBuffer) k.attachment();
            if (k.isReadable()) {
                if (c.read(buf) < 0) {
                    c.close();
                    return;
                }
                if (buf.hasRemaining()) {
                    return; // part of a message: wait for the rest
                }
                buf.flip();
            }
            c.write(buf);
            if (buf.hasRemaining()) {
                k.interestOps(SelectionKey.OP_WRITE);
            } else {
                buf.clear();
                k.interestOps(SelectionKey.OP_READ);
            }
        }

        /** Stops {@link #serve()}: closes the listener (and the selector, with its channels). */
        @Override
        public void close() throws IOException {
            closed = true;
            listener.close();
            if (selector != null) {
                for (SelectionKey k : selector.keys()) {
                    k.channel().close();
                }
                selector.close();
            }
        }
    }

    private static boolean readFully(SocketChannel c, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (c.read(buf) < 0) {
                if (buf.position() == 0) {
                    return false;
                }
                throw new IOException("connection closed in the middle of a message");
            }
        }
        return true;
    }

    /**
     * Measures 8-byte round trips against a server: connects with a blocking channel and {@code TCP_NODELAY}, then
     * sends a ping and waits for its pong, one at a time, first {@code warmup} times unrecorded, then
     * {@code iterations} times recorded. Each ping carries its sequence number, and the pong must carry it back.
     *
     * @param host the server's host
     * @param port its port
     * @param warmup round trips before recording
     * @param iterations round trips recorded
     * @return the recorded round trips in nanoseconds (count {@code iterations})
     * @throws IOException if the connection fails or a pong is wrong
     */
    public static Histogram run(String host, int port, int warmup, int iterations) throws IOException {
        Histogram h = new Histogram(MAX_NS, 3);
        try (SocketChannel c = SocketChannel.open(new InetSocketAddress(host, port))) {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer out = ByteBuffer.allocateDirect(MESSAGE_BYTES);
            ByteBuffer in = ByteBuffer.allocateDirect(MESSAGE_BYTES);
            long total = (long) warmup + iterations;
            for (long seq = 0; seq < total; seq++) {
                out.clear();
                out.putLong(0, seq);
                in.clear();
                long t0 = System.nanoTime();
                while (out.hasRemaining()) {
                    c.write(out);
                }
                if (!readFully(c, in)) {
                    throw new IOException("the server closed the connection after " + seq + " round trips");
                }
                long ns = System.nanoTime() - t0;
                if (in.getLong(0) != seq) {
                    throw new IOException("pong " + in.getLong(0) + " for ping " + seq);
                }
                if (seq >= warmup) {
                    h.recordValue(Math.min(ns, MAX_NS));
                }
            }
        }
        return h;
    }

    /**
     * Starts a server as a child JVM with this JVM's class path, and waits for its {@code LISTENING} line.
     *
     * @param kind how it serves
     * @return the child, and the port it listens on
     * @throws IOException if it cannot start or does not say it listens
     */
    static Child startChild(ServerKind kind) throws IOException {
        String java = ProcessHandle.current().info().command()
            .orElseGet(() -> Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-Xmx128m", "-cp",
            System.getProperty("java.class.path"), NioPingPong.class.getName(), "server", "--exit-on-stdin-eof"));
        if (kind == ServerKind.SELECTOR) {
            cmd.add("--selector");
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread reaper = new Thread(p::destroyForcibly, "NioPingPong-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        Matcher m = line == null ? null : Pattern.compile("^LISTENING (\\d+)$").matcher(line);
        if (m == null || !m.matches()) {
            p.destroyForcibly();
            throw new IOException("the server child printed " + line + " instead of LISTENING <port>");
        }
        return new Child(p, Integer.parseInt(m.group(1)), reaper);
    }

    /** A server child process. */
    record Child(Process process, int port, Thread reaper) implements AutoCloseable {
        @Override
        public void close() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs anyway
            }
        }
    }

    /**
     * Prints one line of percentiles.
     *
     * @param out where
     * @param label the left column
     * @param h round trips in nanoseconds
     */
    public static void print(PrintStream out, String label, Histogram h) {
        out.printf(Locale.ROOT, "%-44s n=%d  p50 %7.1f  p99 %7.1f  p99.9 %7.1f  max %8.1f  mean %6.1f us%n", label,
            h.getTotalCount(), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(99)),
            us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()), h.getMean() / 1000.0);
    }

    private static double us(long ns) {
        return ns / 1000.0;
    }

    /**
     * @param args {@code both|server|client ...}, see the class comment
     * @throws Exception on an I/O error
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: NioPingPong both|server|client ... (see the class comment)");
        }
        int warmup = DEFAULT_WARMUP;
        int iterations = DEFAULT_ITERATIONS;
        boolean selector = false;
        boolean exitOnEof = false;
        List<String> positional = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--selector" -> selector = true;
                case "--exit-on-stdin-eof" -> exitOnEof = true;
                default -> positional.add(args[i]);
            }
        }
        if (warmup < 0 || iterations < 1) {
            throw new IllegalArgumentException("need --warmup >= 0 and --iterations >= 1");
        }
        switch (args[0]) {
            case "server" -> {
                Server s = Server.open(selector ? ServerKind.SELECTOR : ServerKind.BLOCKING);
                if (exitOnEof) {
                    // The parent holds our stdin: when it goes (even by SIGKILL), so do we.
                    Thread watch = new Thread(() -> {
                        try {
                            while (System.in.read() >= 0) {
                                // discard
                            }
                        } catch (IOException e) {
                            // same as end of file
                        }
                        System.exit(0);
                    }, "stdin-watch");
                    watch.setDaemon(true);
                    watch.start();
                }
                System.out.println("LISTENING " + s.port());
                System.out.flush();
                s.serve();
            }
            case "client" -> {
                if (positional.size() != 2) {
                    throw new IllegalArgumentException("usage: client HOST PORT [--warmup N] [--iterations N]");
                }
                Histogram h = run(positional.get(0), Integer.parseInt(positional.get(1)), warmup, iterations);
                print(System.out, "8-byte ping-pong to " + positional.get(0) + ":" + positional.get(1), h);
            }
            case "both" -> {
                System.out.printf(Locale.ROOT, "raw NIO 8-byte TCP ping-pong over 127.0.0.1, server in a child JVM,"
                    + " %,d warm-up + %,d measured round trips, one outstanding%n", warmup, iterations);
                for (ServerKind kind : ServerKind.values()) {
                    try (Child child = startChild(kind)) {
                        Histogram h = run("127.0.0.1", child.port(), warmup, iterations);
                        print(System.out, "server: " + kind.description, h);
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0] + ": both|server|client");
        }
    }
}
