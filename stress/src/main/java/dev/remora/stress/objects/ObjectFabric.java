package dev.remora.stress.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.RemoteRegion;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The one software fabric of a jcstress fork for the object tests, shared by every test state in that JVM.
 *
 * <p>jcstress creates a great many state objects (strides of at most 256 x 40 states, fresh every epoch), and an
 * object that allocates a region or a wait tag per state would not do: the fast fabric copies its region and tag
 * tables on every registration and never reuses an index. So a state takes one of {@link #SLOTS} slots of the home
 * node's region, round robin, and zeroes it; objects that register memory per handle (the versioned registers, the
 * sharded counter) keep one handle per actor thread and slot ({@link #handle}), and the rings live in a pool of their
 * own, one ring per slot, reused by every state that takes that slot (each test's arbiter drains its ring, so the next
 * state finds it empty). A slot is reused only {@link #SLOTS} states later, well after every state of the epoch that
 * last held it is gone.
 *
 * <pre>
 *   node 0 "home": one region of SLOTS x SLOT_BYTES bytes, every access flag; its CPU reads through the region
 *   nodes 1..3: client nodes; each actor thread gets its own Endpoint (queue pair, completion queue) per node
 * </pre>
 *
 * <p>The fabric has no injected latency, so every request executes on the posting thread inside {@code post}: no NIC
 * thread is ever started. Endpoints live in thread locals, one per actor thread and client node; jcstress runs an
 * actor on the same thread for a whole iteration.
 */
final class ObjectFabric {
    /** Bytes of one state's slot: four cache lines (a sharded counter's two shards, a barrier's two words). */
    static final int SLOT_BYTES = 256;
    /** Slots (and pooled rings): more than the 256 x 40 states of one jcstress epoch. */
    static final int SLOTS = 1 << 14;

    /** Node id of the home node, whose memory the tests race on. */
    static final int HOME_ID = 0;

    private static final SimFabric FABRIC;
    private static final Node HOME;
    private static final Node[] NODES;
    private static final MemoryRegion HOME_REGION;
    private static final RemoteRegion HOME_REMOTE;
    private static final AtomicLong NEXT_SLOT = new AtomicLong();
    private static final List<ThreadLocal<Endpoint>> CLIENTS = new ArrayList<>();

    static {
        // Small queues: a jcstress fork opens one endpoint per actor thread and client node, and the objects' blocking
        // calls have at most two requests outstanding at a time.
        FABRIC = SimFabric.open(new SimContext().sendQueueDepth(8));
        HOME = FABRIC.addNode("home");
        NODES = new Node[] {HOME, FABRIC.addNode("client-1"), FABRIC.addNode("client-2"), FABRIC.addNode("client-3")};
        HOME_REGION = HOME.allocate((long) SLOTS * SLOT_BYTES, Access.ALL);
        HOME_REMOTE = HOME_REGION.toRemote();
        for (int id = 0; id < NODES.length; id++) {
            Node node = NODES[id];
            CLIENTS.add(ThreadLocal.withInitial(() -> Endpoint.open(node,
                new Endpoint.Context().completionQueueDepth(8).scratchBytes(64))));
        }
    }

    private ObjectFabric() {
    }

    /**
     * Takes the next slot and zeroes it with the home CPU's sequentially consistent stores. jcstress publishes the
     * state to the actor threads after construction, so they see the zeroes.
     *
     * @return the slot's index, 0 to {@link #SLOTS} - 1
     */
    static int takeSlot() {
        int slot = (int) (NEXT_SLOT.getAndIncrement() % SLOTS);
        long base = (long) slot * SLOT_BYTES;
        for (int w = 0; w < SLOT_BYTES; w += Long.BYTES) {
            HOME_REGION.putLongVolatile(base + w, 0L);
        }
        return slot;
    }

    /**
     * @param slot a slot index
     * @param offset byte offset in the slot
     * @return the address a client uses for it (the home region starts on a page, so a slot starts a cache line)
     */
    static RemoteAddress remote(int slot, int offset) {
        return HOME_REMOTE.at((long) slot * SLOT_BYTES + offset);
    }

    /**
     * The home CPU's sequentially consistent load of a word of a slot.
     *
     * @param slot a slot index
     * @param offset byte offset of the word in the slot
     * @return the word
     */
    static long homeLoad(int slot, int offset) {
        return HOME_REGION.getLongVolatile((long) slot * SLOT_BYTES + offset);
    }

    /** @return the home node (where the rings live: their consumer is the home CPU) */
    static Node home() {
        return HOME;
    }

    /**
     * The calling thread's endpoint on a client node.
     *
     * @param clientId 1, 2 or 3
     * @return the endpoint, opened on first use by this thread
     */
    static Endpoint client(int clientId) {
        return CLIENTS.get(clientId).get();
    }

    /**
     * The calling thread's handle for a slot, made on its first use of that slot and kept for every later state that
     * takes the slot: handles that register memory cannot be made per state. Such a handle holds nothing of the state
     * but what the object itself re-reads from memory (a versioned register's last tag only grows past the zeroed
     * words' tag 0; a multi-writer's guess of the control word is corrected by its first CAS).
     *
     * @param handles the calling actor's thread-local table, {@link #SLOTS} entries
     * @param slot the state's slot
     * @param attach makes the handle from the slot index, with the calling thread's endpoint
     * @param <H> the handle type
     * @return the handle
     */
    static <H> H handle(ThreadLocal<Object[]> handles, int slot, IntFunction<H> attach) {
        Object[] table = handles.get();
        @SuppressWarnings("unchecked")
        H h = (H) table[slot];
        if (h == null) {
            h = attach.apply(slot);
            table[slot] = h;
        }
        return h;
    }

    /** @return a fresh thread-local table for {@link #handle} */
    static ThreadLocal<Object[]> handleTable() {
        return ThreadLocal.withInitial(() -> new Object[SLOTS]);
    }

    /**
     * A value of {@code length} bytes, each {@code k}: every data word of a versioned register then carries the same
     * bytes, so a mix of two values shows in the bytes themselves.
     *
     * @param k the byte
     * @param length bytes
     * @return the value
     */
    static byte[] filled(int k, int length) {
        byte[] v = new byte[length];
        Arrays.fill(v, (byte) k);
        return v;
    }

    /**
     * Names a value read back: 0 for the empty initial value, {@code k} for {@code length} bytes of {@code k} (1 to 9),
     * -1 for anything else (a mix of two writes' bytes, a wrong length).
     *
     * @param v the value
     * @param length the length of every written value
     * @return its name
     */
    static int classify(byte[] v, int length) {
        if (v.length == 0) {
            return 0;
        }
        if (v.length != length || v[0] < 1 || v[0] > 9) {
            return -1;
        }
        for (byte b : v) {
            if (b != v[0]) {
                return -1;
            }
        }
        return v[0];
    }
}
