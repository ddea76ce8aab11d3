package dev.remora.stress.verbs;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.RemoteRegion;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one software fabric of a jcstress fork, shared by every test state in that JVM.
 *
 * <p>jcstress creates a great many state objects (a stride of them per round, fresh every round), so a state must
 * be cheap: it takes a {@link #SLOT_BYTES}-byte slot of the home node's region instead of allocating a region of its
 * own, and zeroes it. Slots are handed out round robin; with {@link #SLOTS} slots and strides of at most a few
 * thousand states, a slot is reused only long after the state that last held it is gone.
 *
 * <pre>
 *   node 0 "home": one region of SLOTS x SLOT_BYTES bytes, every access flag; its CPU reads through the region
 *   node 1, node 2: client nodes; each actor thread gets its own Endpoint (queue pair, completion queue) per node
 *
 *   slot layout (bytes): 0..7 word A | 8..15 word B | 16..63 unused | 64..71 word C (another cache line) | ..127
 * </pre>
 *
 * <p>The fabric has no injected latency, so every request executes on the posting thread inside {@code post}: no NIC
 * thread is ever started and nothing leaks between tests. Endpoints live in thread locals, one per actor thread and
 * client node; jcstress runs an actor on the same thread for a whole iteration.
 */
final class StressFabric {
    /** Bytes of one state's slot: two cache lines, so a test can put two words on different lines. */
    static final int SLOT_BYTES = 128;
    /** Slots in the home region (16 MiB). */
    static final int SLOTS = 1 << 17;
    /** Offset of word A in a slot. */
    static final int WORD_A = 0;
    /** Offset of word B in a slot (same cache line as A). */
    static final int WORD_B = 8;
    /** Offset of word C in a slot (the next cache line). */
    static final int WORD_C = 64;

    /** Node id of the home node, whose memory the tests race on. */
    static final int HOME_ID = 0;

    private static final SimFabric FABRIC;
    private static final Node HOME;
    private static final Node[] CLIENTS;
    private static final MemoryRegion HOME_REGION;
    private static final RemoteRegion HOME_REMOTE;
    private static final AtomicLong NEXT_SLOT = new AtomicLong();
    private static final ThreadLocal<Endpoint> CLIENT_1 = ThreadLocal.withInitial(() -> newEndpoint(1));
    private static final ThreadLocal<Endpoint> CLIENT_2 = ThreadLocal.withInitial(() -> newEndpoint(2));

    static {
        // Small queues: a jcstress fork opens one endpoint per actor thread, and a blocking helper has one request
        // outstanding at a time.
        FABRIC = SimFabric.open(new SimContext().sendQueueDepth(8));
        HOME = FABRIC.addNode("home");
        CLIENTS = new Node[] {HOME, FABRIC.addNode("client-1"), FABRIC.addNode("client-2")};
        HOME_REGION = HOME.allocate((long) SLOTS * SLOT_BYTES, Access.ALL);
        HOME_REMOTE = HOME_REGION.toRemote();
    }

    private StressFabric() {
    }

    private static Endpoint newEndpoint(int clientId) {
        return Endpoint.open(CLIENTS[clientId],
            new Endpoint.Context().completionQueueDepth(8).scratchBytes(64));
    }

    /**
     * Takes the next slot and zeroes its words A, B and C with the home CPU's sequentially consistent stores. jcstress publishes the
     * state to the actor threads after construction, so they see the zeroes.
     *
     * @return the slot's byte offset in the home region
     */
    static long takeSlot() {
        long offset = (NEXT_SLOT.getAndIncrement() % SLOTS) * SLOT_BYTES;
        HOME_REGION.putLongVolatile(offset + WORD_A, 0L);
        HOME_REGION.putLongVolatile(offset + WORD_B, 0L);
        HOME_REGION.putLongVolatile(offset + WORD_C, 0L);
        return offset;
    }

    /**
     * @param offset byte offset in the home region
     * @return the address a client uses for it
     */
    static RemoteAddress remote(long offset) {
        return HOME_REMOTE.at(offset);
    }

    /** @return the home node's region: its CPU's only way to its memory */
    static MemoryRegion home() {
        return HOME_REGION;
    }

    /**
     * The calling thread's endpoint on a client node.
     *
     * @param clientId 1 or 2
     * @return the endpoint, opened on first use by this thread
     */
    static Endpoint client(int clientId) {
        return clientId == 1 ? CLIENT_1.get() : CLIENT_2.get();
    }

    /** @return the node of client 1 or 2 */
    static Node clientNode(int clientId) {
        return CLIENTS[clientId];
    }
}
