package dev.remora.spec.fabric;

import dev.remora.spec.litmus.Fault;
import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Location;
import dev.remora.spec.litmus.Op;
import dev.remora.spec.litmus.Status;
import dev.remora.spec.litmus.ThreadProgram;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.machine.DetProgram;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates a parsed litmus test into a program of the deterministic fabric's machine
 * ({@link DetProgram}), operation for operation, as {@code TlaGenerator} translates it into TLA+: the same
 * words, the same threads, one work request per verb, queue pairs identified by (thread, target node).
 */
public final class LitmusPrograms {

    private LitmusPrograms() {
    }

    /**
     * Builds the machine program of a litmus test.
     *
     * @param test a parsed test
     * @return the program; its word and register names are the test's location and register names
     */
    public static DetProgram toProgram(LitmusTest test) {
        DetProgram.Builder b = new DetProgram.Builder();
        Map<String, Integer> nodes = new HashMap<>();
        for (String n : test.nodes()) {
            nodes.put(n, nodes.size());
        }
        Map<String, Integer> words = new HashMap<>();
        for (Location l : test.locations()) {
            words.put(l.name(), b.word(l.name(), nodes.get(l.node()), l.initialValue()));
        }
        Map<String, Integer> registers = new HashMap<>();
        for (String r : test.registers()) {
            registers.put(r, b.register(r));
        }
        Map<String, Integer> tags = new HashMap<>();
        Map<String, Integer> threadIndex = new HashMap<>();
        for (ThreadProgram t : test.threads()) {
            int thread = b.thread(nodes.get(t.node()));
            threadIndex.put(t.name(), thread);
            for (Op op : t.ops()) {
                if (op instanceof Op.CpuWrite w) {
                    b.op(thread, new DetProgram.Store(words.get(w.location()), w.value()));
                } else if (op instanceof Op.CpuRead r) {
                    b.op(thread, new DetProgram.Load(registers.get(r.register()), words.get(r.location())));
                } else if (op instanceof Op.MFence) {
                    b.op(thread, new DetProgram.MFence());
                } else if (op instanceof Op.LocalFaa f) {
                    b.op(thread, new DetProgram.LockedAdd(words.get(f.location()), f.addend(),
                        f.register().map(registers::get).orElse(-1)));
                } else if (op instanceof Op.Poll p) {
                    b.op(thread, new DetProgram.Poll(nodes.get(p.node()), p.register().map(registers::get).orElse(-1)));
                } else if (op instanceof Op.Wait w) {
                    b.op(thread, new DetProgram.Wait(tags.computeIfAbsent(w.tag(), k -> tags.size())));
                } else if (op instanceof Op.Verb v) {
                    int tag = v.tag().map(d -> tags.computeIfAbsent(d, k -> tags.size())).orElse(-1);
                    int node = nodes.get(v.node());
                    b.post(workRequest(v, thread, node, words, tag));
                } else {
                    throw new IllegalArgumentException("unknown litmus operation " + op);
                }
            }
        }
        for (Fault f : test.faults()) {
            b.fault(switch (f.kind()) {
                case CRASH -> new DetProgram.Fault(DetProgram.FaultKind.CRASH, nodes.get(f.a()), 0);
                case CUT -> new DetProgram.Fault(DetProgram.FaultKind.CUT, nodes.get(f.a()), nodes.get(f.b()));
                case QPERROR -> new DetProgram.Fault(DetProgram.FaultKind.QP_ERROR,
                    DetProgram.litmusQp(threadIndex.get(f.a()), nodes.get(f.b())), 0);
            });
        }
        return b.build();
    }

    private static DetProgram.Wr workRequest(Op.Verb v, int thread, int node, Map<String, Integer> words, int tag) {
        DetProgram.Wr w;
        if (v instanceof Op.Put p) {
            w = new DetProgram.Wr(DetProgram.Kind.PUT, thread, node, indices(p.dst(), words),
                indices(p.src(), words), 0, 0, -1, p.fence(), p.inline(), tag);
        } else if (v instanceof Op.Get g) {
            w = new DetProgram.Wr(DetProgram.Kind.GET, thread, node, indices(g.dst(), words),
                indices(g.src(), words), 0, 0, -1, g.fence(), false, tag);
        } else if (v instanceof Op.Cas c) {
            w = new DetProgram.Wr(DetProgram.Kind.CAS, thread, node, new int[] {words.get(c.dst())}, new int[0],
                c.expected(), c.desired(), words.get(c.result()), c.fence(), false, tag);
        } else {
            Op.Faa f = (Op.Faa) v;
            w = new DetProgram.Wr(DetProgram.Kind.FAA, thread, node, new int[] {words.get(f.dst())}, new int[0], 0,
                f.addend(), words.get(f.result()), f.fence(), false, tag);
        }
        return v.refusal().map(r -> w.refused(wcStatus(r))).orElse(w);
    }

    /**
     * The verbs status of a litmus status.
     *
     * @param status a litmus status
     * @return the same status as {@link WcStatus}
     */
    static WcStatus wcStatus(Status status) {
        return WcStatus.valueOf(status.name());
    }

    private static int[] indices(List<String> names, Map<String, Integer> words) {
        List<Integer> out = new ArrayList<>();
        for (String n : names) {
            out.add(words.get(n));
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The fabric's knobs for a litmus knob setting.
     *
     * @param settings a full setting of every knob
     * @return the same setting as the fabric's configuration
     */
    public static DetKnobs knobs(KnobSettings settings) {
        Map<String, String> byName = new HashMap<>();
        for (Knob k : Knob.values()) {
            byName.put(k.name(), settings.get(k));
        }
        return DetKnobs.fromNames(byName);
    }
}
