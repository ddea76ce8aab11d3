package dev.remora.verbs.socket;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket fabric against bad input and bad peers: garbage and mutated frames on a live server, wrong cluster
 * secrets, a restarted home, many connections on one service thread, doorbell batching and large transfers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketFabricRobustnessTest {
    private static final long RETRY_NS = 300_000_000L;

    private static SocketContext context() {
        return new SocketContext().secret(null).retryTimeoutNs(RETRY_NS).connectTimeoutNs(2_000_000_000L);
    }

    /** Collects the socket fabric's log records (and keeps them out of the build's log) while a test runs. */
    private static final class Captured extends Handler implements AutoCloseable {
        final List<String> messages = java.util.Collections.synchronizedList(new ArrayList<>());
        private final Logger logger = Logger.getLogger("dev.remora.verbs.socket");
        private final boolean parents = logger.getUseParentHandlers();

        Captured() {
            logger.addHandler(this);
            logger.setUseParentHandlers(false);
        }

        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                Object[] p = r.getParameters();
                messages.add(p == null ? r.getMessage() : java.text.MessageFormat.format(r.getMessage(), p));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setUseParentHandlers(parents);
        }
    }

    @Test
    void garbageAndMutatedFramesCloseTheirConnectionAndChangeNoByteWhileOthersAreServed() throws Exception {
        try (Captured log = new Captured();
             SocketFabric server = SocketFabric.open(context().connectTimeoutNs(500_000_000L));
             SocketFabric clients = SocketFabric.open(context())) {
            Node home = server.addNode("home");
            MemoryRegion guarded = home.allocate(4096, Access.ALL);
            Random seed = new Random(42);
            byte[] pattern = new byte[4096];
            seed.nextBytes(pattern);
            guarded.putBytes(0, pattern, 0, pattern.length);
            MemoryRegion live = home.allocate(64, Access.ALL);

            // A well-behaved client keeps incrementing a word of another region the whole time.
            Node me = clients.addNode("client");
            clients.connect(home.address());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong acknowledged = new AtomicLong();
            AtomicLong failures = new AtomicLong();
            Thread worker = new Thread(() -> {
                try (Endpoint ep = Endpoint.open(me)) {
                    while (!stop.get()) {
                        try {
                            ep.faa(live.remote(0), 1);
                            acknowledged.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.incrementAndGet();
                        }
                    }
                }
            });
            worker.start();

            InetSocketAddress target = server.parse(home.address());
            int wrongKey = guarded.rkey() + 1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            int attacks = 0;
            int mustClose = 0;
            int closedByServer = 0;
            Random r = new Random(7);
            while (attacks < 400 && (System.nanoTime() < deadline || attacks < 60)) { // 60 to 400, about 3 s
                int kind = attacks % 6;
                byte[] attack = attack(r, attacks, wrongKey, guarded.address(), home.id());
                boolean undecidable = kind >= 3; // a mutated request may still be well formed (then it is refused)
                try (SocketChannel ch = SocketChannel.open(target)) {
                    readFrame(ch); // the challenge
                    ch.write(ByteBuffer.wrap(attack));
                    if (kind != 5) { // a truncated frame is abandoned half sent
                        boolean closed = closedWithin(ch, undecidable ? 200 : 1500);
                        if (!undecidable) {
                            mustClose++;
                            closedByServer += closed ? 1 : 0;
                        }
                    }
                } catch (IOException e) {
                    if (!undecidable) { // reset by the server
                        mustClose++;
                        closedByServer++;
                    }
                }
                attacks++;
            }
            stop.set(true);
            worker.join(10_000);

            byte[] after = new byte[4096];
            guarded.getBytes(0, after, 0, after.length);
            assertArrayEquals(pattern, after, "no byte of the guarded region changed after " + attacks + " attacks");
            assertEquals(0, failures.get(), "the well-behaved client never failed");
            assertTrue(acknowledged.get() > 0, "the well-behaved client was served");
            assertEquals(acknowledged.get(), live.getLongVolatile(0), "every acknowledged increment is there");
            assertEquals(mustClose, closedByServer, "the server closed every connection that sent garbage, an "
                + "oversized length or a wrong version");
            assertTrue(log.messages.stream().anyMatch(m -> m.contains("malformed frame") || m.contains("closed its "
                + "connection")), "reasons are logged: " + log.messages.subList(0, Math.min(5, log.messages.size())));
            // The passive queue pairs made for the attackers' connections (and the closed client's) went with them.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            SocketNode served = (SocketNode) home;
            while (served.queuePairCount() > 0 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertEquals(0, served.queuePairCount(), "no queue pair outlives its connection");
            // And the server still serves a new client.
            try (Endpoint ep = Endpoint.open(me)) {
                assertEquals(acknowledged.get(), ep.faa(live.remote(0), 1));
            }
            System.out.println("fuzz: " + attacks + " attacks, " + closedByServer + " of " + mustClose + " closed by the server, "
                + acknowledged.get() + " increments served meanwhile, " + log.messages.size() + " reasons logged");
        }
    }

    /** One attack: garbage, or a handshake followed by a frame that is malformed (or valid but with a wrong key). */
    private static byte[] attack(Random r, int i, int wrongKey, long address, int serverId) {
        ByteBuffer b = ByteBuffer.allocate(4096);
        switch (i % 6) {
            case 0 -> {
                byte[] junk = new byte[1 + r.nextInt(600)];
                r.nextBytes(junk);
                b.put(junk);
            }
            case 1 -> { // oversized length
                b.putInt(Wire.MAX_FRAME + 1 + r.nextInt(1 << 20)).put(Wire.VERSION).put(Wire.HELLO);
            }
            case 2 -> { // wrong version, then unknown type
                b.putInt(10).put((byte) (2 + r.nextInt(100))).put(Wire.HELLO).putLong(0);
            }
            default -> {
                hello(b, serverId);
                ByteBuffer f = ByteBuffer.allocate(512);
                int start = Wire.begin(f, Wire.REQUEST);
                f.putInt(0);
                switch (r.nextInt(4)) {
                    case 0 -> f.put(Wire.OP_WRITE).putInt(wrongKey).putLong(address).putInt(16).putInt(0).putInt(16)
                        .putLong(-1).putLong(-1);
                    case 1 -> f.put(Wire.OP_CAS).putInt(wrongKey).putLong(address).putLong(0).putLong(-1);
                    case 2 -> f.put(Wire.OP_FAA).putInt(wrongKey).putLong(address).putLong(5);
                    default -> f.put((byte) 99).putInt(wrongKey);
                }
                Wire.end(f, start);
                byte[] frame = Arrays.copyOf(f.array(), f.position());
                int mutations = 1 + r.nextInt(3);
                for (int m = 0; m < mutations; m++) {
                    int at = 4 + r.nextInt(frame.length - 4); // keep the length: mutate header and body
                    frame[at] ^= (byte) (1 + r.nextInt(255));
                }
                if (i % 6 == 5) {
                    frame = Arrays.copyOf(frame, frame.length / 2); // truncated: left hanging
                }
                b.put(frame);
            }
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    private static void hello(ByteBuffer b, int serverId) {
        int f = Wire.begin(b, Wire.HELLO);
        b.putInt(123_456).put(Wire.PURPOSE_QP).putInt(-1).put(new byte[Wire.NONCE_BYTES]).put((byte) 0);
        Wire.putName(b, "fuzzer");
        Wire.end(b, f);
    }

    private static void readFrame(SocketChannel ch) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(4);
        java.io.InputStream in = ch.socket().getInputStream();
        for (int k = 0; k < 4; k++) {
            int v = in.read();
            if (v < 0) {
                throw new IOException("closed");
            }
            len.put((byte) v);
        }
        int n = len.getInt(0);
        for (int k = 0; k < n; k++) {
            if (in.read() < 0) {
                throw new IOException("closed");
            }
        }
    }

    /** @return whether the peer closed the connection within the time (what it sends before is discarded) */
    private static boolean closedWithin(SocketChannel ch, int millis) throws IOException {
        ch.socket().setSoTimeout(millis);
        java.io.InputStream in = ch.socket().getInputStream();
        byte[] sink = new byte[4096];
        try {
            while (true) {
                if (in.read(sink) < 0) {
                    return true;
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }

    @Test
    void aWrongOrMissingClusterSecretIsRefusedBothWays() {
        try (Captured log = new Captured();
             SocketFabric alpha = SocketFabric.open(context().secret("alpha"));
             SocketFabric beta = SocketFabric.open(context().secret("beta"));
             SocketFabric none = SocketFabric.open(context());
             SocketFabric friend = SocketFabric.open(context().secret("alpha"))) {
            Node home = alpha.addNode("home");
            MemoryRegion word = home.allocate(8, Access.ALL);
            alpha.publish("w", word.remote(0));
            beta.addNode("intruder");
            IllegalStateException wrong = assertThrows(IllegalStateException.class, () -> beta.connect(home.address()));
            assertTrue(wrong.getMessage().contains("secret"), wrong.getMessage());
            none.addNode("stranger");
            IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> none.connect(home.address()));
            assertTrue(missing.getMessage().contains("requires a cluster secret"), missing.getMessage());
            Node open = none.addNode("open-home");
            Node me = friend.addNode("friend");
            IllegalStateException unproven = assertThrows(IllegalStateException.class,
                () -> friend.connect(open.address()));
            assertTrue(unproven.getMessage().contains("no cluster secret"), unproven.getMessage());

            friend.connect(home.address());
            try (Endpoint ep = Endpoint.open(me)) {
                assertEquals(0, ep.faa(friend.lookup("w"), 1));
            }
            assertEquals(1, word.getLongVolatile(0), "only the friend's increment arrived");
            assertTrue(log.messages.stream().anyMatch(m -> m.contains("wrong cluster secret")), "the server logs the "
                + "refusal: " + log.messages);
        }
        IllegalArgumentException exposed = assertThrows(IllegalArgumentException.class,
            () -> new SocketContext().secret(null).host("10.255.255.1").conclude());
        assertTrue(exposed.getMessage().contains("needs a cluster secret"), exposed.getMessage());
    }

    @Test
    void aRestartedHomeIsANewIncarnationWhoseOldKeysAreRefused() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (SocketFabric clients = SocketFabric.open(context())) {
            Node me = clients.addNode("client");
            RemoteAddress old;
            SocketFabric first = SocketFabric.open(context().port(port));
            Node home = first.addNode("home");
            MemoryRegion r = home.allocate(64, Access.ALL);
            old = r.remote(0);
            first.publish("hits", old);
            clients.connect(home.address());
            try (Endpoint ep = Endpoint.open(me)) {
                assertEquals(0, ep.faa(clients.lookup("hits"), 1));
                first.close(); // the home process goes away
                RemoteAccessException gone = assertThrows(RemoteAccessException.class, () -> ep.faa(old, 1));
                assertEquals(WcStatus.RETRY_EXC_ERR, gone.status());
                try (SocketFabric second = SocketFabric.open(context().port(port))) {
                    Node again = second.addNode("home");
                    assertEquals(home.id(), again.id(), "same address, same node id");
                    MemoryRegion fresh = again.allocate(64, Access.ALL);
                    second.publish("hits", fresh.remote(0));
                    RemoteAccessException stale = assertThrows(RemoteAccessException.class, () -> ep.faa(old, 1));
                    assertEquals(WcStatus.REM_ACCESS_ERR, stale.status(), "the old incarnation's key is refused");
                    assertNotEquals(old.rkey(), fresh.rkey());
                    assertEquals(0, ep.faa(clients.lookup("hits"), 5), "the new incarnation's name resolves");
                    assertEquals(5, fresh.getLongVolatile(0));
                }
            }
            assertThrows(NoSuchElementException.class, () -> clients.lookup("hits"));
        }
    }

    @Test
    void oneServiceThreadServesSixtyFourClientConnections() throws Exception {
        try (SocketFabric server = SocketFabric.open(context());
             SocketFabric clients = SocketFabric.open(context())) {
            Node home = server.addNode("home");
            MemoryRegion counter = home.allocate(8, Access.ALL);
            Node me = clients.addNode("client");
            clients.connect(home.address());
            int connections = 64;
            int each = 50;
            List<Endpoint> endpoints = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                endpoints.add(Endpoint.open(me));
            }
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                threads.add(new Thread(() -> {
                    for (int k = 0; k < each; k++) {
                        for (int e = first; e < connections; e += 4) {
                            endpoints.get(e).faa(counter.remote(0), 1);
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(30_000);
            }
            long services = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("remora-socket-service")).count();
            assertEquals(2, services, "one service thread per fabric (server and clients), however many connections");
            assertEquals((long) connections * each, counter.getLongVolatile(0));
            assertEquals(connections, endpoints.stream().mapToLong(e -> e.statistics().fetchAndAdds() > 0 ? 1 : 0)
                .sum());
            endpoints.forEach(Endpoint::close);
        }
    }

    @Test
    void aPostedListIsOneSocketWriteAndLargeTransfersArriveWhole() {
        try (SocketFabric server = SocketFabric.open(context());
             SocketFabric clients = SocketFabric.open(context())) {
            Node home = server.addNode("home");
            int big = 3 * 1024 * 1024 + 24;
            MemoryRegion target = home.allocate(big, Access.ALL);
            Node me = clients.addNode("client");
            Node peer = clients.connect(home.address());
            MemoryRegion local = me.allocate(big, Access.ALL);
            CompletionQueue cq = me.createCompletionQueue(64);
            QueuePair qp = me.connect(peer, cq);
            Completion[] out = new Completion[64];
            for (int i = 0; i < out.length; i++) {
                out[i] = new Completion();
            }
            WorkRequest[] list = new WorkRequest[16];
            for (int i = 0; i < 15; i++) {
                local.putLong(8L * i, 1000 + i);
                list[i] = new WorkRequest().write(local, 8L * i, 8, target.remote(8L * i)).wrId(i);
            }
            list[15] = new WorkRequest().read(local, 4096, 15 * 8, target.remote(0)).wrId(15)
                .flags(WorkRequest.SIGNALED);
            long before = clients.socketWrites();
            assertEquals(QueuePair.POSTED, qp.post(list, 16));
            assertEquals(1, clients.socketWrites() - before, "one doorbell of 16 requests is one write to the socket");
            assertEquals(1, await(cq, out, 1));
            assertEquals(WcStatus.SUCCESS, out[0].status());
            for (int i = 0; i < 15; i++) {
                assertEquals(1000 + i, local.getLong(4096 + 8L * i), "R7: the READ saw every earlier WRITE");
            }

            byte[] pattern = new byte[big];
            new Random(3).nextBytes(pattern);
            local.putBytes(0, pattern, 0, big);
            assertEquals(QueuePair.POSTED, qp.post(new WorkRequest().write(local, 0, big, target.remote(0))
                .flags(WorkRequest.SIGNALED).wrId(100)));
            assertEquals(1, await(cq, out, 1));
            assertEquals(WcStatus.SUCCESS, out[0].status());
            byte[] landed = new byte[big];
            target.getBytes(0, landed, 0, big);
            assertArrayEquals(pattern, landed, "a 3 MiB WRITE arrives whole");
            local.setMemory(0, big, (byte) 0);
            assertEquals(QueuePair.POSTED, qp.post(new WorkRequest().read(local, 0, big, target.remote(0))
                .flags(WorkRequest.SIGNALED).wrId(101)));
            assertEquals(1, await(cq, out, 1));
            assertEquals(WcStatus.SUCCESS, out[0].status());
            byte[] read = new byte[big];
            local.getBytes(0, read, 0, big);
            assertArrayEquals(pattern, read, "a 3 MiB READ arrives whole");
            assertFalse(qp.statistics().errors() > 0);
        }
    }

    private static int await(CompletionQueue cq, Completion[] out, int n) {
        int got = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (got < n && System.nanoTime() < deadline) {
            got += cq.await(out, TimeUnit.MILLISECONDS.toNanos(100));
        }
        return got;
    }
}
