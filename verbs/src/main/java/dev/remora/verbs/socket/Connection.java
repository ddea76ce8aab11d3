package dev.remora.verbs.socket;

import dev.remora.verbs.Access;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One TCP connection of the socket fabric, either a queue pair's (both ends' requests and responses) or a control
 * connection (lookups). It owns the socket's buffers, parses frames, runs the handshake, and is the <em>responder</em>:
 * it executes the peer's one-sided requests on this end's node memory, one at a time in arrival order, on the
 * service thread, so the application threads of this node take no part.
 *
 * <p>Everything here is guarded by this object's monitor (the service thread and posting threads both take it).
 * A frame that is malformed, truncated, oversized, of an unknown type or not allowed in the connection's state closes
 * the connection with a logged reason; nothing of it has touched memory, because every frame is checked whole
 * before it is acted on, and a request whose key, bounds or access flags are wrong is refused with a status.
 */
final class Connection {
    static final Logger LOG = Logger.getLogger("dev.remora.verbs.socket");

    enum State { CONNECTING, AWAIT_CHALLENGE, AWAIT_HELLO, AWAIT_WELCOME, ACTIVE, CLOSED }

    /** What the client learns from the handshake. */
    record Welcome(int peerNodeId, String peerName, long incarnation, int peerQpn) {
    }

    final SocketFabric fabric;
    final SocketChannel channel;
    final boolean client;
    /** This end's node (the listener's node on the server side). */
    final SocketNode node;
    /** PURPOSE_QP or PURPOSE_CONTROL: the dialer's choice, which the server learns from HELLO. */
    private byte purpose;
    private final int bindQpn;
    SelectionKey key;
    private State state;
    /** This end's queue pair, once bound; null for a control connection. */
    private SocketQueuePair qp;

    final ByteBuffer in = ByteBuffer.allocate(2 * Wire.MAX_FRAME);
    final ByteBuffer out;

    private byte[] myNonce;
    private byte[] peerNonce;
    private long handshakeDeadlineNs;
    final CompletableFuture<Welcome> welcome = new CompletableFuture<>();
    private int peerNodeId = -1;
    private String peerName = "?";
    private long peerIncarnation;
    private String peerAddress;

    // responder state
    private int expectedSeq;
    private boolean responderError;
    private int writeSeq = -1;
    private SocketRegion writeRegion;
    private int writeIndex;
    private int writeTotal;
    private int writeDone;
    private int readSeq = -1;
    private SocketRegion readRegion;
    private int readIndex;
    private int readTotal;
    private int readDone;
    private long sendStallDeadlineNs;
    /** The node crashed: read and drop everything, answer nothing. */
    private boolean silenced;

    // control
    private final Map<Integer, CompletableFuture<RemoteAddress>> lookups = new HashMap<>();
    private final Map<Integer, String> lookupNames = new HashMap<>();
    private int nextLookup;
    private String closeReason;

    private Connection(SocketFabric fabric, SocketChannel channel, boolean client, SocketNode node, byte purpose,
                       int bindQpn, State state) {
        this.fabric = fabric;
        this.channel = channel;
        this.client = client;
        this.node = node;
        this.purpose = purpose;
        this.bindQpn = bindQpn;
        this.state = state;
        this.out = ByteBuffer.allocateDirect(4 * Wire.MAX_FRAME);
        this.handshakeDeadlineNs = System.nanoTime() + fabric.context().connectTimeoutNs();
    }

    /** A connection accepted by a node's listener: it sends its challenge at once. */
    static Connection accepted(SocketFabric fabric, SocketChannel channel, SocketNode node) {
        Connection c = new Connection(fabric, channel, false, node, (byte) 0, -1, State.AWAIT_HELLO);
        synchronized (c) {
            c.myNonce = Handshake.nonce();
            ByteBuffer o = c.out;
            int f = Wire.begin(o, Wire.CHALLENGE);
            o.putLong(node.incarnation()).putInt(node.id()).put((byte) (fabric.handshake().hasSecret() ? 1 : 0))
                .put(c.myNonce);
            Wire.putName(o, node.name());
            Wire.end(o, f);
        }
        return c;
    }

