package dev.remora.verbs.det;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Faults the deterministic fabric injects at chosen steps of a run. A plan is either written out ({@link #of}) or
 * derived from the run's seed ({@link #random}), so a seed replays its faults too.
 *
 * <p>Faults happen at step numbers, not at virtual times. Latency in virtual time is a setting of {@link DetContext}
 * instead ({@link DetContext#linkRoundTripNs}, {@link DetContext#nodeRoundTripNs}): a request with a round trip
 * completes no earlier than that long after posting, successfully or with the error of a queue pair broken by a
 * {@link Crash}, {@link CutLink} or {@link QueuePairError} here, so a waiter whose timeout is shorter gives up first
 * and a later poll finds the error; the request may still have taken effect, or take it later (R20).
 *
 * @param faults the faults, each at a step number
 */
public record FaultPlan(List<Fault> faults) {

    /** No faults. */
    public static final FaultPlan NONE = new FaultPlan(List.of());

    /** Copies. */
    public FaultPlan {
        faults = List.copyOf(faults);
    }

    /** A fault. */
    public sealed interface Fault {
        /** @return the step at which it happens */
        long atStep();
    }

    /**
     * The node crashes: its threads stop at their next step, its store buffers are lost; requests to or from it
     * complete RETRY_EXC_ERR (then WR_FLUSH_ERR), and those in flight may still land at live targets (R20).
     *
     * @param atStep when
     * @param node the node id
     * @param loseMemory whether its registered memory is zeroed (a reboot) or kept
     */
    public record Crash(long atStep, int node, boolean loseMemory) implements Fault {
    }

    /**
     * The link between two nodes is cut: requests between them complete RETRY_EXC_ERR (then WR_FLUSH_ERR); those in
     * flight may still land, even after their completion, or be lost (R20).
     *
     * @param atStep when
     * @param a a node id
     * @param b another node id
     */
    public record CutLink(long atStep, int a, int b) implements Fault {
    }

    /**
     * A queue pair goes to ERROR: its unfinished requests complete WR_FLUSH_ERR; those in flight may still land at the
     * target (R20).
     *
     * @param atStep when
     * @param qpNumber the queue pair's number
     */
    public record QueuePairError(long atStep, int qpNumber) implements Fault {
    }

    /**
     * A node's NIC is slow for a while: the sub-actions it performs (placing and reading remote data, atomics, for
     * requests targeting it; source reads, result writes and completions, for requests it issues) are chosen only when
     * nothing else is enabled. It reorders steps (the slow NIC loses races) and does not move the virtual clock; for
     * latency in virtual time, see {@link DetContext#linkRoundTripNs}.
     *
     * @param atStep when it starts
     * @param node the node id
     * @param forSteps how many steps it lasts
     */
    public record DelayNic(long atStep, int node, long forSteps) implements Fault {
    }

    /**
     * A plan.
     *
     * @param faults the faults
     * @return the plan
     */
    public static FaultPlan of(Fault... faults) {
        return new FaultPlan(List.of(faults));
    }

    /**
     * A plan drawn from a seed: each kind of fault happens with the given probability, at a step below
     * {@code horizonSteps}, to a node among {@code candidates} (nodes that may fail, e.g. not the test's observer).
     *
     * @param seed the seed
     * @param candidates node ids that faults may hit
     * @param horizonSteps faults happen before this step
     * @param crashProbability probability of one crash
     * @param linkProbability probability of one cut link (between two candidates)
     * @param delayProbability probability of one NIC delay
     * @return the plan
     */
    public static FaultPlan random(long seed, int[] candidates, long horizonSteps, double crashProbability,
                                   double linkProbability, double delayProbability) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        List<Fault> out = new ArrayList<>();
        if (candidates.length == 0) {
            return NONE;
        }
        if (r.nextDouble() < crashProbability) {
            out.add(new Crash(r.nextLong(Math.max(1, horizonSteps)), candidates[r.nextInt(candidates.length)],
                r.nextBoolean()));
        }
        if (candidates.length > 1 && r.nextDouble() < linkProbability) {
            int a = candidates[r.nextInt(candidates.length)];
            int b = candidates[r.nextInt(candidates.length)];
            if (a != b) {
                out.add(new CutLink(r.nextLong(Math.max(1, horizonSteps)), a, b));
            }
        }
        if (r.nextDouble() < delayProbability) {
            out.add(new DelayNic(r.nextLong(Math.max(1, horizonSteps)), candidates[r.nextInt(candidates.length)],
                1 + r.nextLong(Math.max(1, horizonSteps))));
        }
        return new FaultPlan(out);
    }
}
