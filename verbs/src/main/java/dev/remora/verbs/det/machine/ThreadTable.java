package dev.remora.verbs.det.machine;

import dev.remora.verbs.det.machine.DetProgram.Op;

import java.util.Arrays;

/**
 * The threads of a machine: the program's scripted threads and the fabric's external ones (whose next operation is
 * set by a Java thread), with their program counters, registers and nodes.
 *
 * <pre>
 * RDMA.tla:  pc[t]   \* index of thread t's next operation
 *            reg[r]  \* value of register r (register names are unique across threads)
 * </pre>
 */
final class ThreadTable {
    private final DetProgram program;
    private final int scripted;
    int count;
    int[] pc;
    long[] reg;
    /** An external thread's operation waiting to be scheduled, or null. */
    Op[] pending;
    /** An external thread's last result. */
    long[] result;
    /** Each thread's node. */
    int[] node;

    ThreadTable(DetProgram program) {
        this.program = program;
        this.scripted = program.threads();
        this.count = scripted;
        this.pc = new int[count];
        this.reg = new long[program.registerNames().size()];
        this.pending = new Op[count];
        this.result = new long[count];
        this.node = program.threadNodes().clone();
    }

    private ThreadTable(ThreadTable o) {
        program = o.program;
        scripted = o.scripted;
        count = o.count;
        pc = o.pc.clone();
        reg = o.reg.clone();
        pending = o.pending.clone();
        result = o.result.clone();
        node = o.node.clone();
    }

    ThreadTable copy() {
        return new ThreadTable(this);
    }

    int addExternal(int nodeId) {
        int t = count++;
        pc = Arrays.copyOf(pc, count);
        pending = Arrays.copyOf(pending, count);
        result = Arrays.copyOf(result, count);
        node = Arrays.copyOf(node, count);
        node[t] = nodeId;
        return t;
    }

    boolean scripted(int t) {
        return t < scripted;
    }

    /** {@code Running(t)}: a scripted thread has operations left; an external one has one pending. */
    boolean running(int t) {
        return scripted(t) ? pc[t] < program.threadOps().get(t).size() : pending[t] != null;
    }

    /** {@code Op(t)}. */
    Op op(int t) {
        return scripted(t) ? program.threadOps().get(t).get(pc[t]) : pending[t];
    }

    /** {@code Step(t)}, with an external thread's result. */
    void advance(int t, long r) {
        if (!scripted(t)) {
            pending[t] = null;
            result[t] = r;
        }
        pc[t]++;
    }

    long hash(long h) {
        for (long r : reg) {
            h = DetMachine.mix(h, r);
        }
        for (int t = 0; t < count; t++) {
            h = DetMachine.mix(h, pc[t]);
            h = DetMachine.mix(h, pending[t] == null ? 0 : 1);
        }
        return h;
    }
}
