package dev.remora.verbs.testing;

import dev.remora.verbs.Access;
import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness's own paths that the verbs contract does not take: a child node posting to a node of this process,
 * a child queue pair connected to one of this process, names published in either process, the child's exceptions
 * rethrown here, a task run in the child, and the death of the child process with requests outstanding.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostedSocketFabricTest {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);
    private static NodeHost host;

    @BeforeAll
    static void startHost() {
        host = NodeHost.start();
    }

    @AfterAll
    static void stopHost() {
        if (host != null) {
            host.close();
        }
    }

    private static HostedSocketFabric open() {
        return HostedSocketFabric.open(host, HostedSocketFabric.Placement.allButFirst(), 300_000_000L);
    }

    private static List<Completion> take(CompletionQueue cq, int n) {
        Completion[] out = {new Completion(), new Completion(), new Completion(), new Completion()};
        List<Completion> got = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT_NS;
        while (got.size() < n && System.nanoTime() < deadline) {
            int k = cq.await(out, deadline - System.nanoTime());
            for (int i = 0; i < k; i++) {
                got.add(new Completion().copyFrom(out[i]));
            }
        }
        assertEquals(n, got.size(), "completions " + got);
        return got;
    }

    @Test
    void shouldLetAChildNodePostToANodeOfThisProcess() {
        try (HostedSocketFabric f = open()) {
            Node here = f.addNode("here");
            Node there = f.addNode("there");
            assertTrue(f.isInChild(there) && !f.isInChild(here));
            MemoryRegion word = here.allocate(64, Access.ALL);
            word.putLongVolatile(0, 5);
            CompletionQueue cq = there.createCompletionQueue(8);
            QueuePair qp = there.connect(here, cq);
            assertEquals(here.id(), qp.remoteNodeId());
            MemoryRegion result = there.allocate(64, Access.LOCAL_WRITE);
            assertEquals(QueuePair.POSTED, qp.post(new WorkRequest().faa(result, 0, word.remote(0), 2).wrId(9)
                .flags(WorkRequest.SIGNALED)));
            Completion c = take(cq, 1).get(0);
            assertEquals(WcStatus.SUCCESS, c.status());
            assertEquals(9, c.wrId());
            assertEquals(5, result.getLong(0));
            assertEquals(7, word.getLongVolatile(0));
            try (Endpoint ep = Endpoint.open(there)) {
                assertEquals(7, ep.faa(word.remote(0), 1), "an endpoint on a child node reaches this process");
            }
            assertEquals(8, word.getLongVolatile(0));
            assertTrue(f.statistics().fetchAndAdds() >= 2, "the child's statistics count");
        }
    }

    @Test
    void shouldConnectAChildQueuePairToOneOfThisProcess() {
        try (HostedSocketFabric f = open()) {
            Node here = f.addNode("here");
            Node there = f.addNode("there");
            CompletionQueue cqHere = here.createCompletionQueue(8);
            CompletionQueue cqThere = there.createCompletionQueue(8);
            QueuePair mine = here.createQueuePair(cqHere, cqHere);
            QueuePair theirs = there.createQueuePair(cqThere, cqThere);
            assertEquals(QpState.RESET, theirs.state());
            there.connect(theirs, mine);
            assertEquals(QpState.RTS, theirs.state());
            MemoryRegion dst = here.allocate(64, Access.LOCAL_WRITE);
            MemoryRegion src = there.allocate(64, Access.LOCAL_WRITE);
            src.putLong(0, 0xfeed);
            assertEquals(QueuePair.POSTED, mine.postRecv(new WorkRequest().recv(dst, 0, 64).wrId(3)));
            assertEquals(QueuePair.POSTED, theirs.post(new WorkRequest().send(src, 0, 8).wrId(4)
                .flags(WorkRequest.SIGNALED)));
            assertEquals(WcStatus.SUCCESS, take(cqThere, 1).get(0).status());
            Completion recv = take(cqHere, 1).get(0);
            assertEquals(Opcode.RECV, recv.opcode());
            assertEquals(8, recv.byteLength());
            assertEquals(0xfeed, dst.getLong(0));
        }
    }

    @Test
    void shouldFindNamesPublishedInEitherProcess() {
        try (HostedSocketFabric f = open()) {
            Node here = f.addNode("here");
            Node there = f.addNode("there");
            RemoteAddress a = there.allocate(64, Access.ALL).remote(8);
            RemoteAddress b = here.allocate(64, Access.ALL).remote(16);
            f.publish("in-child", a);
            f.publish("here", b);
            assertEquals(a, f.lookup("in-child"));
            assertEquals(a, f.localFabric().lookup("in-child"), "this process's fabric asks the child's node");
            assertEquals(b, f.lookup("here"));
            f.unpublish("in-child");
            assertThrows(NoSuchElementException.class, () -> f.lookup("in-child"));
        }
    }

    @Test
    void shouldRethrowTheChildsExceptionsAndCopyRegisteredBuffers() {
        try (HostedSocketFabric f = open()) {
            f.addNode("here");
            Node there = f.addNode("there");
            assertThrows(IllegalArgumentException.class, () -> there.allocate(0, Access.ALL));
            MemoryRegion r = there.allocate(64, Access.ALL);
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> r.getLong(60));
            assertFalse(e.getMessage().isEmpty(), "the child's message comes along");
            ByteBuffer buffer = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            buffer.putLong(8, 77);
            MemoryRegion copy = there.register(buffer, Access.ALL);
            assertEquals(64, copy.length());
            assertEquals(77, copy.getLong(8), "the buffer's bytes were copied into the child's region");
            assertThrows(IllegalArgumentException.class, () -> there.register(ByteBuffer.allocate(64), Access.ALL));
            assertThrows(IllegalArgumentException.class, () -> f.addNode("here"), "names are unique across both processes");
        }
    }

    /** Adds {@code args[3]} times one to the word at {@code args[1..2]} (key, address) of the node at {@code args[0]}. */
    public static final class AddTask implements ChildTask {
        public AddTask() {
        }

        @Override
        public String run(Node node, String[] args) {
            Node target = node.fabric().connect(args[0]);
            RemoteAddress word = new RemoteAddress(target.id(), Integer.parseInt(args[1]), Long.parseLong(args[2]));
            long last = -1;
            try (Endpoint ep = Endpoint.open(node)) {
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    last = ep.faa(word, 1);
                }
            }
            return ProcessHandle.current().pid() + " " + last;
        }
    }

    /** Fails in the child. */
    public static final class FailingTask implements ChildTask {
        public FailingTask() {
        }

        @Override
        public String run(Node node, String[] args) {
            throw new IllegalArgumentException("refused " + args.length);
        }
    }

    @Test
    void shouldRunATaskInTheChildWhoseVerbsReachThisProcess() {
        try (HostedSocketFabric f = open()) {
            Node here = f.addNode("here");
            Node there = f.addNode("there");
            MemoryRegion word = here.allocate(64, Access.ALL);
            RemoteAddress a = word.remote(8);
            ChildTask.Running t = f.startInChild(there, AddTask.class, here.address(), Integer.toString(a.rkey()),
                Long.toString(a.address()), "100");
            String[] result = t.await(WAIT_NS).split(" ");
            assertEquals(host.child().pid(), Long.parseLong(result[0]), "the task ran in the child process");
            assertEquals(99, Long.parseLong(result[1]));
            assertEquals(100, word.getLongVolatile(8), "its FETCH_ADDs landed in this process's memory");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> f.startInChild(there, FailingTask.class, "x", "y").await(WAIT_NS));
            assertTrue(e.getMessage().contains("IllegalArgumentException: refused 2"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> f.startInChild(here, AddTask.class),
                "a node of this process");
        }
    }

    @Test
    void shouldFailTheOutstandingRequestAtOnceWhenTheChildProcessDies() throws Exception {
        long retryNs = TimeUnit.SECONDS.toNanos(20);
        try (NodeHost doomed = NodeHost.start();
             HostedSocketFabric f = HostedSocketFabric.open(doomed, HostedSocketFabric.Placement.allButFirst(),
                 retryNs)) {
            Node here = f.addNode("here");
            Node there = f.addNode("there");
            MemoryRegion target = there.allocate(64, Access.ALL);
            CompletionQueue cq = here.createCompletionQueue(8);
            QueuePair qp = here.connect(there, cq);
            MemoryRegion local = here.allocate(64, Access.LOCAL_WRITE);
            f.crash(there); // silent: the requests below stay outstanding until the process dies
            assertEquals(QueuePair.POSTED, qp.post(new WorkRequest().faa(local, 0, target.remote(0), 1).wrId(1)
                .flags(WorkRequest.SIGNALED)));
            assertEquals(QueuePair.POSTED, qp.post(new WorkRequest().read(local, 8, 8, target.remote(0)).wrId(2)
                .flags(WorkRequest.SIGNALED)));
            Completion[] none = {new Completion()};
            assertEquals(0, cq.await(none, TimeUnit.MILLISECONDS.toNanos(50)), "a silent node answers nothing");
            long start = System.nanoTime();
            doomed.child().kill();
            assertEquals(137, doomed.child().awaitExit(Duration.ofSeconds(10)));
            List<Completion> got = take(cq, 2);
            long took = System.nanoTime() - start;
            assertEquals(WcStatus.RETRY_EXC_ERR, got.get(0).status(), "the oldest request: " + got);
            assertEquals(1, got.get(0).wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, got.get(1).status(), "the rest flush: " + got);
            assertTrue(took < retryNs / 4, "the reset is noticed at once, not after the retry timeout: " + took);
            assertEquals(QpState.ERROR, qp.state());
        }
    }
}
