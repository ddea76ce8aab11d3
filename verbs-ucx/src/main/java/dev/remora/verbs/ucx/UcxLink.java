package dev.remora.verbs.ucx;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a local node keeps about one target node: the UCX endpoint from its worker to the target's ({@code ucp_ep_h},
 * shared by every queue pair between the two nodes, as a NIC shares a connection), and the target's remote keys it
 * learned, each unpacked for that endpoint ({@code ucp_rkey_h}). Guarded by the node's lock.
 */
final class UcxLink {
    /** A remote key of the target, as its owner described it. */
    static final class KeyRecord {
        final int key;
        /** Still being fetched from the target's connection manager. */
        boolean pending = true;
        /** The target does not know the key (never registered, or deregistered): requests with it are refused. */
        boolean refused;
        long base;
        long length;
        int access;
        MemorySegment rkey = MemorySegment.NULL;
        /** Queue pairs waiting for the answer. */
        final List<UcxQueuePair> waiters = new ArrayList<>(2);

        KeyRecord(int key) {
            this.key = key;
        }

        boolean contains(long address, long len) {
            return address >= base && len >= 0 && address - base <= length - len;
        }
    }

    final UcxNode node;
    final int targetId;
    /** The target's worker address, from which the endpoint is created. */
    final MemorySegment workerAddress;
    final long targetIncarnation;
    MemorySegment ep = MemorySegment.NULL;
    /** The status that failed the endpoint's creation, or 0. */
    int failed;
    /**
     * Whether WRITEs are ordered by a completed flush rather than a fence: {@link UcxContext.Ordering#FLUSH}, or
     * {@link UcxContext.Ordering#AUTO} on an endpoint with several lanes for requests (or whose lanes are unknown).
     */
    boolean flushOrdering;
    /** The endpoint's lanes that carry requests, once wired up; 0 before. */
    int requestLanes;
    final Map<Integer, KeyRecord> keys = new HashMap<>();
    /** Unpacked keys of revoked records, destroyed when the link closes (requests may still use them). */
    final List<MemorySegment> retiredKeys = new ArrayList<>();

    UcxLink(UcxNode node, int targetId, MemorySegment workerAddress, long targetIncarnation,
            UcxContext.Ordering ordering) {
        this.node = node;
        this.flushOrdering = ordering != UcxContext.Ordering.FENCE;
        this.targetId = targetId;
        this.workerAddress = workerAddress;
        this.targetIncarnation = targetIncarnation;
    }

    @Override
    public String toString() {
        return "UcxLink{" + node.name() + " -> node " + targetId + ", " + keys.size() + " keys}";
    }
}
