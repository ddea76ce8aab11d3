package dev.remora.objects;

import dev.remora.objects.ModelChains.Opened;
import dev.remora.objects.ModelChains.Step;
import dev.remora.objects.ModelChains.Value;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimFabric;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.state.ActionChain;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static dev.remora.objects.ModelChains.action;
import static dev.remora.objects.ModelChains.assertNamedError;
import static dev.remora.objects.ModelChains.show;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model-based tests of the rings: random chains of offers and polls, applied to the ring on the fast software fabric
 * (consumer on one node, producers on others) and to a sequential model (an {@link ArrayDeque} of messages with the
 * ring's byte positions, pads and cached head for {@link SpscRing}; an {@link ArrayDeque} of slots, abandoned ones
 * included, and the consumer's clock for {@link MpscRing}), whose answers must agree: the same messages in order,
 * {@code FULL} exactly when the model is full, wrap-around. After every step an invariant compares the ring's words
 * with the model's positions. Bad input is a step too: it must fail with the named error and change nothing. Chains
 * per property: {@link ModelChains#CHAINS}; at most {@value #LENGTH} steps.
 */
@AddLifecycleHook(ModelChains.class)
class RingsModelTest {
    static final int LENGTH = 40;

    private final Opened opened = new Opened();
    /** The current chain's ring shape: parameters of the property, read by the chain's initial state. */
    private int capacity;
    private int slots;
    private int payload;

    private static VerbsStatistics cost(Endpoint ep, VerbsStatistics before) {
        return ep.statistics().minus(before);
    }

    // ------------------------------------------------------------------ SpscRing

    /** One published message of the SPSC model and the position after its record. */
    record Published(byte[] message, long end) {
    }

    /**
     * An {@link SpscRing} of {@code capacity} bytes on the consumer's node, its producer on another; the model keeps
     * the published messages with their positions, the tail (pads included), the head (the end of the last record
     * polled) and the producer's cached head.
     */
    final class Spsc {
        final int capacity;
        final int maxPayload;
        final Node consumerNode;
        final SpscRing.Consumer consumer;
        final SpscRing.Producer producer;
        final Endpoint producerEndpoint;
        final Endpoint observer;
        final ArrayDeque<Published> model = new ArrayDeque<>();
        long tail;
        long head;
        long cachedHead;

        Spsc(int capacity) {
            this.capacity = capacity;
            this.maxPayload = SpscRingDescriptor.maxPayload(capacity);
            Fabric fabric = opened.add(SimFabric.open());
            consumerNode = fabric.addNode("consumer");
            consumer = SpscRing.Consumer.create(consumerNode, capacity);
            opened.add(consumer::close);
            producerEndpoint = opened.add(Endpoint.open(fabric.addNode("producer")));
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            producer = SpscRing.Producer.attach(producerEndpoint, consumer.address());
            opened.add(producer::close);
        }

        /** The consumer's head, the producer's tail and the ring's two words are the model's positions. */
        void invariant() {
            assertEquals(head, consumer.head(), () -> this + ": the consumer's head");
            assertEquals(tail, producer.tail(), () -> this + ": the producer's tail");
            assertEquals(tail, observer.readLong(consumer.address().plus(SpscRingDescriptor.TAIL_OFFSET)),
                () -> this + ": the tail word");
            assertEquals(head, observer.readLong(consumer.address().plus(SpscRingDescriptor.HEAD_OFFSET)),
                () -> this + ": the head word");
            assertTrue(tail - head >= 0 && tail - head <= capacity, () -> this + ": tail - head out of range");
        }

        /** @return the WRITEs the producer posts for the records from {@code from} to {@code to}, the tail excluded */
        int spans(long from, long to) {
            int n = 0;
            while (from < to) {
                int off = (int) (from % capacity);
                from += Math.min(Math.min(to - from, capacity - off), SpscRing.MAX_WRITE_BYTES);
                n++;
            }
            return n;
        }

        @Override
        public String toString() {
            return "ring of " + capacity + " bytes (payloads up to " + maxPayload + ")";
        }
    }

    /**
     * A call of {@code offer(byte[])} ({@code single}, the first value), which must take any payload up to
     * {@code maxPayload}, or of {@code offer(List)}, which must refuse a batch whose records exceed half the capacity,
     * posting nothing.
     */
    record SpscOffer(List<Value> values, boolean single) implements Step<Spsc> {
        @Override
        public void apply(Spsc s) {
            int capacity = s.capacity;
            List<byte[]> messages = new ArrayList<>();
            for (Value v : single ? values.subList(0, 1) : values) {
                messages.add(v.bytes(s.maxPayload));
            }
            // The model: records (length word + payload padded to 8) laid out from the tail, a pad before a record that
            // does not fit before the end of the lap.
            long p = s.tail;
            long recordBytes = 0;
            List<Published> placed = new ArrayList<>();
            for (byte[] m : messages) {
                int rec = 8 + ((m.length + 7) & ~7);
                recordBytes += rec;
                if (capacity - p % capacity < rec) {
                    p += capacity - p % capacity;
                }
                p += rec;
                placed.add(new Published(m.clone(), p));
            }
            VerbsStatistics before = s.producerEndpoint.statistics();
            // offer(byte[]) takes any payload of 0 .. maxPayload bytes; only a batch is bounded by half the capacity.
            if (!single && recordBytes > capacity / 2) {
                assertNamedError(IllegalArgumentException.class, "bytes of records might never fit",
                    () -> s.producer.offer(messages), () -> s + ": " + this);
                assertEquals(0, cost(s.producerEndpoint, before).operations(), () -> s + ": " + this + ": verbs");
                return;
            }
            boolean refresh = p - s.cachedHead > capacity;
            boolean full = p - s.head > capacity;
            SpscRing.Offer got = single ? s.producer.offer(messages.get(0)) : s.producer.offer(messages);
            VerbsStatistics used = cost(s.producerEndpoint, before);
            assertEquals(full ? SpscRing.Offer.FULL : SpscRing.Offer.OK, got, () -> s + ": " + this + " with "
                + (s.tail - s.head) + " bytes in the ring");
            assertEquals(refresh ? 1 : 0, used.reads(), () -> s + ": " + this + ": head READs");
            if (refresh) {
                s.cachedHead = s.head;
            }
            if (full) {
                assertEquals(0, used.writes(), () -> s + ": " + this + ": a FULL offer posts nothing");
                return;
            }
            assertEquals(p == s.tail ? 0 : s.spans(s.tail, p) + 1, used.writes(), () -> s + ": " + this
                + ": WRITEs (record spans, then the tail)");
            s.model.addAll(placed);
            s.tail = p;
        }

        @Override
        public String toString() {
            return single ? "offer(" + values.get(0) + ")" : "offer(List.of("
                + values.stream().map(Value::toString).collect(Collectors.joining(", ")) + "))";
        }
    }

    record SpscPoll() implements Step<Spsc> {
        @Override
        public void apply(Spsc s) {
            byte[] got = s.consumer.poll();
            Published expected = s.model.poll();
            if (expected == null) {
                assertNull(got, () -> s + ": poll of an empty ring returned " + show(got));
                return;
            }
            assertArrayEquals(expected.message(), got, () -> s + ": poll");
            s.head = expected.end();
        }

        @Override
        public String toString() {
            return "poll()";
        }
    }

    /** A batch with one message longer than the ring takes, after {@code before} empty ones. */
    record SpscTooLong(int before, int extra) implements Step<Spsc> {
        @Override
        public void apply(Spsc s) {
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < before; i++) {
                batch.add(new byte[0]);
            }
            batch.add(new byte[s.maxPayload + extra]);
            VerbsStatistics before = s.producerEndpoint.statistics();
            assertNamedError(IllegalArgumentException.class, "at most " + s.maxPayload,
                () -> s.producer.offer(batch), () -> s + ": " + this);
            assertEquals(0, cost(s.producerEndpoint, before).operations(), () -> s + ": " + this + ": verbs");
        }

        @Override
        public String toString() {
            return "offer(" + "[], ".repeat(before) + "maxPayload + " + extra + " bytes) fails";
        }
    }

    /** A batch whose records total more than half the capacity: a longest message and another. */
    record SpscTooBig(int second) implements Step<Spsc> {
        @Override
        public void apply(Spsc s) {
            List<byte[]> batch = List.of(new byte[s.maxPayload], new byte[Math.min(second, s.maxPayload)]);
            assertNamedError(IllegalArgumentException.class, "bytes of records might never fit",
                () -> s.producer.offer(batch), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "offer(List.of(maxPayload bytes, " + second + " bytes)) fails";
        }
    }

    record SpscBadCapacity(int capacity) implements Step<Spsc> {
        @Override
        public void apply(Spsc s) {
            assertNamedError(IllegalArgumentException.class, "capacity must be a multiple of 8, at least",
                () -> SpscRing.Consumer.create(s.consumerNode, capacity), this::toString);
        }

        @Override
        public String toString() {
            return "create(capacity " + capacity + ") fails";
        }
    }

    @Provide
    Arbitrary<ActionChain<Spsc>> spscChains() {
        return ActionChain.<Spsc>startWith(() -> new Spsc(capacity))
            .withAction(4, action(ModelChains.values().map(v -> new SpscOffer(List.of(v), true))))
            .withAction(3, action(ModelChains.values().list().ofMaxSize(4).map(b -> new SpscOffer(b, false))))
            .withAction(6, action(Arbitraries.just(new SpscPoll())))
            .withAction(1, action(Combinators.combine(Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(1, 9)).as(SpscTooLong::new)))
            .withAction(1, action(Arbitraries.integers().between(0, 8).map(SpscTooBig::new)))
            .withAction(1, action(Arbitraries.oneOf(Arbitraries.integers().between(-8, 31),
                Arbitraries.of(33, 36, 41, 100)).map(SpscBadCapacity::new)))
            .withMaxTransformations(LENGTH);
    }

    /**
     * A longest message fits a ring whose half capacity is an odd multiple of 4 (40 bytes: half is 20). Found by a
     * chain with a 136-byte ring: {@code maxPayload} was {@code capacity / 2 - 8}, 60 bytes, whose record (72 bytes)
     * exceeds half the capacity, so {@code offer} refused a message of the length the ring advertised.
     */
    @Example
    void aLongestMessageFitsARingWhoseHalfCapacityIsNotAMultipleOf8() {
        try {
            Spsc s = new Spsc(40);
            byte[] longest = new byte[s.maxPayload];
            Arrays.fill(longest, (byte) 7);
            assertTrue(SpscRingDescriptor.recordLength(longest.length) <= 20, "a longest record fits half the ring");
            assertEquals(SpscRing.Offer.OK, s.producer.offer(longest));
            assertArrayEquals(longest, s.consumer.poll());
        } finally {
            opened.closeAll();
        }
    }

    /** Capacities: the smallest, odd multiples of 8, and one whose half exceeds the largest WRITE (split spans). */
    @Provide
    Arbitrary<Integer> capacities() {
        return Arbitraries.of(32, 40, 48, 56, 64, 72, 136, 1104).dontShrink();
    }

    @Property
    void spscRingBehavesAsAQueueOfBytes(@ForAll("capacities") int capacity,
                                        @ForAll("spscChains") ActionChain<Spsc> chain) {
        this.capacity = capacity;
        ModelChains.run(chain.withInvariant("head, tail and their words are the model's", Spsc::invariant), opened);
    }

    // ------------------------------------------------------------------ MpscRing

    /** The consumer's skip timeout; a producer gives its reservation up after half of it (real time). */
    static final long SKIP_NS = 1_000_000L;
    private static final int PRODUCERS = 3;
    private static final Object HOLE = new Object() {
        @Override
        public String toString() {
            return "abandoned";
        }
    };

    /**
     * An {@link MpscRing} of {@code slots} slots of {@code payload} bytes on the consumer's node, three producers on
     * two others, the consumer on a clock the chain advances. The model keeps a slot per reservation from the head on
     * (a message, or {@link #HOLE} for a reservation given up with FULL), the head, the skipped positions, each
     * producer's cached head, and since when the consumer has been waiting at a hole.
     */
    final class Mpsc {
        final int slots;
        final int payload;
        final Node consumerNode;
        final MpscRing.Consumer consumer;
        final Endpoint[] clients;
        final MpscRing.Producer[] producers = new MpscRing.Producer[PRODUCERS];
        final long[] cachedHead = new long[PRODUCERS];
        final Endpoint observer;
        final ArrayDeque<Object> model = new ArrayDeque<>();
        long now;
        long head;
        long reserved;
        long skipped;
        long waitingSince = -1;

        Mpsc(int slots, int payload) {
            this.slots = slots;
            this.payload = payload;
            Fabric fabric = opened.add(SimFabric.open());
            consumerNode = fabric.addNode("consumer");
            consumer = MpscRing.Consumer.create(consumerNode, slots, payload, SKIP_NS, () -> now);
            opened.add(consumer::close);
            clients = ModelChains.clients(fabric, opened, PRODUCERS);
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            for (int i = 0; i < PRODUCERS; i++) {
                producers[i] = MpscRing.Producer.attach(clients[i], consumer.address());
                opened.add(producers[i]::close);
            }
        }

        void invariant() {
            assertEquals(head, consumer.head(), () -> this + ": the consumer's head");
            assertEquals(skipped, consumer.skipped(), () -> this + ": positions skipped");
            assertEquals(reserved, observer.readLong(consumer.address().plus(MpscRingDescriptor.TAIL_OFFSET)),
                () -> this + ": the tail word (reservations)");
            assertEquals(head, observer.readLong(consumer.address().plus(MpscRingDescriptor.HEAD_OFFSET)),
                () -> this + ": the head word");
        }

        @Override
        public String toString() {
            return "ring of " + slots + " slots of " + payload + " bytes";
        }
    }

    record MpscOffer(int c, Value v) implements Step<Mpsc> {
        @Override
        public void apply(Mpsc s) {
            byte[] message = v.bytes(s.payload);
            long p = s.reserved;
            boolean full = p - s.head >= s.slots;
            boolean refresh = p - s.cachedHead[c] >= s.slots;
            VerbsStatistics before = s.clients[c].statistics();
            long start = System.nanoTime();
            MpscRing.Offer got = s.producers[c].offer(message);
            long took = System.nanoTime() - start;
            VerbsStatistics used = cost(s.clients[c], before);
            s.reserved++;
            assertEquals(1, used.fetchAndAdds(), () -> s + ": " + this + ": one reservation");
            if (refresh) {
                s.cachedHead[c] = s.head;
            }
            if (full) {
                assertEquals(MpscRing.Offer.FULL, got, () -> s + ": " + this + " into a full ring");
                assertTrue(took >= SKIP_NS / 2, () -> s + ": " + this + ": FULL after " + took + " ns, before half the"
                    + " skip timeout");
                assertEquals(0, used.writes(), () -> s + ": " + this + ": a FULL offer writes nothing");
                s.model.add(HOLE);
                return;
            }
            if (got == MpscRing.Offer.FULL && took >= SKIP_NS / 2) {
                // Allowed: this producer was slower than half the skip timeout (a descheduled thread), so it gave
                // its reservation up rather than risk a skip while its WRITEs are in flight.
                s.model.add(HOLE);
                return;
            }
            assertEquals(MpscRing.Offer.OK, got, () -> s + ": " + this + " with room (after " + took + " ns)");
            assertEquals(2, used.writes(), () -> s + ": " + this + ": WRITEs (message, then commit)");
            assertEquals(refresh ? 1 : 0, used.reads(), () -> s + ": " + this + ": head READs");
            s.model.add(message.clone());
        }

        @Override
        public String toString() {
            return "offer(c" + c + ", " + v + ")";
        }
    }

    record MpscPoll() implements Step<Mpsc> {
        @Override
        public void apply(Mpsc s) {
            byte[] got = s.consumer.poll();
            // The model: a committed message at the head is taken; a hole is waited at from the first poll that finds
            // it, skipped once it has stayed for the skip timeout, and the poll goes on to the next position.
            while (true) {
                Object first = s.model.peek();
                if (first == null) {
                    assertNull(got, () -> s + ": poll of an empty ring returned " + show(got));
                    return;
                }
                if (first != HOLE) {
                    s.model.poll();
                    s.head++;
                    s.waitingSince = -1;
                    assertArrayEquals((byte[]) first, got, () -> s + ": poll");
                    return;
                }
                if (s.waitingSince < 0) {
                    s.waitingSince = s.now;
                }
                if (s.now - s.waitingSince < SKIP_NS) {
                    assertNull(got, () -> s + ": poll at an abandoned position returned " + show(got)
                        + " before the skip timeout");
                    return;
                }
                s.model.poll();
                s.head++;
                s.skipped++;
                s.waitingSince = -1;
            }
        }

        @Override
        public String toString() {
            return "poll()";
        }
    }

    record MpscClock(long ns) implements Step<Mpsc> {
        @Override
        public void apply(Mpsc s) {
            s.now += ns;
        }

        @Override
        public String toString() {
            return "the consumer's clock advances " + ns + " ns";
        }
    }

    record MpscTooLong(int c, int extra) implements Step<Mpsc> {
        @Override
        public void apply(Mpsc s) {
            VerbsStatistics before = s.clients[c].statistics();
            assertNamedError(IllegalArgumentException.class, "at most " + s.payload,
                () -> s.producers[c].offer(new byte[s.payload + extra]), () -> s + ": " + this);
            assertEquals(0, cost(s.clients[c], before).operations(), () -> s + ": " + this
                + ": no reservation for a message that cannot fit");
        }

        @Override
        public String toString() {
            return "offer(c" + c + ", payload + " + extra + " bytes) fails";
        }
    }

    record MpscBadCreate(int slots, int payload, long skipNs) implements Step<Mpsc> {
        @Override
        public void apply(Mpsc s) {
            assertNamedError(IllegalArgumentException.class, "slots " + slots + ", payload " + payload,
                () -> MpscRing.Consumer.create(s.consumerNode, slots, payload, skipNs, () -> 0L), this::toString);
        }

        @Override
        public String toString() {
            return "create(" + slots + " slots, payload " + payload + ", skip timeout " + skipNs + ") fails";
        }
    }

    @Provide
    Arbitrary<ActionChain<Mpsc>> mpscChains() {
        Arbitrary<Integer> producer = Arbitraries.integers().between(0, PRODUCERS - 1);
        // Bad shapes: a bad slot count, a negative payload or a non-positive timeout, the others good.
        Arbitrary<MpscBadCreate> bad = Arbitraries.oneOf(
            Arbitraries.integers().between(-2, 0).map(n -> new MpscBadCreate(n, 8, SKIP_NS)),
            Arbitraries.integers().between(-3, -1).map(n -> new MpscBadCreate(2, n, SKIP_NS)),
            Arbitraries.longs().between(-2, 0).map(n -> new MpscBadCreate(2, 8, n)));
        return ActionChain.<Mpsc>startWith(() -> new Mpsc(slots, payload))
            .withAction(4, action(Combinators.combine(producer, ModelChains.values()).as(MpscOffer::new)))
            .withAction(5, action(Arbitraries.just(new MpscPoll())))
            .withAction(2, action(Arbitraries.of(SKIP_NS / 2, SKIP_NS).map(MpscClock::new)))
            .withAction(1, action(Combinators.combine(producer, Arbitraries.integers().between(1, 9))
                .as(MpscTooLong::new)))
            .withAction(1, action(bad))
            .withMaxTransformations(LENGTH);
    }

    @Provide
    Arbitrary<Integer> mpscSlots() {
        return Arbitraries.integers().between(1, 4).dontShrink();
    }

    @Provide
    Arbitrary<Integer> mpscPayloads() {
        return Arbitraries.of(0, 1, 8, 13, 40).dontShrink();
    }

    @Property
    void mpscRingBehavesAsAQueueOfSlots(@ForAll("mpscSlots") int slots, @ForAll("mpscPayloads") int payload,
                                        @ForAll("mpscChains") ActionChain<Mpsc> chain) {
        this.slots = slots;
        this.payload = payload;
        ModelChains.run(chain.withInvariant("head, skips and the ring's words are the model's", Mpsc::invariant),
            opened);
    }
}
