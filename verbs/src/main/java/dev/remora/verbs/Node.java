package dev.remora.verbs;

import java.nio.ByteBuffer;

/**
 * A node of a fabric: it owns memory and a NIC, like a host with an RDMA device and a protection domain.
 *
 * <p>Thread-safe.
 */
public interface Node {

    /** @return the fabric-wide id, used in {@link RemoteAddress} */
    int id();

    /** @return a human-readable name, e.g. {@code N1} */
    String name();

    /** @return the fabric this node belongs to */
    Fabric fabric();

    /**
     * @return where peers reach this node with {@link Fabric#connect(String)}: {@code host:port} between processes,
     *     {@code <provider>:<name>} on an in-process fabric
     */
    String address();

    /**
     * Whether this node's memory lives in this process. A peer's handle (from {@link Fabric#connect(String)}) is not
     * local: its memory, queue pairs and completion queues belong to its own process, so {@link #allocate},
     * {@link #register}, {@link #createCompletionQueue}, {@link #createQueuePair} and {@link #fullFence} throw
     * {@link UnsupportedOperationException} on it; it is the target of one-sided verbs.
     *
     * @return true for a node added by {@link Fabric#addNode} in this process
     */
    default boolean isLocal() {
        return true;
    }

    /**
     * Allocates zeroed memory and registers it ({@code posix_memalign} plus {@code ibv_reg_mr}).
     *
     * @param lengthBytes size in bytes, positive; regions are 8-byte aligned
     * @param access flags from {@link Access}
     * @return the registered region
     */
    MemoryRegion allocate(long lengthBytes, int access);

    /**
     * Registers caller-supplied direct memory ({@code ibv_reg_mr}). The caller hands the buffer over: from now on it
     * must access the memory only through the returned region, or a deterministic fabric cannot see its accesses.
     * Providers that cannot register foreign memory throw {@link UnsupportedOperationException}.
     *
     * <p>The region must start at an 8-byte-aligned native address, as {@link #allocate} regions do, so that its
     * aligned offsets are aligned words for the CPU and for remote atomics: slice a buffer at an index where
     * {@link ByteBuffer#alignmentOffset(int, int) alignmentOffset(index, 8)} is 0.
     *
     * @param directBuffer a direct buffer; its position and limit delimit the region
     * @param access flags from {@link Access}
     * @return the registered region
     * @throws IllegalArgumentException if the buffer is not direct, has no bytes remaining, or its position is not
     *     at an 8-byte-aligned native address
     */
    MemoryRegion register(ByteBuffer directBuffer, int access);

    /**
     * Creates a completion queue ({@code ibv_create_cq}).
     *
     * @param depth number of entries, positive
     * @return the queue
     */
    CompletionQueue createCompletionQueue(int depth);

    /**
     * Creates an unconnected queue pair ({@code ibv_create_qp}, state RESET).
     *
     * @param sendCq completion queue for the send queue
     * @param recvCq completion queue for the receive queue (may be the same)
     * @return the queue pair
     */
    QueuePair createQueuePair(CompletionQueue sendCq, CompletionQueue recvCq);

    /**
     * Connects two queue pairs created on this node and on another ({@code ibv_modify_qp} to RTS on both, after
     * exchanging their numbers out of band).
     *
     * @param local a queue pair of this node, in RESET
     * @param remote a queue pair of another node, in RESET
     */
    void connect(QueuePair local, QueuePair remote);

    /**
     * Convenience for one-sided use: creates a local queue pair completing into {@code cq}, a passive queue pair on
     * {@code target} (it has no receive completion queue, so SENDs to it fail with
     * {@link WcStatus#RNR_RETRY_EXC_ERR}), and connects them.
     *
     * @param target the peer
     * @param cq the local send and receive completion queue
     * @return the local queue pair, in RTS
     */
    QueuePair connect(Node target, CompletionQueue cq);

    /**
     * A CPU memory fence ({@code mfence}): drains this thread's store buffer.
     */
    void fullFence();

    /** @return whether this node has crashed */
    boolean isCrashed();
}
