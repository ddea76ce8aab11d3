package dev.remora.spec.fabric;

import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Location;
import dev.remora.spec.litmus.Op;
import dev.remora.spec.litmus.ThreadProgram;
import dev.remora.verbs.det.DetKnobs;
import dev.remora.verbs.det.DetProgram;

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
        for (ThreadProgram t : test.threads()) {
            int thread = b.thread(nodes.get(t.node()));
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
                    b.op(thread, new DetProgram.Poll(nodes.get(p.node())));
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
        return b.build();
    }

    private static DetProgram.Wr workRequest(Op.Verb v, int thread, int node, Map<String, Integer> words, int tag) {
        if (v instanceof Op.Put p) {
            return new DetProgram.Wr(DetProgram.Kind.PUT, thread, node, indices(p.dst(), words),
                indices(p.src(), words), 0, 0, -1, p.fence(), p.inline(), tag);
        }
        if (v instanceof Op.Get g) {
            return new DetProgram.Wr(DetProgram.Kind.GET, thread, node, indices(g.dst(), words),
                indices(g.src(), words), 0, 0, -1, g.fence(), false, tag);
        }
        if (v instanceof Op.Cas c) {
            return new DetProgram.Wr(DetProgram.Kind.CAS, thread, node, new int[] {words.get(c.dst())}, new int[0],
                c.expected(), c.desired(), words.get(c.result()), c.fence(), false, tag);
        }
        Op.Faa f = (Op.Faa) v;
        return new DetProgram.Wr(DetProgram.Kind.FAA, thread, node, new int[] {words.get(f.dst())}, new int[0], 0,
            f.addend(), words.get(f.result()), f.fence(), false, tag);
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
