package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.WaitStatus;
import dev.remora.verbs.WaitTag;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.util.List;
import java.util.Objects;

/**
 * A single-producer single-consumer channel of variable-length messages, in the style of LOCO's channels: the ring
 * lives in the consumer's memory, the producer places messages with RDMA WRITEs, and the consumer reads them with its
 * CPU, posting no verb at all. Layout: {@link SpscRingDescriptor}.
 *
 * <h2>Protocol</h2>
 * The producer keeps its own copy of the tail and a cached copy of the head. {@link Producer#offer(List)} lays the
 * records out in a local mirror of the slot area (CPU stores, which posting orders before the NIC reads them, R2),
 * then posts, in one list and one doorbell on its one queue pair to the consumer: a WRITE per contiguous span of
 * records (two when the batch wraps around, more only when a span exceeds {@link #MAX_WRITE_BYTES}), then an 8-byte
 * WRITE of the new tail. WRITEs on one queue pair land in posting order (R6): the tail word is placed only after every
 * word of the records. The consumer loads the tail (an aligned word, never torn, R18) and then the records: the
 * NIC's writes go to memory, not through any store buffer (R5), an x86 CPU's loads are not reordered with each other
 * and read memory unless the thread has its own buffered store to the word (R1), and the consumer never stores into
 * the slot area, so the records it loads after seeing a tail are the bytes placed before that tail. No fence is
 * needed on the consumer's side.
 *
 * <h2>Head: the producer READs it, the consumer never posts</h2>
 * The head lives with the ring; the consumer's CPU stores it after it has loaded a record (R1 keeps a store after
 * earlier loads), and the producer READs it only when its cached head says the batch does not fit. The other choice,
 * the consumer WRITEing the head into the producer's memory, costs the consumer a verb per poll (or per batch of
 * polls) and a round trip whenever it waits for it; reading on demand costs the producer one round trip per refill of
 * its cache, which is zero while the ring has room, and keeps the consumer free of verbs. A READ sees memory, not the
 * consumer's store buffer (R5), so it may return an older head: the producer then thinks the ring fuller than it is,
 * which is safe. The producer writes a freed record only after that READ completed, so after the consumer's loads.
 *
 * <table>
 *   <caption>Verbs and cost per method</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link Producer#offer(List)}, {@link Producer#offer(byte[])}</td><td>1 to 3 WRITEs (the record spans,
 *       then the tail) in one list, one doorbell; plus one 8-byte READ of the head when the cached head says the
 *       batch does not fit</td><td>1 (2 when the head is refreshed)</td></tr>
 *   <tr><td>{@link Consumer#poll()}</td><td>none: CPU loads and one store to its own memory</td><td>0</td></tr>
 * </table>
 * A {@code FULL} answer costs the head READ (1 round trip) and posts nothing.
 *
 * <h2>Failures</h2>
 * If the producer's WRITE list fails or times out, whether the records and the tail landed is unknown (R20); the
 * producer is then broken: {@code offer} threw a {@link RemoteAccessException} (indeterminate) and every later call
 * throws {@link IllegalStateException}. Resending at the same positions over a new queue pair could be overtaken by
 * the old queue pair's late WRITEs (R10), so the channel has to be recreated.
 *
 * <p>Not thread-safe: one producer thread, one consumer thread.
 */
public final class SpscRing {
    /** The largest WRITE the producer posts; longer spans are split (the deterministic fabric moves at most 64 words). */
    public static final int MAX_WRITE_BYTES = 512;

    /** What {@code offer} did. */
    public enum Offer {
        /** Every message of the call was placed and published. */
        OK,
        /** The ring has no room for the call's messages, even after refreshing the head: nothing was posted. */
        FULL
    }

    private SpscRing() {
    }

    /** The consumer's side: owns the region and polls it with its CPU. */
    public static final class Consumer {
        private final MemoryRegion region;
        private final int capacity;
        private final int maxPayload;
        private long head;
        private long tail;

        private Consumer(MemoryRegion region, int capacity) {
            this.region = region;
            this.capacity = capacity;
            this.maxPayload = SpscRingDescriptor.maxPayload(capacity);
        }

