package dev.remora.stress.objects;

import dev.remora.objects.SpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link SpscRing} in the home node's memory (128 bytes of records): client 1 offers message 1 then message 2 (16 bytes
 * each, every byte the message's number, so two words of payload after the length word), while the home CPU polls at
 * most {@value #POLLS} times for them, and the arbiter then takes what is left. Each offer WRITEs the records and then
 * the tail on one queue pair, so the tail lands after every word of the records it covers (R6); the consumer loads the
 * tail, then the records (R1, R5). So the consumer sees the messages in order, each once, and each whole; none is lost.
 * (The arbiter runs after the offers completed and finds every message because the fast fabric places a WRITE before
 * completing it; on hardware a completion is only an acknowledgement, R11.) The ring is reused by every state of its
 * slot (see {@link ObjectFabric}); its records wrap around the 128 bytes, with a pad at the end of a lap now and then.
 *
 * <p>Result: {@code r1} = the messages the consumer polled, in order, as digits ({@code 12} = 1 then 2; 9 = a
 * malformed or mixed message), {@code r2} = the messages the arbiter took after both actors, {@code r3} = the offers
 * that answered OK.
 */
@JCStressTest
@State
@Description("SpscRing: a producer offers two messages, the consumer polls; FIFO, no duplicate, none seen before whole")
@Outcome(id = "0, 12, 2", expect = Expect.ACCEPTABLE,
    desc = "not yet: the bounded poll loop ended before the first tail landed; the arbiter took both, in order")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE,
    desc = "the poll loop took message 1 and ended before the second tail landed; the arbiter took message 2")
@Outcome(id = "12, 0, 2", expect = Expect.ACCEPTABLE, desc = "the poll loop took both messages, in order")
@Outcome(id = ".*9.*", expect = Expect.FORBIDDEN,
    desc = "a message polled before its bytes were all placed, or malformed: the tail must land after the records "
        + "on the producer's one queue pair (R6)")
@Outcome(id = "[0-9]+, [0-9]+, [01]", expect = Expect.FORBIDDEN,
    desc = "an offer answered FULL though the ring was empty and had room for both: the ring's contract")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "out of order, twice or lost: the ring's contract (one producer, one consumer, FIFO)")
public class SpscRingTest {
    /** Bytes of record space in each ring. */
    static final int CAPACITY = 128;
    /** Bytes of every message. */
    static final int LENGTH = 16;
    /** The consumer's bound: polls before it records what it has. */
    static final int POLLS = 64;
    private static final Channel[] CHANNELS = new Channel[ObjectFabric.SLOTS];

    private final Channel channel = channel(ObjectFabric.takeSlot());
    private volatile int offered;

    /** Creates a state on its slot's ring, which the previous state on that slot left empty. */
    public SpscRingTest() {
    }

    private static synchronized Channel channel(int slot) {
        if (CHANNELS[slot] == null) {
            CHANNELS[slot] = new Channel();
        }
        return CHANNELS[slot];
    }

    /** Client 1 offers message 1, then message 2. */
    @Actor
    public void producer() {
        SpscRing.Producer p = channel.producer();
        int ok = 0;
        for (int k = 1; k <= 2; k++) {
            if (p.offer(ObjectFabric.filled(k, LENGTH)) == SpscRing.Offer.OK) {
                ok++;
            }
        }
        offered = ok;
    }

    /**
     * The home CPU polls, at most {@value #POLLS} times, for up to two messages.
     *
     * @param r the result
     */
    @Actor
    public void consumer(JJJ_Result r) {
        r.r1 = take(channel.consumer, POLLS, 2);
    }

    /**
     * Takes what is left after both actors (every offer has completed, so every message is published), leaving the
     * ring empty for the next state on the slot.
     *
     * @param r the result
     */
    @Arbiter
    public void arbiter(JJJ_Result r) {
        // The offers completed, and the fast fabric places a WRITE before it completes (hardware only acks it, R11).
        r.r2 = take(channel.consumer, 3, 3);
        r.r3 = offered;
    }

    private static long take(SpscRing.Consumer consumer, int polls, int max) {
        long seen = 0;
        int got = 0;
        for (int i = 0; i < polls && got < max; i++) {
            byte[] m;
            try {
                m = consumer.poll();
            } catch (IllegalStateException e) {
                return seen * 10 + 9; // a malformed record
            }
            if (m == null) {
                Thread.onSpinWait();
                continue;
            }
            int k = ObjectFabric.classify(m, LENGTH);
            seen = seen * 10 + (k == 1 || k == 2 ? k : 9);
            got++;
        }
        return seen;
    }

    /** One pooled ring: the consumer, and the producer of the thread that last ran the producer actor on it. */
    private static final class Channel {
        final SpscRing.Consumer consumer = SpscRing.Consumer.create(ObjectFabric.home(), CAPACITY);
        private SpscRing.Producer producer;
        private Thread producerThread;

        /**
         * The producer for the calling thread. A producer keeps its own copy of the tail, so a thread that takes the
         * role over attaches afresh (reading the tail the previous one left: its offers completed long before).
         */
        SpscRing.Producer producer() {
            Thread t = Thread.currentThread();
            if (producerThread != t) {
                if (producer != null) {
                    producer.close();
                }
                producer = SpscRing.Producer.attach(ObjectFabric.client(1), consumer.address());
                producerThread = t;
            }
            return producer;
        }
    }
}
