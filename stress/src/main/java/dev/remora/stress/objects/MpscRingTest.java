package dev.remora.stress.objects;

import dev.remora.objects.MpscRing;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link MpscRing} in the home node's memory (4 slots of 16 bytes): client 1 offers message 1 while client 2 offers
 * message 2 (every byte the message's number) and then, as the home CPU, polls at most {@value #POLLS} times for both
 * (two actors, not three: jcstress schedules at most one actor per CPU, and CI has two; the second producer is also the
 * consumer); the arbiter then takes what is left. Each producer reserves a distinct position with one FETCH_ADD (rao,
 * R14), then WRITEs its message and the slot's commit word on its one queue pair, so the commit lands after the message
 * (R6); the consumer takes a slot only once its commit names the slot's position, and stops at the first uncommitted
 * one. So each message is taken at most once and whole, in either order (the order of the reservations), and none is
 * lost. The model allows the consumer to miss even client 2's own message, whose WRITEs completed (a completion is only
 * an acknowledgement, R11), so every split between the poll loop and the arbiter is allowed; the fast fabric places a
 * WRITE before it completes, so the arbiter finds every message. The skip timeout is 60 s, so no slot is skipped. The
 * ring is reused by every state of its slot (see {@link ObjectFabric}).
 *
 * <p>Result: {@code r1} = the messages the consumer polled, in order, as digits ({@code 21} = 2 then 1; 9 = a
 * malformed or mixed message), {@code r2} = the messages the arbiter took after all actors, {@code r3} = the offers
 * that answered OK.
 */
@JCStressTest
@State
@Description("MpscRing: two producers, one message each, and a consumer; each message at most once, whole")
@Outcome(id = "0, (12|21), 2", expect = Expect.ACCEPTABLE,
    desc = "not yet: client 1 reserved the first position and had not committed it when the bounded poll loop ended "
        + "(the consumer stops at the first uncommitted slot); the arbiter took both")
@Outcome(id = "(1, 2|2, 1), 2", expect = Expect.ACCEPTABLE,
    desc = "the poll loop took the first reserved message and ended before the second was committed (client 1's, "
        + "or on hardware client 2's own, placed after its completion: R11)")
@Outcome(id = "(12|21), 0, 2", expect = Expect.ACCEPTABLE,
    desc = "the poll loop took both messages, in the order of their reservations")
@Outcome(id = ".*9.*", expect = Expect.FORBIDDEN,
    desc = "a message taken before all its bytes were placed, or malformed: its commit must land after it on its "
        + "producer's queue pair (R6)")
@Outcome(id = "[0-9]+, [0-9]+, [01]", expect = Expect.FORBIDDEN,
    desc = "an offer answered FULL though the ring had free slots: the ring's contract")
@Outcome(expect = Expect.FORBIDDEN,
    desc = "a message taken twice (two producers reserved one position: rao, R14) or lost")
public class MpscRingTest {
    /** Slots in each ring. */
    static final int SLOTS = 4;
    /** Bytes of every message (a slot's payload). */
    static final int LENGTH = 16;
    /** The consumer's skip timeout: far longer than a test, so no reservation is ever skipped. */
    static final long SKIP_TIMEOUT_NS = 60_000_000_000L;
    /** The consumer's bound: polls before it records what it has. */
    static final int POLLS = 64;
    private static final Channel[] CHANNELS = new Channel[ObjectFabric.SLOTS];

    private final Channel channel = channel(ObjectFabric.takeSlot());
    private volatile int offered1;
    private volatile int offered2;

    /** Creates a state on its slot's ring, which the previous state on that slot left empty. */
    public MpscRingTest() {
    }

    private static synchronized Channel channel(int slot) {
        if (CHANNELS[slot] == null) {
            CHANNELS[slot] = new Channel();
        }
        return CHANNELS[slot];
    }

    /** Client 1 offers message 1. */
    @Actor
    public void producer1() {
        offered1 = channel.producer(1).offer(ObjectFabric.filled(1, LENGTH)) == MpscRing.Offer.OK ? 1 : 0;
    }

    /**
     * Client 2 offers message 2; then the home CPU polls, at most {@value #POLLS} times, for up to two messages.
     *
     * @param r the result
     */
    @Actor
    public void producer2AndConsumer(JJJ_Result r) {
        offered2 = channel.producer(2).offer(ObjectFabric.filled(2, LENGTH)) == MpscRing.Offer.OK ? 1 : 0;
        r.r1 = take(channel.consumer, POLLS, 2);
    }

    /**
     * Takes what is left after all actors (every offer has completed, so every reserved slot is committed), leaving
     * the ring empty for the next state on the slot.
     *
     * @param r the result
     */
    @Arbiter
    public void arbiter(JJJ_Result r) {
        // The offers completed, and the fast fabric places a WRITE before it completes (hardware only acks it, R11).
        r.r2 = take(channel.consumer, 3, 3);
        r.r3 = offered1 + offered2;
    }

    private static long take(MpscRing.Consumer consumer, int polls, int max) {
        long seen = 0;
        int got = 0;
        for (int i = 0; i < polls && got < max; i++) {
            byte[] m;
            try {
                m = consumer.poll();
            } catch (IllegalStateException e) {
                return seen * 10 + 9; // a committed slot with a bad length
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

    /** One pooled ring: the consumer, and per producer actor the producer of the thread that last ran it. */
    private static final class Channel {
        final MpscRing.Consumer consumer =
            MpscRing.Consumer.create(ObjectFabric.home(), SLOTS, LENGTH, SKIP_TIMEOUT_NS, System::nanoTime);
        private final MpscRing.Producer[] producers = new MpscRing.Producer[3];
        private final Thread[] threads = new Thread[3];

        /**
         * The producer of actor {@code clientId} for the calling thread. A producer caches the head, which is only
         * ever stale on the safe side, but it is bound to its thread's endpoint: a thread that takes the role over
         * attaches afresh.
         */
        MpscRing.Producer producer(int clientId) {
            Thread t = Thread.currentThread();
            if (threads[clientId] != t) {
                if (producers[clientId] != null) {
                    producers[clientId].close();
                }
                producers[clientId] = MpscRing.Producer.attach(ObjectFabric.client(clientId), consumer.address());
                threads[clientId] = t;
            }
            return producers[clientId];
        }
    }
}