        /**
         * Allocates a ring on the consumer's node.
         *
         * @param node the consumer's node
         * @param capacity bytes of the slot area: a multiple of 8, at least {@link SpscRingDescriptor#MIN_CAPACITY}
         * @return the consumer
         */
        public static Consumer create(Node node, int capacity) {
            Objects.requireNonNull(node, "node");
            if (capacity < SpscRingDescriptor.MIN_CAPACITY || (capacity & 7) != 0) {
                throw new IllegalArgumentException("capacity must be a multiple of 8, at least "
                    + SpscRingDescriptor.MIN_CAPACITY + ": " + capacity);
            }
            MemoryRegion region = node.allocate(SpscRingDescriptor.regionLength(capacity),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
            region.putLongVolatile(SpscRingDescriptor.CAPACITY_OFFSET, capacity);
            return new Consumer(region, capacity);
        }

        /** @return the address a producer attaches to */
        public RemoteAddress address() {
            return region.remote(0);
        }

        /** @return the largest payload */
        public int maxPayload() {
            return maxPayload;
        }

        /**
         * Takes the next message, if one has been published. No verbs: CPU loads of the ring and one store of the head.
         *
         * @return the message, or null if the ring is empty
         * @throws IllegalStateException if a record is malformed (the ring was written by something else)
         */
        public byte[] poll() {
            for (int i = 0; i < 2; i++) {
                if (head == tail) {
                    // R6: the tail is placed after the records it covers; R18: one aligned word, never torn.
                    tail = region.getLongVolatile(SpscRingDescriptor.TAIL_OFFSET);
                    if (head == tail) {
                        return null;
                    }
                }
                int off = (int) (head % capacity);
                // R1, R5: this load follows the tail's load and reads memory, where the NIC placed the record.
                long len = region.getLong(SpscRingDescriptor.SLOTS_OFFSET + off);
                if (len == SpscRingDescriptor.PAD) {
                    head += capacity - off;
                    // R1: the store of the head follows the loads of the record it frees.
                    region.putLongVolatile(SpscRingDescriptor.HEAD_OFFSET, head);
                    continue;
                }
                int rec = len < 0 || len > maxPayload ? -1 : SpscRingDescriptor.recordLength((int) len);
                if (rec < 0 || off + rec > capacity || head + rec > tail) {
                    throw new IllegalStateException("malformed record at position " + head + ": length " + len
                        + ", tail " + tail);
                }
                byte[] m = new byte[(int) len];
                region.getBytes(SpscRingDescriptor.SLOTS_OFFSET + off + SpscRingDescriptor.LENGTH_WORD, m, 0, m.length);
                head += rec;
                // R1: the store of the head follows the loads of the record it frees (TSO keeps stores after loads).
                region.putLongVolatile(SpscRingDescriptor.HEAD_OFFSET, head);
                return m;
            }
            return null; // a pad, then nothing published after it yet
        }

        /** @return bytes consumed so far */
        public long head() {
            return head;
        }

        /** Deregisters the ring. */
        public void close() {
            region.deregister();
        }
    }

    /** The producer's side: one thread, one endpoint. */
    public static final class Producer {
        private final Endpoint data;
        private final Endpoint tailEndpoint;
        private final RemoteAddress ring;
        private final int capacity;
        private final int maxPayload;
        private final MemoryRegion mirror;
        private final WaitTag tag;
        private final WaitTag tailTag;
        private final WorkRequest[] wrs;
        private final WorkRequest tailWr = new WorkRequest();
        private long tail;
        private long cachedHead;
        private boolean broken;

        private Producer(Endpoint data, Endpoint tailEndpoint, RemoteAddress ring, int capacity) {
            this.data = data;
            this.tailEndpoint = tailEndpoint;
            this.ring = ring;
            this.capacity = capacity;
            this.maxPayload = SpscRingDescriptor.maxPayload(capacity);
            // The mirror of the slot area, then the tail word the tail WRITE sends.
            this.mirror = data.node().allocate(capacity + 8L, Access.LOCAL_WRITE);
            this.tag = data.newTag("spsc-ring");
            this.tailTag = tailEndpoint == data ? tag : tailEndpoint.newTag("spsc-ring-tail");
            this.wrs = new WorkRequest[capacity / MAX_WRITE_BYTES + 4];
            for (int i = 0; i < wrs.length; i++) {
                wrs[i] = new WorkRequest();
            }
        }

        /**
         * Attaches the single producer. One 8-byte READ (the capacity) and one of the head.
         *
         * @param endpoint the producer thread's endpoint
         * @param ring the consumer's {@link Consumer#address()}
         * @return the producer
         */
        public static Producer attach(Endpoint endpoint, RemoteAddress ring) {
            return attach(endpoint, endpoint, ring);
        }

        /**
         * The unsafe variant, for tests only: the tail WRITE goes through another endpoint, so on another queue pair
         * than the records, and nothing orders the two (R10): the consumer can see a tail before the records.
         */
        static Producer attachUnsafeSplitQueuePairs(Endpoint data, Endpoint tail, RemoteAddress ring) {
            return attach(data, tail, ring);
        }

        private static Producer attach(Endpoint data, Endpoint tail, RemoteAddress ring) {
            Objects.requireNonNull(data, "endpoint");
            Objects.requireNonNull(ring, "ring");
            long cap = data.readLong(ring.plus(SpscRingDescriptor.CAPACITY_OFFSET));
            if (cap < SpscRingDescriptor.MIN_CAPACITY || (cap & 7) != 0 || cap > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("no ring at " + ring + " (capacity word " + cap + ")");
            }
            Producer p = new Producer(data, tail, ring, (int) cap);
            p.cachedHead = data.readLong(ring.plus(SpscRingDescriptor.HEAD_OFFSET));
            p.tail = data.readLong(ring.plus(SpscRingDescriptor.TAIL_OFFSET));
            return p;
        }

