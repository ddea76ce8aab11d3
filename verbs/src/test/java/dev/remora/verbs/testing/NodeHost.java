package dev.remora.verbs.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link NodeHostMain} child JVM and its remote-control connection, as the test process sees it. One host serves
 * one {@link HostedSocketFabric} at a time and outlives it, so that a test class starts one child process, not one
 * per test. Calls are serialized: each is one request and its answer, under this object's lock.
 */
public final class NodeHost implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("NODEHOST (\\d+)");
    /** A command that does not answer within this long means the child is stuck: the call fails. */
    private static final int ANSWER_TIMEOUT_MS = 30_000;

    private final ChildJvm child;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int nextRequest;
    private boolean broken;

    private NodeHost(ChildJvm child, Socket socket) throws IOException {
        this.child = child;
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /**
     * Starts a node host child JVM and connects to it.
     *
     * @return the host
     */
    public static NodeHost start() {
        return start(new String[0]);
    }

    /**
     * Starts a node host child JVM with JVM options added to the defaults (e.g.
     * {@code --enable-native-access=ALL-UNNAMED} for a provider calling native code) and connects to it.
     *
     * @param jvmOptions the options to add
     * @return the host
     */
    public static NodeHost start(String... jvmOptions) {
        ChildJvm child = ChildJvm.builder(NodeHostMain.class).addJvmOptions(jvmOptions).name("nodehost").start();
        try {
            Matcher m = child.awaitLine(READY, Duration.ofSeconds(30));
            Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(m.group(1)));
            s.setTcpNoDelay(true);
            s.setSoTimeout(ANSWER_TIMEOUT_MS);
            return new NodeHost(child, s);
        } catch (IOException | RuntimeException e) {
            child.close();
            throw new IllegalStateException("cannot start the node host: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            child.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the node host", e);
        }
    }

    /** @return the child process */
    public ChildJvm child() {
        return child;
    }

    /** Writes a command's arguments. */
    @FunctionalInterface
    interface Args {
        void write(DataOutputStream out) throws IOException;
    }

    /** Reads a command's results. */
    @FunctionalInterface
    interface Results<T> {
        T read(DataInputStream in) throws IOException;
    }

    /** Arguments of a command that takes none. */
    static final Args NONE = out -> { };

    /**
     * Runs a command in the child and reads its results; an exception the command threw there is thrown here as the
     * same class with the same message when it is a runtime exception with a message constructor.
     */
    synchronized <T> T call(int command, Args args, Results<T> results) {
        if (broken) {
            throw new IllegalStateException("the node host connection is broken; child output:\n" + child.output());
        }
        int id = ++nextRequest;
        try {
            out.writeInt(id);
            out.writeInt(command);
            args.write(out);
            out.flush();
            int answered = in.readInt();
            if (answered != id) {
                broken = true;
                throw new IllegalStateException("node host answered request " + answered + " to request " + id);
            }
            if (in.readByte() == HostWire.OK) {
                return results.read(in);
            }
            throw rethrown(in.readUTF(), in.readUTF());
        } catch (IOException e) {
            broken = true;
            throw new UncheckedIOException("node host command " + command + " failed: " + e.getMessage()
                + "; child output:\n" + child.output(), e);
        }
    }

    /** Runs a command that returns nothing. */
    void run(int command, Args args) {
        call(command, args, in -> null);
    }

    private static RuntimeException rethrown(String className, String message) {
        try {
            Class<?> c = Class.forName(className);
            if (RuntimeException.class.isAssignableFrom(c)) {
                Constructor<?> k = c.getConstructor(String.class);
                return (RuntimeException) k.newInstance(message);
            }
        } catch (ReflectiveOperationException | LinkageError ignored) {
            // not rebuildable: reported as below
        }
        return new IllegalStateException("node host: " + className + ": " + message);
    }

    /** Ends the connection (the child then exits) and kills the child if it has not. */
    @Override
    public synchronized void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            child.awaitExit(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
            // killed below
        }
        child.close();
    }
}
