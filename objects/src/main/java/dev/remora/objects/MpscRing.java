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

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A many-producer single-consumer channel of messages up to a fixed slot size, in the consumer's memory. Layout:
 * {@link MpscRingDescriptor}.
 *
 * <h2>Protocol</h2>
 * A producer reserves a position {@code p} with one FETCH_ADD of 1 on the tail word (rao: reservations are distinct,
 * R14). It waits until the slot is free ({@code p < head + slots}, head READ when its cached copy says otherwise),
 * then posts in one list, one doorbell, on its queue pair to the consumer: a WRITE of the length word and payload,
 * then an 8-byte WRITE of the slot's sequence word with {@code p + 1} (the commit). WRITEs of one queue pair land in
 * posting order (R6), so a committed sequence is placed only after every word of its message. The consumer's CPU
 * loads the sequence of the slot at its head; if it is {@code head + 1} it loads the message (R1: loads in order; R5:
 * the NIC placed them in memory), then stores the new head (R1: after those loads). It stops at the first
 * uncommitted slot, so it never reads a reserved but unwritten or half-written slot, whatever the other producers
 * do: their WRITEs are on other queue pairs and unordered (R10), but each slot's commit is ordered after its own
 * data. A sequence encodes its position, so a commit left from an earlier lap is never taken for the current one.
 * Fixed-size slots are what make a FETCH_ADD of 1 a reservation; variable lengths would need a byte-granular FETCH_ADD
 * and a commit per record, and are left to {@link SpscRing}.
 *
 * <h2>Abandoned reservations and the bounded skip</h2>
 * A producer that crashes between its FETCH_ADD and its commit leaves a hole the consumer would wait at forever. The
 * consumer therefore skips a position once it has been reserved (the tail word, loaded by its CPU, is past it) and
 * has stayed uncommitted for the ring's skip timeout on the consumer's clock: it stores the skip mark
 * {@code -(p + 1)} in the sequence word and advances the head. A producer that is only slow keeps to the same bound
 * from its side: it posts its WRITEs only if less than half the skip timeout has passed since its FETCH_ADD returned,
 * and otherwise gives its reservation up and answers {@link Offer#FULL}. <b>The risk:</b> this is a timing
 * assumption, like a lease. If a producer's WRITEs are delayed in flight (posted before its half timeout, placed
 * after the consumer skipped: R3, R20 allow a request to take effect late) past the other half, its payload can land
 * in the slot after the consumer moved on; if the slot has meanwhile been reused one lap later, those late bytes can
 * overwrite a newer message before the consumer reads it (its commit, {@code p + 1}, is never mistaken for the newer
 * one's, but the data WRITE is not guarded). Choose a skip timeout far above the transport's retry timeout
 * (a broken queue pair's requests end with it), and the ring large enough that a slot is not reused within it. A
 * message whose slot was skipped is lost; the producer saw OK only if its WRITEs completed, which a skip within the
 * timing assumption cannot follow.
 *
 * <table>
 *   <caption>Verbs and cost per method</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link Producer#offer(byte[])}</td><td>one FETCH_ADD; one list of two WRITEs (message, commit) in one
 *       doorbell; an 8-byte READ of the head per refresh while the slot is not free</td><td>2 (3 or more when the
 *       head is refreshed)</td></tr>
 *   <tr><td>{@link Consumer#poll()}</td><td>none: CPU loads and stores to its own memory</td><td>0</td></tr>
 * </table>
 *
 * <p>Producers: one handle per thread, any number of threads and nodes. Consumer: one thread.
 */
public final class MpscRing {
    /** What {@code offer} did. */
    public enum Offer {
        /** The message was written and committed. */
        OK,
        /**
         * The slot reserved for the message did not become free within half the skip timeout (the ring stayed full),
         * so nothing was written; the reservation is abandoned and the consumer skips it after the skip timeout.
         */
        FULL
    }

    private MpscRing() {
    }

    /** The consumer: owns the region and polls it with its CPU. */
    public static final class Consumer {
        private final MemoryRegion region;
        private final int slots;
        private final int payload;
        private final int slotLength;
        private final long skipTimeoutNs;
        private final LongSupplier clock;
        private long head;
        private long waitingAt = -1;
        private long waitingSince;
        private long skipped;

        private Consumer(MemoryRegion region, int slots, int payload, long skipTimeoutNs, LongSupplier clock) {
            this.region = region;
            this.slots = slots;
            this.payload = payload;
            this.slotLength = MpscRingDescriptor.slotLength(payload);
            this.skipTimeoutNs = skipTimeoutNs;
            this.clock = clock;
        }

        /**
         * Allocates a ring on the consumer's node.
         *
         * @param node the consumer's node
         * @param slots number of slots, at least 1
         * @param payload bytes of message a slot holds, at least 0
         * @param skipTimeoutNs how long an uncommitted reserved slot is waited for before it is skipped, positive
         * @param clock the consumer's clock in nanoseconds (the fabric's virtual clock on the deterministic fabric)
         * @return the consumer
         */
        public static Consumer create(Node node, int slots, int payload, long skipTimeoutNs, LongSupplier clock) {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(clock, "clock");
            if (slots < 1 || payload < 0 || skipTimeoutNs <= 0) {
                throw new IllegalArgumentException("slots " + slots + ", payload " + payload + ", skip timeout "
                    + skipTimeoutNs);
            }
            MemoryRegion region = node.allocate(MpscRingDescriptor.regionLength(slots, payload),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
            region.putLongVolatile(MpscRingDescriptor.SLOTS_WORD_OFFSET, slots);
            region.putLongVolatile(MpscRingDescriptor.PAYLOAD_WORD_OFFSET, payload);
            region.putLongVolatile(MpscRingDescriptor.SKIP_TIMEOUT_OFFSET, skipTimeoutNs);
            return new Consumer(region, slots, payload, skipTimeoutNs, clock);
        }

        /** @return the address producers attach to */
        public RemoteAddress address() {
            return region.remote(0);
        }

        /** @return positions skipped so far (abandoned reservations) */
        public long skipped() {
            return skipped;
        }

        /** @return positions consumed or skipped so far */
        public long head() {
            return head;
        }

        /**
         * Takes the next committed message. Skips the position at the head if it was reserved and has stayed
         * uncommitted for the skip timeout (then looks at the next one). No verbs.
         *
         * @return the message, or null if the slot at the head is not committed
         * @throws IllegalStateException if a committed slot holds a length out of range
         */
        public byte[] poll() {
            while (true) {
                long slot = MpscRingDescriptor.SLOTS_OFFSET + (head % slots) * slotLength;
                // R6: a commit is placed after its message; R18: one aligned word, never torn.
                long seq = region.getLongVolatile(slot + MpscRingDescriptor.SEQUENCE_IN_SLOT);
                if (seq == MpscRingDescriptor.committed(head)) {
                    // R1, R5: these loads follow the sequence's load and read memory, where the NIC placed them.
                    long len = region.getLong(slot + MpscRingDescriptor.LENGTH_IN_SLOT);
                    if (len < 0 || len > payload) {
                        throw new IllegalStateException("committed slot at position " + head + " has length " + len);
                    }
                    byte[] m = new byte[(int) len];
                    region.getBytes(slot + MpscRingDescriptor.PAYLOAD_IN_SLOT, m, 0, m.length);
                    advance();
                    return m;
                }
                // The tail word is written only by remote atomics; the CPU only loads it (R14 forbids CPU writes).
                if (region.getLongVolatile(MpscRingDescriptor.TAIL_OFFSET) <= head) {
                    return null; // not reserved yet
                }
                long now = clock.getAsLong();
                if (waitingAt != head) {
                    waitingAt = head;
                    waitingSince = now;
                    return null;
                }
                if (now - waitingSince < skipTimeoutNs) {
                    return null;
                }
                region.putLongVolatile(slot + MpscRingDescriptor.SEQUENCE_IN_SLOT, MpscRingDescriptor.skipped(head));
                skipped++;
                advance();
            }
        }

        private void advance() {
            head++;
            waitingAt = -1;
            // R1: the store of the head follows the loads of the slot it frees (TSO keeps stores after loads).
            region.putLongVolatile(MpscRingDescriptor.HEAD_OFFSET, head);
        }

        /** Deregisters the ring. */
        public void close() {
            region.deregister();
        }
    }

    /** One producer thread's handle. */
    public static final class Producer {
        private final Endpoint endpoint;
        private final RemoteAddress ring;
        private final int slots;
        private final int payload;
        private final int slotLength;
        private final long skipTimeoutNs;
        private final MemoryRegion staging;
        private final WaitTag tag;
        private final WorkRequest[] wrs = {new WorkRequest(), new WorkRequest()};
        private long cachedHead;
        private boolean broken;

        private Producer(Endpoint endpoint, RemoteAddress ring, int slots, int payload, long skipTimeoutNs) {
            this.endpoint = endpoint;
            this.ring = ring;
            this.slots = slots;
            this.payload = payload;
            this.slotLength = MpscRingDescriptor.slotLength(payload);
            this.skipTimeoutNs = skipTimeoutNs;
            this.staging = endpoint.node().allocate(slotLength, Access.LOCAL_WRITE);
            this.tag = endpoint.newTag("mpsc-ring");
        }

        /**
         * Attaches a producer. Three 8-byte READs (the ring's parameters) and one of the head.
         *
         * @param endpoint the producer thread's endpoint
         * @param ring the consumer's {@link Consumer#address()}
         * @return the producer
         */
        public static Producer attach(Endpoint endpoint, RemoteAddress ring) {
            Objects.requireNonNull(endpoint, "endpoint");
            Objects.requireNonNull(ring, "ring");
            long slots = endpoint.readLong(ring.plus(MpscRingDescriptor.SLOTS_WORD_OFFSET));
            long payload = endpoint.readLong(ring.plus(MpscRingDescriptor.PAYLOAD_WORD_OFFSET));
            long skip = endpoint.readLong(ring.plus(MpscRingDescriptor.SKIP_TIMEOUT_OFFSET));
            if (slots < 1 || slots > Integer.MAX_VALUE || payload < 0 || payload > Integer.MAX_VALUE / 2 || skip <= 0) {
                throw new IllegalArgumentException("no ring at " + ring);
            }
            Producer p = new Producer(endpoint, ring, (int) slots, (int) payload, skip);
            p.cachedHead = endpoint.readLong(ring.plus(MpscRingDescriptor.HEAD_OFFSET));
            return p;
        }

        /** @return the largest payload */
        public int maxPayload() {
            return payload;
        }

        /**
         * Reserves a position, waits for its slot to be free (at most half the skip timeout), writes and commits.
         *
         * @param message 0 to {@link #maxPayload()} bytes
         * @return OK, or FULL if the slot did not become free in time (the reservation is then abandoned)
         * @throws RemoteAccessException if a verb failed; an indeterminate one (see
         *     {@link RemoteAccessException#isIndeterminate()}) may have committed the message
         */
        public Offer offer(byte[] message) {
            if (message.length > payload) {
                throw new IllegalArgumentException("message of " + message.length + " bytes, at most " + payload);
            }
            if (broken) {
                throw new IllegalStateException("the producer is broken: a timed-out offer may still read its staging");
            }
            long p = endpoint.faa(ring.plus(MpscRingDescriptor.TAIL_OFFSET), 1);
            long reserved = endpoint.nanoTime();
            long budget = skipTimeoutNs / 2;
            int spins = 16;
            while (p - cachedHead >= slots) {
                if (endpoint.nanoTime() - reserved >= budget) {
                    return Offer.FULL;
                }
                cachedHead = endpoint.readLong(ring.plus(MpscRingDescriptor.HEAD_OFFSET));
                if (p - cachedHead >= slots) {
                    // Bounded exponential backoff (CPU spins, then yields; no clock, so the same on every fabric):
                    // a tight loop of READs would crowd out the WRITEs of the producers the consumer waits for.
                    for (int i = 0; i < spins; i++) {
                        Thread.onSpinWait();
                    }
                    if (spins == 1024) {
                        Thread.yield();
                    }
                    spins = Math.min(1024, spins * 2);
                }
            }
            // Stage length and payload, then the commit word: CPU stores the later post's source reads see (R2).
            staging.putLong(0, message.length);
            staging.putBytes(Long.BYTES, message, 0, message.length);
            staging.putLong(slotLength - Long.BYTES, MpscRingDescriptor.committed(p));
            if (endpoint.nanoTime() - reserved >= budget) {
                return Offer.FULL; // too late: the consumer may skip the position while the WRITEs are in flight
            }
            long slot = MpscRingDescriptor.SLOTS_OFFSET + (p % slots) * slotLength;
            int dataBytes = MpscRingDescriptor.PAYLOAD_IN_SLOT - MpscRingDescriptor.LENGTH_IN_SLOT
                + ((message.length + 7) & ~7);
            wrs[0].write(staging, 0, dataBytes, ring.plus(slot + MpscRingDescriptor.LENGTH_IN_SLOT)).flags(0);
            // R6: the commit WRITE follows the message WRITE on the same queue pair, so it lands after all its words.
            wrs[1].write(staging, slotLength - Long.BYTES, Long.BYTES,
                ring.plus(slot + MpscRingDescriptor.SEQUENCE_IN_SLOT)).flags(0);
            QueuePair qp = endpoint.queuePair(ring.nodeId());
            if (tag.post(qp, wrs, 2) != QueuePair.POSTED) {
                throw new RemoteAccessException(WcStatus.GENERAL_ERR, "send queue full");
            }
            WaitStatus s = tag.await(endpoint.operationTimeoutNs());
            if (s != WaitStatus.COMPLETED) {
                // R3: a request that has not completed may still read its source: never reuse the staging then.
                broken = s == WaitStatus.TIMED_OUT;
                WcStatus status = s == WaitStatus.FAILED ? tag.lastError() : WcStatus.RETRY_EXC_ERR;
                throw new RemoteAccessException(status, "ring WRITEs for position " + p + " to " + ring
                    + (s == WaitStatus.FAILED ? " failed" : " timed out") + ": whether they landed is unknown");
            }
            return Offer.OK;
        }

        /** Frees the staging buffer. */
        public void close() {
            staging.deregister();
        }
    }
}