        /** @return the largest payload */
        public int maxPayload() {
            return maxPayload;
        }

        /**
         * Publishes one message: {@link #offer(List)} of one.
         *
         * @param message the payload, 0 to {@link #maxPayload()} bytes
         * @return OK or FULL
         */
        public Offer offer(byte[] message) {
            return offer(List.of(message));
        }

        /**
         * Publishes the messages in order, all or none, with one doorbell and one round trip. A batch's records
         * (8 bytes of length plus the payload padded to 8, each) total at most half the capacity: then the batch
         * crosses at most one lap boundary, its pad is shorter than its record, and it fits into an empty ring.
         *
         * @param messages payloads, each 0 to {@link #maxPayload()} bytes, records totalling at most capacity / 2
         * @return {@link Offer#OK}, or {@link Offer#FULL} if they do not fit even after refreshing the head
         * @throws RemoteAccessException if the WRITEs failed: the outcome is unknown and the producer is broken
         * @throws IllegalStateException if the producer is broken
         */
        public Offer offer(List<byte[]> messages) {
            if (broken) {
                throw new IllegalStateException("the producer is broken: an earlier offer had an unknown outcome");
            }
            long p = tail;
            long recordBytes = 0;
            for (byte[] m : messages) {
                if (m.length > maxPayload) {
                    throw new IllegalArgumentException("message of " + m.length + " bytes, at most " + maxPayload);
                }
                int rec = SpscRingDescriptor.recordLength(m.length);
                recordBytes += rec;
                if (recordBytes > capacity / 2) {
                    throw new IllegalArgumentException("a batch of more than " + capacity / 2
                        + " bytes of records might never fit: split it");
                }
                long off = p % capacity;
                if (capacity - off < rec) {
                    p += capacity - off; // a pad to the end of the lap
                }
                p += rec;
            }
            if (p == tail) {
                return Offer.OK;
            }
            if (p - cachedHead > capacity) {
                cachedHead = data.readLong(ring.plus(SpscRingDescriptor.HEAD_OFFSET));
                if (p - cachedHead > capacity) {
                    return Offer.FULL;
                }
            }
            // Lay the records out in the mirror: CPU stores, which the NIC's later source reads see (R2).
            long q = tail;
            for (byte[] m : messages) {
                int rec = SpscRingDescriptor.recordLength(m.length);
                int off = (int) (q % capacity);
                if (capacity - off < rec) {
                    mirror.putLong(off, SpscRingDescriptor.PAD);
                    q += capacity - off;
                    off = 0;
                }
                mirror.putLong(off, m.length);
                mirror.putBytes(off + SpscRingDescriptor.LENGTH_WORD, m, 0, m.length);
                q += rec;
            }
            // R3, R11: the mirror is rewritten only after the previous offer's WRITEs completed (their sources read).
            mirror.putLong(capacity, p);
            int n = 0;
            long from = tail;
            while (from < p) {
                int off = (int) (from % capacity);
                int len = (int) Math.min(Math.min(p - from, capacity - off), MAX_WRITE_BYTES);
                wrs[n++].write(mirror, off, len, ring.plus(SpscRingDescriptor.SLOTS_OFFSET + off)).flags(0);
                from += len;
            }
            RemoteAddress tailAddress = ring.plus(SpscRingDescriptor.TAIL_OFFSET);
            if (tailEndpoint == data) {
                // R6: the tail WRITE comes after the record WRITEs on the same queue pair, so it lands after them.
                wrs[n++].write(mirror, capacity, Long.BYTES, tailAddress).flags(0);
                post(data, tag, wrs, n);
                await(tag);
            } else {
                // The unsafe variant: records and tail on two queue pairs, unordered (R10).
                post(data, tag, wrs, n);
                tailWr.write(mirror, capacity, Long.BYTES, tailAddress).flags(0);
                post(tailEndpoint, tailTag, new WorkRequest[] {tailWr}, 1);
                await(tag);
                await(tailTag);
            }
            tail = p;
            return Offer.OK;
        }

        private void post(Endpoint ep, WaitTag t, WorkRequest[] list, int count) {
            QueuePair qp = ep.queuePair(ring.nodeId());
            if (t.post(qp, list, count) != QueuePair.POSTED) {
                broken = true;
                throw new RemoteAccessException(WcStatus.GENERAL_ERR, "send queue full posting " + count + " WRITEs");
            }
        }

        private void await(WaitTag t) {
            WaitStatus s = t.await(data.operationTimeoutNs());
            if (s == WaitStatus.COMPLETED) {
                return;
            }
            broken = true;
            WcStatus status = s == WaitStatus.FAILED ? t.lastError() : WcStatus.RETRY_EXC_ERR;
            throw new RemoteAccessException(status, "ring WRITEs to " + ring + (s == WaitStatus.FAILED ? " failed"
                : " timed out") + ": whether they landed is unknown");
        }

        /** @return bytes published so far */
        public long tail() {
            return tail;
        }

        /** Frees the mirror. */
        public void close() {
            mirror.deregister();
        }
    }
}