    /** A connection this node opens to a peer's address. */
    static Connection dialing(SocketFabric fabric, SocketChannel channel, SocketNode node, byte purpose, int bindQpn,
                              String address) {
        Connection c = new Connection(fabric, channel, true, node, purpose, bindQpn, State.CONNECTING);
        c.peerAddress = address;
        return c;
    }

    /** A connection that never came up, so that a queue pair to an unreachable peer has one. */
    static Connection dead(SocketFabric fabric, SocketNode node, String address, String reason) {
        Connection c = new Connection(fabric, null, true, node, Wire.PURPOSE_QP, -1, State.CLOSED);
        c.peerAddress = address;
        c.closeReason = reason;
        return c;
    }

    synchronized State state() {
        return state;
    }

    synchronized String closeReason() {
        return closeReason;
    }

    synchronized void bindQueuePair(SocketQueuePair q) {
        qp = q;
    }

    // ------------------------------------------------------------------ events (service thread)

    synchronized void onConnectable() {
        try {
            if (channel.finishConnect()) {
                state = State.AWAIT_CHALLENGE;
                updateInterest();
            }
        } catch (IOException e) {
            close("cannot connect to " + peerAddress + ": " + e.getMessage());
        }
    }

    synchronized void onReadable() {
        if (state == State.CLOSED) {
            return;
        }
        int n;
        try {
            n = channel.read(in);
        } catch (IOException e) {
            close("connection to " + describePeer() + " failed: " + e.getMessage());
            return;
        }
        if (n < 0) {
            close("connection closed by " + describePeer());
            return;
        }
        if (silenced) {
            in.clear();
            return;
        }
        process();
    }

    /**
     * Reads and acts on what the socket holds, from a thread polling its completion queue (the service thread does
     * the same when the selector reports the socket readable; whoever comes first reads).
     *
     * @return whether something was read
     */
    boolean pollResponses() {
        synchronized (this) {
            if (state != State.ACTIVE || silenced || !in.hasRemaining()) {
                return false;
            }
            int n;
            try {
                n = channel.read(in);
            } catch (IOException e) {
                close("connection to " + describePeer() + " failed: " + e.getMessage());
                return true;
            }
            if (n < 0) {
                close("connection closed by " + describePeer());
                return true;
            }
            if (n == 0) {
                return false;
            }
            process(true);
            if (in.position() > 0) {
                fabric.loop().execute(this::resume); // a peer's request was left for the service thread
            }
            return true;
        }
    }

    synchronized void onWritable() {
        if (state == State.CLOSED) {
            return;
        }
        flushOutput();
        if (state != State.CLOSED && !silenced) {
            process();
        }
    }

    /** Called by the service thread's timer. */
    synchronized void tick(long now) {
        if (state == State.CLOSED) {
            return;
        }
        if (state != State.ACTIVE) {
            if (now - handshakeDeadlineNs > 0) {
                close("handshake with " + describePeer() + " timed out");
            }
            return;
        }
        if (qp != null) {
            qp.checkTimeout(now, fabric.context().retryTimeoutNs());
            if (qp.hasDelayed()) {
                qp.deliverDue(now);
                qp.pump(out);
                flushOutput();
            }
        }
        if (sendStallDeadlineNs != 0 && !silenced) {
            process();
        }
    }

    /** A receive was posted on this end's queue pair: a stalled SEND may go on. */
    void receivePosted() {
        fabric.loop().execute(() -> {
            synchronized (this) {
                if (sendStallDeadlineNs != 0 && state == State.ACTIVE && !silenced) {
                    process();
                }
            }
        });
    }

