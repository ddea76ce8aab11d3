package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.machine.DetProgram.Fault;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The faults that have happened ({@code faulted} in Verbs.tla), and the queue pairs they broke.
 *
 * <pre>
 * Verbs.tla:  faulted  \* the faults that have happened
 *             BrokenIn(k, F) == \E f \in F : \/ f.kind = "crash" /\ f.a \in {Sender(k), Wr[k].node}
 *                                            \/ f.kind = "cut" /\ {f.a, f.b} = {Sender(k), Wr[k].node}
 *                                            \/ f.kind = "qperror" /\ f.a = Wr[k].t /\ f.b = Wr[k].node
 * </pre>
 */
final class FaultState {
    private final List<Fault> happened;
    private final BitSet down;
    private final Set<Long> cut;
    private final Set<Integer> failedQps;

    FaultState() {
        happened = new ArrayList<>();
        down = new BitSet();
        cut = new HashSet<>();
        failedQps = new HashSet<>();
    }

    private FaultState(FaultState o) {
        happened = new ArrayList<>(o.happened);
        down = (BitSet) o.down.clone();
        cut = new HashSet<>(o.cut);
        failedQps = new HashSet<>(o.failedQps);
    }

    FaultState copy() {
        return new FaultState(this);
    }

    private static long link(int a, int b) {
        return (long) Math.min(a, b) << 32 | Math.max(a, b);
    }

    boolean happened(Fault f) {
        return happened.contains(f);
    }

    /** Records a fault (once). */
    void add(Fault f) {
        if (happened.contains(f)) {
            return;
        }
        happened.add(f);
        switch (f.kind()) {
            case CRASH -> down.set(f.a());
            case CUT -> cut.add(link(f.a(), f.b()));
            case QP_ERROR -> failedQps.add(f.a());
            default -> throw new AssertionError(f);
        }
    }

    /** {@code Down(n)}. */
    boolean down(int node) {
        return node >= 0 && down.get(node);
    }

    /** Whether the link between two nodes is cut. */
    boolean cut(int a, int b) {
        return !cut.isEmpty() && cut.contains(link(a, b));
    }

    /** Whether queue pair {@code qp} was forced into ERROR. */
    boolean qpFailed(int qp) {
        return !failedQps.isEmpty() && failedQps.contains(qp);
    }

    /** {@code Broken(k)} for a request from {@code sender} to {@code target} on queue pair {@code qp}. */
    boolean broken(int sender, int target, int qp) {
        return down(sender) || down(target) || cut(sender, target) || qpFailed(qp);
    }

    /** {@code BreakStatus(k)}: RETRY_EXC_ERR when a peer is lost, WR_FLUSH_ERR for a queue pair forced into ERROR. */
    WcStatus breakStatus(int sender, int target) {
        return down(sender) || down(target) || cut(sender, target) ? WcStatus.RETRY_EXC_ERR : WcStatus.WR_FLUSH_ERR;
    }

    /** A set's hash: the same whatever order the faults happened in, as {@code faulted} is a set. */
    long hash(long h) {
        long sum = 0;
        for (Fault f : happened) {
            sum += DetMachine.mix(DetMachine.mix(DetMachine.mix(0x5851F42D4C957F2DL, f.kind().ordinal()), f.a()),
                f.b());
        }
        return DetMachine.mix(DetMachine.mix(h, happened.size()), sum);
    }
}
