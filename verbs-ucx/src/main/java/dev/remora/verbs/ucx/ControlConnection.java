package dev.remora.verbs.ucx;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection of the UCX fabric's connection manager, between a node of this process and a node of another:
 * the out-of-band channel that {@code rdma_cm} and the socket fabric's handshake provide for RDMA, carrying what the
 * UCX data path cannot: who the peer is, its UCX worker address, the remote keys it issued, its published names,
 * queue pair bindings and the revocation of keys. The data (READ, WRITE, atomics, SEND) never crosses it.
 *
 * <h2>Frames</h2>
 * Every frame is {@code int length | byte type | int id | body}, {@code length} counting from {@code type} and at most
 * {@value #MAX_FRAME} bytes; a longer or malformed frame closes the connection with a logged reason and changes
 * nothing. Requests carry a fresh id, replies the id they answer.
 *
 * <h2>Handshake</h2>
 * <pre>
 *   dialer   HELLO      magic, version, nonceD, node id, name, address, incarnation, worker address
 *   listener CHALLENGE  nonceL, node id, name, address, incarnation, worker address,
 *                       HMAC(secret, "remora-ucx-welcome" | nonceD | nonceL | ids)
 *   dialer   PROOF      HMAC(secret, "remora-ucx-hello" | nonceL | nonceD | ids)
 *   listener READY      (or REFUSED with the reason)
 * </pre>
 * Without a cluster secret the MACs are empty (loopback only, see {@link UcxContext#conclude()}). The secret never
 * crosses the wire and the fresh nonces defeat replays, as in the socket fabric.
 *
 * <h2>Requests</h2>
 * After the handshake either end may ask: {@code KEY k} (the base, length, access and packed UCX remote key of the
 * region with key {@code k} of the answering node, or "unknown"), {@code LOOKUP name}, {@code CONNECT_QP} (bind a
 * queue pair of the answering node to one of the asking side) and {@code INVALIDATE k} (forget key {@code k}, and
 * answer once the requests already sent with it have completed).
 */
final class ControlConnection implements AutoCloseable {
    static final Logger LOG = Logger.getLogger(ControlConnection.class.getName());

    static final int MAX_FRAME = 1 << 20;
    static final int MAGIC = 0x524d5558; // "RMUX"
    static final int VERSION = 1;
    static final int NONCE_BYTES = 32;

    static final byte HELLO = 1;
    static final byte CHALLENGE = 2;
    static final byte PROOF = 3;
    static final byte READY = 4;
    static final byte REFUSED = 5;
    static final byte KEY = 10;
    static final byte LOOKUP = 11;
    static final byte CONNECT_QP = 12;
    static final byte INVALIDATE = 13;
    static final byte REPLY = 20;
    static final byte ERROR = 21;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Who is at the other end, as its handshake said. */
    record PeerInfo(int nodeId, String name, String address, long incarnation, byte[] workerAddress) {
    }

    private final UcxFabric fabric;
    /** The node of this process at this end. */
    final UcxNode local;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final Map<Integer, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private volatile PeerInfo peer;
    private volatile boolean closed;
    private volatile String closeReason;

    private ControlConnection(UcxFabric fabric, UcxNode local, Socket socket) throws IOException {
        this.fabric = fabric;
        this.local = local;
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** @return who is at the other end (after the handshake) */
    PeerInfo peer() {
        return peer;
    }

    boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------- dialing and accepting

    /**
     * Connects a local node to the connection manager at an address and runs the dialer's half of the handshake.
     *
     * @param fabric the fabric
     * @param self the local node that introduces this process
     * @param address where the peer listens
     * @return the connection, its reader started
     * @throws IOException if the peer cannot be reached in time or refuses
     */
    static ControlConnection dial(UcxFabric fabric, UcxNode self, InetSocketAddress address) throws IOException {
        long timeoutNs = fabric.context().connectTimeoutNs();
        Socket s = new Socket();
        try {
            s.connect(address, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)));
            s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)));
            ControlConnection c = new ControlConnection(fabric, self, s);
            c.dialerHandshake();
            s.setSoTimeout(0);
            c.startReader();
            return c;
        } catch (SocketTimeoutException e) {
            close(s);
            throw new IOException("no answer from " + address + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs)
                + " ms", e);
        } catch (IOException | RuntimeException e) {
            close(s);
            throw e;
        }
    }

    /**
     * Serves a connection accepted by a local node's listener: the listener's half of the handshake, then requests,
     * on a thread of its own.
     *
     * @param fabric the fabric
     * @param node the listening node
     * @param s the accepted socket
     */
    static void accepted(UcxFabric fabric, UcxNode node, Socket s) {
        Thread t = new Thread(() -> {
            ControlConnection c;
            try {
                s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(fabric.context().connectTimeoutNs())));
                c = new ControlConnection(fabric, node, s);
                c.listenerHandshake();
                s.setSoTimeout(0);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.FINE, "handshake with {0} failed: {1}", new Object[] {s.getRemoteSocketAddress(), e});
                close(s);
                return;
            }
            c.readLoop();
        }, "remora-ucx-control-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    private void startReader() {
        Thread t = new Thread(this::readLoop, "remora-ucx-control-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    private void dialerHandshake() throws IOException {
        byte[] nonceD = nonce();
        send(HELLO, 0, body(o -> {
            o.writeInt(MAGIC);
            o.writeInt(VERSION);
            o.write(nonceD);
            writeSelf(o);
        }));
        Frame f = readFrame();
        if (f.type == REFUSED) {
            throw new IOException("the peer refused: " + f.utf());
        }
        expect(f, CHALLENGE);
        DataInputStream b = f.body();
        byte[] nonceL = b.readNBytes(NONCE_BYTES);
        PeerInfo p = readPeer(b);
        byte[] mac = readBytes(b, 64);
        byte[] wanted = mac("remora-ucx-welcome", nonceD, nonceL, local.id(), p.nodeId());
        if (!MessageDigest.isEqual(mac, wanted)) {
            send(REFUSED, 0, utf("wrong cluster secret"));
            throw new IOException("the peer at " + p.address() + " does not know the cluster secret");
        }
        String clash = fabric.clash(p);
        if (clash != null) {
            send(REFUSED, 0, utf(clash));
            throw new IOException(clash);
        }
        send(PROOF, 0, body(o -> writeBytes(o, mac("remora-ucx-hello", nonceL, nonceD, p.nodeId(), local.id()))));
        Frame r = readFrame();
        if (r.type == REFUSED) {
            throw new IOException("the peer refused: " + r.utf());
        }
        expect(r, READY);
        peer = p;
    }

    private void listenerHandshake() throws IOException {
        Frame f = readFrame();
        expect(f, HELLO);
        DataInputStream b = f.body();
        if (b.readInt() != MAGIC) {
            throw new IOException("not a remora ucx peer (bad magic)");
        }
        int version = b.readInt();
        if (version != VERSION) {
            send(REFUSED, 0, utf("protocol version " + version + ", this node speaks " + VERSION));
            throw new IOException("protocol version " + version);
        }
        byte[] nonceD = b.readNBytes(NONCE_BYTES);
        PeerInfo p = readPeer(b);
        if (local.isCrashed()) {
            throw new IOException("crashed");
        }
        byte[] nonceL = nonce();
        send(CHALLENGE, 0, body(o -> {
            o.write(nonceL);
            writeSelf(o);
            writeBytes(o, mac("remora-ucx-welcome", nonceD, nonceL, p.nodeId(), local.id()));
        }));
        Frame proof = readFrame();
        if (proof.type == REFUSED) {
            throw new IOException("the dialer refused: " + proof.utf());
        }
        expect(proof, PROOF);
        byte[] mac = readBytes(proof.body(), 64);
        if (!MessageDigest.isEqual(mac, mac("remora-ucx-hello", nonceL, nonceD, local.id(), p.nodeId()))) {
            send(REFUSED, 0, utf("wrong cluster secret"));
            throw new IOException("the dialer " + p.address() + " does not know the cluster secret");
        }
        String clash = fabric.clash(p);
        if (clash != null) {
            send(REFUSED, 0, utf(clash));
            throw new IOException(clash);
        }
        peer = p;
        fabric.learnPeer(p, this);
        send(READY, 0, new byte[0]);
    }

    private void writeSelf(DataOutputStream o) throws IOException {
        o.writeInt(local.id());
        o.writeUTF(local.name());
        o.writeUTF(local.address());
        o.writeLong(local.incarnation());
        writeBytes(o, local.workerAddress());
    }

    private static PeerInfo readPeer(DataInputStream b) throws IOException {
        int id = b.readInt();
        String name = b.readUTF();
        String address = b.readUTF();
        long incarnation = b.readLong();
        byte[] worker = readBytes(b, 1 << 16);
        return new PeerInfo(id, name, address, incarnation, worker);
    }

    private static void expect(Frame f, byte type) throws IOException {
        if (f.type != type) {
            throw new IOException("expected frame type " + type + ", got " + f.type);
        }
    }

    private byte[] mac(String label, byte[] a, byte[] b, int idA, int idB) {
        byte[] secret = fabric.context().secretBytes();
        if (secret == null) {
            return new byte[0];
        }
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            m.update(a);
            m.update(b);
            m.update(ByteBuffer.allocate(8).putInt(idA).putInt(idB).array());
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    private static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    // ---------------------------------------------------------------- requests

    /**
     * Sends a request and returns the future of its reply's body (failed with the peer's message for an ERROR).
     *
     * @param type the request type
     * @param body its body
     * @return the reply's body
     */
    CompletableFuture<byte[]> ask(byte type, byte[] body) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        if (closed) {
            f.completeExceptionally(new IOException("control connection closed: " + closeReason));
            return f;
        }
        int id = nextId.getAndIncrement();
        pending.put(id, f);
        try {
            send(type, id, body);
        } catch (IOException e) {
            pending.remove(id);
            f.completeExceptionally(e);
            close("write failed: " + e.getMessage());
        }
        return f;
    }

    /**
     * Sends a request and waits for its reply.
     *
     * @param type the request type
     * @param body its body
     * @param timeoutNs the most to wait
     * @return the reply's body
     * @throws IOException if the connection fails, the peer answers with an error, or no answer comes in time
     */
    byte[] call(byte type, byte[] body, long timeoutNs) throws IOException {
        CompletableFuture<byte[]> f = ask(type, body);
        try {
            return f.get(timeoutNs, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new IOException("no answer from " + describePeer() + " within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException(c.getMessage(), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + describePeer(), e);
        }
    }

    String describePeer() {
        PeerInfo p = peer;
        return p == null ? String.valueOf(socket.getRemoteSocketAddress()) : p.name() + " at " + p.address();
    }

    private void readLoop() {
        try {
            while (!closed) {
                Frame f = readFrame();
                if (f.type == REPLY || f.type == ERROR) {
                    CompletableFuture<byte[]> waiter = pending.remove(f.id);
                    if (waiter != null) {
                        if (f.type == REPLY) {
                            waiter.complete(f.bytes);
                        } else {
                            waiter.completeExceptionally(new IOException(f.utf()));
                        }
                    }
                    continue;
                }
                if (local.isCrashed()) {
                    continue; // a crashed node answers nothing: its peers time out
                }
                serve(f);
            }
        } catch (EOFException e) {
            close("closed by the peer");
        } catch (IOException | RuntimeException e) {
            close(e.toString());
        }
    }

    /** Answers a request on the reader thread; INVALIDATE waits for in-flight requests, so it runs on its own. */
    private void serve(Frame f) throws IOException {
        switch (f.type) {
            case KEY -> {
                int key = f.body().readInt();
                reply(f.id, fabric.keyAnswer(local, key));
            }
            case LOOKUP -> {
                String name = f.body().readUTF();
                reply(f.id, fabric.lookupAnswer(name));
            }
            case CONNECT_QP -> {
                DataInputStream b = f.body();
                int qpn = b.readInt();
                int peerQpn = b.readInt();
                PeerInfo from = readPeer(b);
                try {
                    fabric.bindFromPeer(local, qpn, from, peerQpn, this);
                    reply(f.id, new byte[0]);
                } catch (RuntimeException e) {
                    send(ERROR, f.id, utf(e.getMessage() == null ? e.toString() : e.getMessage()));
                }
            }
            case INVALIDATE -> {
                int key = f.body().readInt();
                PeerInfo p = peer;
                Thread t = new Thread(() -> {
                    fabric.invalidate(p.nodeId(), key);
                    try {
                        reply(f.id, new byte[0]);
                    } catch (IOException e) {
                        close("write failed: " + e.getMessage());
                    }
                }, "remora-ucx-invalidate");
                t.setDaemon(true);
                t.start();
            }
            default -> throw new IOException("unexpected frame type " + f.type);
        }
    }

    private void reply(int id, byte[] body) throws IOException {
        send(REPLY, id, body);
    }

    // ---------------------------------------------------------------- framing

    private record Frame(byte type, int id, byte[] bytes) {
        DataInputStream body() {
            return new DataInputStream(new java.io.ByteArrayInputStream(bytes));
        }

        String utf() throws IOException {
            return body().readUTF();
        }
    }

    private Frame readFrame() throws IOException {
        int length = in.readInt();
        if (length < 5 || length > MAX_FRAME) {
            throw new IOException("malformed frame of length " + length + " (allowed 5.." + MAX_FRAME + ")");
        }
        byte type = in.readByte();
        int id = in.readInt();
        byte[] b = new byte[length - 5];
        in.readFully(b);
        return new Frame(type, id, b);
    }

    private void send(byte type, int id, byte[] body) throws IOException {
        synchronized (out) {
            out.writeInt(5 + body.length);
            out.writeByte(type);
            out.writeInt(id);
            out.write(body);
            out.flush();
        }
    }

    /** Writes a body. */
    @FunctionalInterface
    interface BodyWriter {
        void write(DataOutputStream o) throws IOException;
    }

    static byte[] body(BodyWriter w) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream o = new DataOutputStream(b)) {
            w.write(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    static byte[] utf(String s) {
        return body(o -> o.writeUTF(s.length() > 2000 ? s.substring(0, 2000) : s));
    }

    static void writeBytes(DataOutputStream o, byte[] b) throws IOException {
        o.writeInt(b.length);
        o.write(b);
    }

    static byte[] readBytes(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new IOException("a field of " + n + " bytes (at most " + max + ")");
        }
        return in.readNBytes(n);
    }

    /**
     * Closes the connection; requests waiting for a reply fail.
     *
     * @param reason why, for the requests' messages and the log
     */
    void close(String reason) {
        if (closed) {
            return;
        }
        closeReason = reason;
        closed = true;
        close(socket);
        for (CompletableFuture<byte[]> f : pending.values()) {
            f.completeExceptionally(new IOException("control connection to " + describePeer() + " closed: " + reason));
        }
        pending.clear();
        LOG.log(Level.FINE, "control connection {0} closed: {1}", new Object[] {describePeer(), reason});
        fabric.forgetConnection(this);
    }

    @Override
    public void close() {
        close("closed");
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