    private synchronized void resume() {
        if (state == State.ACTIVE && !silenced) {
            process();
        }
    }

    /** The node crashed: stop answering, so peers time out (R20). */
    synchronized void silence() {
        silenced = true;
        in.clear();
        out.clear();
    }

    // ------------------------------------------------------------------ frames

    /** Parses and acts on every complete frame, as far as the responder is not blocked. */
    private void process() {
        process(false);
    }

    /**
     * Parses and acts on complete frames.
     *
     * @param responsesOnly stop at the first request: a polling application thread completes its own requests but
     *     never executes a peer's (the service thread does: user code never does the target's work)
     */
    private void process(boolean responsesOnly) {
        in.flip();
        try {
            while (state != State.CLOSED) {
                if (in.remaining() < Wire.LENGTH_BYTES) {
                    break;
                }
                int start = in.position();
                int len = in.getInt(start);
                if (len < 2 || len > Wire.MAX_FRAME) {
                    throw new MalformedFrameException("frame length " + len + " outside 2.." + Wire.MAX_FRAME);
                }
                if (in.remaining() < Wire.LENGTH_BYTES + len) {
                    break;
                }
                byte version = in.get(start + 4);
                if (version != Wire.VERSION) {
                    throw new MalformedFrameException("protocol version " + version + ", this node speaks "
                        + Wire.VERSION);
                }
                byte type = in.get(start + 5);
                if ((type == Wire.REQUEST || type == Wire.LOOKUP) && (responsesOnly || responderBlocked())) {
                    break; // its answer needs room in the output; responses never wait, so two full ends drain
                }
                ByteBuffer body = in.slice(start + 6, len - 2);
                if (!handle(type, body)) {
                    break; // a SEND waits for a receive: the frame stays in the buffer
                }
                in.position(start + Wire.LENGTH_BYTES + len);
            }
        } catch (MalformedFrameException e) {
            in.clear();
            closeMalformed(e.getMessage());
            return;
        }
        if (state == State.CLOSED) {
            return;
        }
        in.compact();
        streamRead();
        if (qp != null) {
            qp.pump(out);
        }
        flushOutput();
    }

    private boolean responderBlocked() {
        return readSeq >= 0 || out.remaining() < Wire.MAX_FRAME + 64;
    }

    private boolean handle(byte type, ByteBuffer body) throws MalformedFrameException {
        switch (state) {
            case AWAIT_HELLO -> {
                expect(type, Wire.HELLO);
                onHello(body);
            }
            case AWAIT_CHALLENGE -> {
                if (type == Wire.REJECT) {
                    onReject(body);
                    return true;
                }
                expect(type, Wire.CHALLENGE);
                onChallenge(body);
            }
            case AWAIT_WELCOME -> {
                if (type == Wire.REJECT) {
                    onReject(body);
                    return true;
                }
                expect(type, Wire.WELCOME);
                onWelcome(body);
            }
            case ACTIVE -> {
                return active(type, body);
            }
            default -> throw new MalformedFrameException(Wire.typeName(type) + " frame in state " + state);
        }
        return true;
    }

    private void expect(byte type, byte wanted) throws MalformedFrameException {
        if (type != wanted) {
            throw new MalformedFrameException(Wire.typeName(type) + " frame where " + Wire.typeName(wanted)
                + " was expected (state " + state + ")");
        }
    }

