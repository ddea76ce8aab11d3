package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A reusable barrier for a fixed number of parties on any nodes, with its two words in one home node's memory: an
 * arrival count that every {@link #await(long)} increments with FETCH_ADD, and a state word holding the generation
 * (rounds released) and a broken bit. Layout and the two CASes that decide a round: {@link RemoteBarrierDescriptor}.
 *
 * <p>An instance is a handle for <em>one thread</em> (one party): it posts through that thread's {@link Endpoint}.
 * Each party calls {@code await} once per round; round {@code r} releases nobody before all {@code parties} arrivals
 * of round {@code r} have been counted.
 *
 * <table>
 *   <caption>Verbs and cost per method</caption>
 *   <tr><th>method</th><th>verbs</th><th>round trips</th></tr>
 *   <tr><td>{@link #await(long)}, last to arrive</td><td>FETCH_ADD(arrivals), CAS(state: r &rarr; r + 1)</td>
 *       <td>2 (+1 per other node this thread wrote to since its last flush)</td></tr>
 *   <tr><td>{@link #await(long)}, earlier arrival</td><td>FETCH_ADD(arrivals), then READs of state until it
 *       changes</td><td>2 if the round is already released at the first READ; 1 + polls otherwise</td></tr>
 *   <tr><td>{@link #await(long)}, timeout</td><td>FETCH_ADD, READs, then CAS(state: r &rarr; BROKEN | r)</td>
 *       <td>polls + 2</td></tr>
 * </table>
 *
 * <p><b>Correctness.</b> The arrival count is never reset: an arrival with ticket {@code t} (the old value its
 * FETCH_ADD returned) is arrival {@code t % parties} of round {@code t / parties}. A party arrives in round
 * {@code r + 1} only after round {@code r} was released (or broken, and then every later round is broken too), so
 * tickets {@code r parties ... r parties + parties - 1} are exactly the round-{@code r} arrivals of the parties, and
 * the last of them (index {@code parties - 1}) can only be drawn after all of them are counted (rao: the FETCH_ADDs
 * are totally ordered). Only that last arrival releases the round, so nobody passes round {@code r} before all
 * parties arrived in it.
 *
 * <p><b>Broken rounds.</b> A waiter whose timeout passes tries {@code CAS(state: r -> BROKEN | r)}; the last arrival
 * tries {@code CAS(state: r -> r + 1)}. Both expect {@code r}, so exactly one succeeds and the round is either released
 * for everybody or broken for everybody; a waiter whose breaking CAS fails because the release came first passes. Every
 * waiter polls the state word, so once it is broken each live waiter of the round returns {@link Status#BROKEN} at its
 * next READ, before its own timeout. A waiter decides by the generation first: if it is past the waiter's round, that
 * round was released and the waiter passed, even when the broken bit is set (a party that passed may already have
 * arrived in the next round and broken it before a slow waiter's next READ). The broken bit is never cleared: a party that arrives late into a broken round,
 * or calls {@code await} again afterwards, sees {@code BROKEN} at once (its FETCH_ADD and one READ, or the failed
 * release CAS if it is the round's last arrival), without waiting for its timeout. A broken barrier is not reused:
 * create a new one. A party that crashed before arriving thus breaks its round at the first timeout of another; one
 * that crashed after its FETCH_ADD has arrived and breaks nothing.
 *
 * <p><b>Timeouts and errors.</b> {@code await(timeout)} polls until the timeout, then issues the breaking CAS, so it
 * returns at most one round trip after its timeout when the home answers. A verb that fails throws
 * {@link dev.remora.verbs.RemoteAccessException}; if it was the arrival FETCH_ADD or a CAS with an unknown outcome
 * ({@code RETRY_EXC_ERR}), this party may or may not have arrived or released, and the handle should not be used
 * again (the other parties' rounds end released or broken as usual).
 *
 * <p><b>Memory effects.</b> Before arriving, {@code await} flushes the WRITEs this endpoint posted to other nodes
 * ({@link Endpoint#flush(int)}), and the FETCH_ADD follows its queue pair's earlier WRITEs to the home (R7). So every
 * WRITE a party posted before {@code await} is placed before its arrival counts, and a READ posted after any party
 * passes the round (after the completion of the READ or CAS that saw the release: R11) sees it.
 */
public final class RemoteBarrier {
    /** How an {@link #await(long)} ended. */
    public enum Status {
        /** Every party arrived: the round was released. */
        PASSED,
        /** The round (or an earlier one) was broken by a timeout: this party must not assume the others arrived. */
        BROKEN
    }

    /**
     * The outcome of one {@link #await(long)}.
     *
     * @param status passed or broken
     * @param round the round this arrival belonged to (0, 1, ...)
     * @param arrivalIndex this party's place in the round's arrivals, 0 .. parties - 1 ({@code parties - 1}: it
     *     released the round, or found it broken)
     */
    public record Result(Status status, long round, int arrivalIndex) {
        /** @return whether the round was released */
        public boolean passed() {
            return status == Status.PASSED;
        }
    }

    private final Endpoint endpoint;
    private final RemoteAddress arrivals;
    private final RemoteAddress state;
    private final int parties;

    private RemoteBarrier(Endpoint endpoint, RemoteAddress base, int parties) {
        this.endpoint = endpoint;
        this.arrivals = base.plus(RemoteBarrierDescriptor.ARRIVALS_OFFSET);
        this.state = base.plus(RemoteBarrierDescriptor.STATE_OFFSET);
        this.parties = parties;
    }

    /**
     * Allocates a barrier (round 0, not broken) in {@code home}'s memory.
     *
     * @param home the node that holds it
     * @return its base address
     */
    public static RemoteAddress create(Node home) {
        return home.allocate(RemoteBarrierDescriptor.LENGTH,
            Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC).remote(0);
    }

    /**
     * A handle for one party, the thread that owns {@code endpoint}. Every party must give the same {@code parties}.
     *
     * @param endpoint the party's endpoint
     * @param base the barrier's base address
     * @param parties how many parties each round waits for, at least 1
     * @return the handle
     */
    public static RemoteBarrier attach(Endpoint endpoint, RemoteAddress base, int parties) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(base, "base");
        if (!base.isWordAligned()) {
            throw new IllegalArgumentException("a barrier must be 8-byte aligned: " + base);
        }
        if (parties < 1) {
            throw new IllegalArgumentException("a barrier needs at least one party: " + parties);
        }
        return new RemoteBarrier(endpoint, base, parties);
    }

    /** @return how many parties a round waits for */
    public int parties() {
        return parties;
    }

    /**
     * Arrives and waits until every party has arrived in this round, the round is broken, or the timeout passes (which
     * breaks it).
     *
     * @param timeoutNs how long to wait, in nanoseconds of the endpoint's clock ({@link Endpoint#nanoTime()})
     * @return {@link Status#PASSED} with the round and arrival index, or {@link Status#BROKEN}
     * @throws dev.remora.verbs.RemoteAccessException if a verb fails (see the class comment)
     */
    public Result await(long timeoutNs) {
        long deadline = endpoint.nanoTime() + Math.max(0, timeoutNs);
        // R7, R11: the flush READs complete after this party's WRITEs to other nodes are placed, before it arrives.
        endpoint.flush(arrivals.nodeId());
        // R7: the FETCH_ADD follows this party's earlier WRITEs to the home on the same queue pair.
        long ticket = endpoint.faa(arrivals, 1);
        long round = ticket / parties;
        int index = (int) (ticket % parties);
        if (index == parties - 1) {
            long old = endpoint.cas(state, round, round + 1);
            return new Result(old == round ? Status.PASSED : Status.BROKEN, round, index);
        }
        int spins = 1;
        while (true) {
            long s = endpoint.readLong(state);
            // The generation decides first: a later round may be broken already (BROKEN | g with g > round) when
            // this round was released, and then this party passed.
            if (RemoteBarrierDescriptor.generation(s) > round) {
                return new Result(Status.PASSED, round, index);
            }
            if (RemoteBarrierDescriptor.isBroken(s)) {
                return new Result(Status.BROKEN, round, index);
            }
            if (endpoint.nanoTime() - deadline >= 0) {
                // The same expected value as the release CAS: exactly one of the two succeeds (rao).
                long old = endpoint.cas(state, round, RemoteBarrierDescriptor.BROKEN | round);
                boolean released = RemoteBarrierDescriptor.generation(old) > round;
                return new Result(released ? Status.PASSED : Status.BROKEN, round, index);
            }
            for (int i = 0; i < spins; i++) {
                Thread.onSpinWait();
            }
            if (spins == 256) {
                Thread.yield();
            } else {
                spins *= 2;
            }
        }
    }

    /**
     * Reads the state word: one READ.
     *
     * @return the rounds released so far, or -1 if the barrier is broken
     */
    public long generation() {
        long s = endpoint.readLong(state);
        return RemoteBarrierDescriptor.isBroken(s) ? -1 : s;
    }
}