    private boolean active(byte type, ByteBuffer body) throws MalformedFrameException {
        switch (type) {
            case Wire.REQUEST -> {
                if (purpose != Wire.PURPOSE_QP || qp == null) {
                    throw new MalformedFrameException("REQUEST frame on a control connection");
                }
                return onRequest(body);
            }
            case Wire.RESPONSE -> {
                requireQp(type);
                Wire.exact(body, Wire.RESPONSE_BODY, "RESPONSE");
                int seq = body.getInt();
                WcStatus status = Wire.status(body.get());
                long value = body.getLong();
                qp.onResponse(seq, status, value);
            }
            case Wire.READ_DATA -> {
                requireQp(type);
                Wire.need(body, Wire.READ_DATA_HEAD, "READ_DATA header");
                int seq = body.getInt();
                int offset = body.getInt();
                int chunk = body.getInt();
                Wire.exact(body, chunk, "READ_DATA payload");
                qp.onReadData(seq, offset, chunk, body);
            }
            case Wire.LOOKUP -> {
                if (purpose != Wire.PURPOSE_CONTROL || client) {
                    throw new MalformedFrameException("LOOKUP frame on a queue pair's connection");
                }
                Wire.need(body, 4, "LOOKUP id");
                int id = body.getInt();
                String name = Wire.getName(body, "LOOKUP name");
                Wire.done(body, "LOOKUP");
                RemoteAddress a = fabric.directory().find(name);
                if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.FOUND_BODY) {
                    throw new MalformedFrameException("LOOKUP flood: the peer does not read its answers");
                }
                int f = Wire.begin(out, Wire.FOUND);
                out.putInt(id).put((byte) (a == null ? 0 : 1)).putInt(a == null ? 0 : a.nodeId())
                    .putInt(a == null ? 0 : a.rkey()).putLong(a == null ? 0 : a.address());
                Wire.end(out, f);
            }
            case Wire.FOUND -> {
                if (purpose != Wire.PURPOSE_CONTROL || !client) {
                    throw new MalformedFrameException("FOUND frame not answering a lookup");
                }
                Wire.exact(body, Wire.FOUND_BODY, "FOUND");
                int id = body.getInt();
                boolean found = body.get() != 0;
                RemoteAddress a = new RemoteAddress(body.getInt(), body.getInt(), body.getLong());
                CompletableFuture<RemoteAddress> f = lookups.remove(id);
                lookupNames.remove(id);
                if (f == null) {
                    throw new MalformedFrameException("FOUND for lookup " + id + ", which was not asked");
                }
                f.complete(found ? a : null);
            }
            case Wire.REJECT -> onReject(body);
            default -> throw new MalformedFrameException(Wire.typeName(type) + " frame on an active connection");
        }
        return true;
    }

    private void requireQp(byte type) throws MalformedFrameException {
        if (qp == null) {
            throw new MalformedFrameException(Wire.typeName(type) + " frame on a control connection");
        }
    }

    // ------------------------------------------------------------------ handshake

    private void onHello(ByteBuffer body) throws MalformedFrameException {
        Wire.need(body, 4 + 1 + 4 + Wire.NONCE_BYTES + 1, "HELLO header");
        int clientId = body.getInt();
        byte p = body.get();
        int qpn = body.getInt();
        byte[] clientNonce = new byte[Wire.NONCE_BYTES];
        body.get(clientNonce);
        int macLen = body.get() & 0xFF;
        if (macLen != 0 && macLen != Wire.MAC_BYTES) {
            throw new MalformedFrameException("HELLO with a MAC of " + macLen + " bytes");
        }
        Wire.need(body, macLen, "HELLO MAC");
        byte[] mac = new byte[macLen];
        body.get(mac);
        String name = Wire.getName(body, "HELLO node name");
        Wire.done(body, "HELLO");
        peerNodeId = clientId;
        peerName = name;
        purpose = p;
        Handshake hs = fabric.handshake();
        if (hs.hasSecret() && !Handshake.same(mac, hs.hello(myNonce, clientNonce, clientId, node.id()))) {
            reject("wrong cluster secret from " + describePeer());
            return;
        }
        int boundQpn = -1;
        if (p == Wire.PURPOSE_QP) {
            SocketQueuePair q;
            if (qpn == -1) {
                q = node.newPassiveQueuePair();
            } else {
                q = node.queuePair(qpn);
                if (q == null || q.state() != dev.remora.verbs.QpState.RESET || q.connection() != null) {
                    reject("node " + node.name() + " has no unconnected queue pair " + qpn);
                    return;
                }
            }
            qp = q;
            q.bind(this, clientId);
            boundQpn = q.qpNumber();
        } else if (p != Wire.PURPOSE_CONTROL) {
            throw new MalformedFrameException("HELLO with unknown purpose " + p);
        }
        int f = Wire.begin(out, Wire.WELCOME);
        byte[] proof = hs.welcome(clientNonce, myNonce);
        out.putInt(boundQpn).putLong(node.incarnation()).put((byte) proof.length).put(proof);
        Wire.end(out, f);
        state = State.ACTIVE;
    }

    private void onChallenge(ByteBuffer body) throws MalformedFrameException {
        Wire.need(body, 8 + 4 + 1 + Wire.NONCE_BYTES, "CHALLENGE header");
        peerIncarnation = body.getLong();
        peerNodeId = body.getInt();
        boolean secretRequired = body.get() != 0;
        peerNonce = new byte[Wire.NONCE_BYTES];
        body.get(peerNonce);
        peerName = Wire.getName(body, "CHALLENGE node name");
        Wire.done(body, "CHALLENGE");
        Handshake hs = fabric.handshake();
        if (secretRequired && !hs.hasSecret()) {
            close("node " + peerName + " at " + peerAddress + " requires a cluster secret, and this process has none "
                + "(set the socket fabric's 'secret' property or " + SocketContext.SECRET_ENV + ")");
            return;
        }
        if (!secretRequired && hs.hasSecret()) {
            close("node " + peerName + " at " + peerAddress + " has no cluster secret, so it cannot prove it belongs "
                + "to this cluster");
            return;
        }
        myNonce = Handshake.nonce();
        byte[] mac = hs.hello(peerNonce, myNonce, node.id(), peerNodeId);
        int f = Wire.begin(out, Wire.HELLO);
        out.putInt(node.id()).put(purpose).putInt(bindQpn).put(myNonce).put((byte) mac.length).put(mac);
        Wire.putName(out, node.name());
        Wire.end(out, f);
        state = State.AWAIT_WELCOME;
    }

    private void onWelcome(ByteBuffer body) throws MalformedFrameException {
        Wire.need(body, 4 + 8 + 1, "WELCOME header");
        int qpn = body.getInt();
        long incarnation = body.getLong();
        int macLen = body.get() & 0xFF;
        Wire.exact(body, macLen, "WELCOME MAC");
        byte[] mac = new byte[macLen];
        body.get(mac);
        Handshake hs = fabric.handshake();
        if (hs.hasSecret() && !Handshake.same(mac, hs.welcome(myNonce, peerNonce))) {
            close("node " + peerName + " at " + peerAddress + " does not know the cluster secret");
            return;
        }
        if (incarnation != peerIncarnation) {
            throw new MalformedFrameException("WELCOME names incarnation " + incarnation + ", CHALLENGE named "
                + peerIncarnation);
        }
        state = State.ACTIVE;
        welcome.complete(new Welcome(peerNodeId, peerName, peerIncarnation, qpn));
    }

    private void onReject(ByteBuffer body) throws MalformedFrameException {
        String reason = Wire.getName(body, "REJECT reason");
        Wire.done(body, "REJECT");
        close("refused by " + describePeer() + ": " + reason);
    }

    private void reject(String reason) {
        LOG.log(Level.WARNING, "node {0} refused a connection: {1}", new Object[] {node.name(), reason});
        out.clear();
        int f = Wire.begin(out, Wire.REJECT);
        Wire.putName(out, reason.length() > 300 ? reason.substring(0, 300) : reason);
        Wire.end(out, f);
        flushOutput();
        close(reason);
    }

    // ------------------------------------------------------------------ responder

    /** @return false if the request must wait (a SEND with no receive posted yet) */
    private boolean onRequest(ByteBuffer body) throws MalformedFrameException {
        Wire.need(body, Wire.REQ_HEAD, "REQUEST header");
        int seq = body.getInt();
        byte op = body.get();
        boolean continuation = op == Wire.OP_WRITE && writeSeq >= 0;
        if (continuation ? seq != writeSeq : seq != expectedSeq) {
            throw new MalformedFrameException("request " + seq + " out of order (expected " + (continuation
                ? writeSeq : expectedSeq) + ")");
        }
        switch (op) {
            case Wire.OP_READ -> {
                Wire.exact(body, Wire.READ_BODY - Wire.REQ_HEAD, "READ");
                int rkey = body.getInt();
                long addr = body.getLong();
                int len = body.getInt();
                if (len < 0) {
                    throw new MalformedFrameException("READ of negative length " + len);
                }
                expectedSeq++;
                if (responderError) {
                    return true;
                }
                SocketRegion r = check(rkey, addr, len, Access.REMOTE_READ);
                if (r == null) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                    return true;
                }
                readSeq = seq;
                readRegion = r;
                readIndex = r.indexOf(addr);
                readTotal = len;
                readDone = 0;
                streamRead();
            }
            case Wire.OP_WRITE -> {
                Wire.need(body, Wire.WRITE_HEAD - Wire.REQ_HEAD, "WRITE header");
                int rkey = body.getInt();
                long addr = body.getLong();
                int total = body.getInt();
                int offset = body.getInt();
                int chunk = body.getInt();
                Wire.exact(body, chunk, "WRITE payload");
                if (total < 0 || chunk < 0 || chunk > Wire.CHUNK || offset < 0 || chunk > total - offset) {
                    throw new MalformedFrameException("WRITE chunk " + offset + "+" + chunk + " of " + total
                        + " bytes");
                }
                if (!continuation) {
                    if (offset != 0) {
                        throw new MalformedFrameException("WRITE " + seq + " starts at offset " + offset);
                    }
                    expectedSeq++;
                    writeSeq = seq;
                    writeTotal = total;
                    writeDone = 0;
                    writeRegion = responderError ? null : check(rkey, addr, total, Access.REMOTE_WRITE);
                    writeIndex = writeRegion == null ? 0 : writeRegion.indexOf(addr);
                } else if (offset != writeDone || total != writeTotal) {
                    throw new MalformedFrameException("WRITE " + seq + " chunk at " + offset + " of " + total
                        + " bytes, expected " + writeDone + " of " + writeTotal);
                }
                if (writeRegion != null && !responderError) {
                    // R6: this connection's writes are placed one after another, in arrival order.
                    writeRegion.nicCopyIn(writeIndex + offset, body, chunk);
                }
                writeDone += chunk;
                if (writeDone == writeTotal) {
                    writeSeq = -1;
                    if (!responderError) {
                        if (writeRegion == null) {
                            refuse(seq, WcStatus.REM_ACCESS_ERR);
                        } else {
                            respond(seq, WcStatus.SUCCESS, 0);
                        }
                    }
                    writeRegion = null;
                }
            }
            case Wire.OP_CAS, Wire.OP_FAA -> {
                boolean cas = op == Wire.OP_CAS;
                Wire.exact(body, (cas ? Wire.CAS_BODY : Wire.FAA_BODY) - Wire.REQ_HEAD, cas ? "CAS" : "FAA");
                int rkey = body.getInt();
                long addr = body.getLong();
                long compareAdd = body.getLong();
                long swap = cas ? body.getLong() : 0;
                expectedSeq++;
                if (responderError) {
                    return true;
                }
                SocketRegion r = check(rkey, addr, Long.BYTES, Access.REMOTE_ATOMIC);
                if (r == null) {
                    refuse(seq, WcStatus.REM_ACCESS_ERR);
                } else if ((addr & 7) != 0) {
                    refuse(seq, WcStatus.REM_INV_REQ_ERR); // R17: atomics need an 8-byte-aligned address
                } else {
                    int i = r.indexOf(addr);
                    // Remote atomics to this node are atomic among themselves (and here against the CPU too).
                    long old = cas ? r.nicCompareAndExchange(i, compareAdd, swap) : r.nicGetAndAdd(i, compareAdd);
                    respond(seq, WcStatus.SUCCESS, old);
                }
            }
            case Wire.OP_SEND -> {
                Wire.need(body, Wire.SEND_HEAD - Wire.REQ_HEAD, "SEND header");
                int total = body.getInt();
                int offset = body.getInt();
                int chunk = body.getInt();
                Wire.exact(body, chunk, "SEND payload");
                if (offset != 0 || chunk != total || total < 0) {
                    throw new MalformedFrameException("SEND chunk " + offset + "+" + chunk + " of " + total
                        + " bytes (a SEND is one frame)");
                }
                if (responderError) {
                    expectedSeq++;
                    return true;
                }
                if (qp.isPassive()) {
                    expectedSeq++;
                    refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                    return true;
                }
                SocketQueuePair.RecvEntry r = qp.takeRecv();
                if (r == null) {
                    long now = System.nanoTime();
                    if (sendStallDeadlineNs == 0) {
                        sendStallDeadlineNs = now + fabric.context().rnrTimeoutNs();
                    }
                    if (now - sendStallDeadlineNs < 0) {
                        // Rewind: the frame is parsed again when a receive is posted or the timer ticks.
                        expectedSeq = seq;
                        return false;
                    }
                    sendStallDeadlineNs = 0;
                    expectedSeq++;
                    refuse(seq, WcStatus.RNR_RETRY_EXC_ERR);
                    return true;
                }
                sendStallDeadlineNs = 0;
                expectedSeq++;
                if (r.length() < total) {
                    qp.deliverRecv(r, WcStatus.LOC_LEN_ERR, 0);
                    refuse(seq, WcStatus.REM_INV_REQ_ERR);
                } else if (!r.valid()) {
                    qp.deliverRecv(r, WcStatus.LOC_PROT_ERR, 0);
                    refuse(seq, WcStatus.REM_OP_ERR);
                } else {
                    r.region().nicCopyIn(r.index(), body, total);
                    qp.deliverRecv(r, WcStatus.SUCCESS, total);
                    respond(seq, WcStatus.SUCCESS, 0);
                }
            }
            default -> throw new MalformedFrameException("REQUEST with unknown operation " + op);
        }
        return true;
    }

    private SocketRegion check(int rkey, long addr, long len, int needed) {
        SocketRegion r = node.regions().get(rkey);
        if (r == null || !r.isRegistered() || !r.contains(addr, len) || !r.allows(needed)) {
            return null;
        }
        return r;
    }

    private void respond(int seq, WcStatus status, long value) {
        int f = Wire.begin(out, Wire.RESPONSE);
        out.putInt(seq).put(Wire.code(status)).putLong(value);
        Wire.end(out, f);
    }

    /** R17: a refused request has no effect; the responder drops everything after it (the requester flushes it). */
    private void refuse(int seq, WcStatus status) {
        respond(seq, status, 0);
        responderError = true;
        qp.responderFailed();
    }

    /** Streams a READ's data into the output as far as it has room, then its response. */
    private void streamRead() {
        while (readSeq >= 0 && out.remaining() >= Wire.LENGTH_BYTES + 2 + Wire.READ_DATA_HEAD + 4096) {
            int left = readTotal - readDone;
            if (left > 0) {
                int chunk = Math.min(Math.min(left, Wire.CHUNK),
                    out.remaining() - (Wire.LENGTH_BYTES + 2 + Wire.READ_DATA_HEAD));
                int f = Wire.begin(out, Wire.READ_DATA);
                out.putInt(readSeq).putInt(readDone).putInt(chunk);
                readRegion.nicCopyOut(readIndex + readDone, out, chunk);
                Wire.end(out, f);
                readDone += chunk;
                continue;
            }
            if (out.remaining() < Wire.LENGTH_BYTES + 2 + Wire.RESPONSE_BODY) {
                return;
            }
            respond(readSeq, WcStatus.SUCCESS, 0);
            readSeq = -1;
            readRegion = null;
        }
    }

    // ------------------------------------------------------------------ control

    /** Sends a lookup; the future completes with the address, or null if the peer does not publish the name. */
    synchronized CompletableFuture<RemoteAddress> lookup(String name) {
        CompletableFuture<RemoteAddress> f = new CompletableFuture<>();
        if (state != State.ACTIVE) {
            f.completeExceptionally(new IOException("connection to " + describePeer() + " is closed"
                + (closeReason == null ? "" : ": " + closeReason)));
            return f;
        }
        int id = nextLookup++;
        lookups.put(id, f);
        lookupNames.put(id, name);
        int fr = Wire.begin(out, Wire.LOOKUP);
        out.putInt(id);
        Wire.putName(out, name);
        Wire.end(out, fr);
        flushOutput();
        return f;
    }

    // ------------------------------------------------------------------ output and closing

    /** Writes what the output holds; asks the service thread to finish if the socket is full. */
    synchronized void flushOutput() {
        if (state == State.CLOSED || channel == null || state == State.CONNECTING) {
            return;
        }
        if (out.position() > 0) {
            out.flip();
            try {
                channel.write(out);
                fabric.countSocketWrite();
            } catch (IOException e) {
                out.clear();
                close("writing to " + describePeer() + " failed: " + e.getMessage());
                return;
            }
            out.compact();
        }
        updateInterest();
    }

    private void updateInterest() {
        SelectionKey k = key;
        if (k == null || !k.isValid()) {
            return;
        }
        int ops;
        if (state == State.CONNECTING) {
            ops = SelectionKey.OP_CONNECT;
        } else {
            ops = in.hasRemaining() ? SelectionKey.OP_READ : 0;
            if (out.position() > 0 || readSeq >= 0 || (qp != null && qp.hasUnsent())) {
                ops |= SelectionKey.OP_WRITE;
            }
        }
        if (k.interestOps() != ops) {
            k.interestOps(ops);
            if (Thread.currentThread() != fabric.loop().thread()) {
                k.selector().wakeup();
            }
        }
    }

    private void closeMalformed(String reason) {
        LOG.log(Level.WARNING, "node {0} closed its connection with {1}: {2}",
            new Object[] {node.name(), describePeer(), reason});
        close("malformed frame: " + reason);
    }

    synchronized void close(String reason) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        closeReason = reason;
        if (key != null) {
            key.cancel();
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        welcome.completeExceptionally(new IOException(reason));
        for (CompletableFuture<RemoteAddress> f : lookups.values()) {
            f.completeExceptionally(new IOException(reason));
        }
        lookups.clear();
        if (qp != null && qp.connection() == this) {
            // Only the queue pair's own connection: a dial that failed is not (the queue pair is then unreachable).
            qp.connectionLost();
            if (qp.isPassive()) {
                node.forget(qp); // made for this connection only
            }
        }
        fabric.forget(this);
    }

    private String describePeer() {
        return (peerNodeId == -1 ? "" : "node " + peerName + " (id " + peerNodeId + ") ")
            + (peerAddress != null ? "at " + peerAddress : remote());
    }

    private String remote() {
        try {
            return channel == null ? "?" : "from " + channel.getRemoteAddress();
        } catch (IOException e) {
            return "?";
        }
    }

    @Override
    public String toString() {
        return "Connection{" + node.name() + (client ? " -> " : " <- ") + describePeer() + ", " + state + '}';
    }
}
