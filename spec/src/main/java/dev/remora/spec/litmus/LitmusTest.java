package dev.remora.spec.litmus;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A parsed litmus test (format: {@code spec/litmus/README.md}). Immutable and self-contained:
 * both the TLA+ generator and the deterministic fabric execute it.
 *
 * <p>Verdicts: the unconditional {@code expect} line gives the verdict under the default knobs;
 * {@code when} lines override it (the last matching line wins). With {@code SC_MODE=TRUE} the
 * verdict is {@link Verdict#FORBIDDEN} unless a matching {@code when} line names
 * {@code SC_MODE} itself (docs/memory-model.md §7: under SC every "allowed" outcome is forbidden).
 *
 * @param id           test id, for example {@code L01}
 * @param description  free text from {@code doc} lines, possibly empty
 * @param locations    every memory word, in declaration order
 * @param threads      every thread, in declaration order
 * @param faults       the faults that may happen (each at most once, at any step), in declaration order
 * @param finalPredicate the outcome the test asks about
 * @param expectations the {@code expect} line first, then {@code when} lines in file order
 * @param source       the file it was parsed from
 */
public record LitmusTest(String id, String description, List<Location> locations,
                         List<ThreadProgram> threads, List<Fault> faults, Expr finalPredicate,
                         List<Expectation> expectations, String source) {

    /**
     * Copies the lists.
     *
     * @param id             test id
     * @param description    free text
     * @param locations      memory words
     * @param threads        threads
     * @param faults         faults that may happen
     * @param finalPredicate final predicate
     * @param expectations   verdicts
     * @param source         file name
     */
    public LitmusTest {
        locations = List.copyOf(locations);
        threads = List.copyOf(threads);
        faults = List.copyOf(faults);
        expectations = List.copyOf(expectations);
    }

    /**
     * The expected verdict under the given knob settings.
     *
     * @param settings a complete knob assignment
     * @return allowed or forbidden
     */
    public Verdict expected(final KnobSettings settings) {
        final boolean sc = "TRUE".equals(settings.get(Knob.SC_MODE));
        Verdict verdict = sc ? Verdict.FORBIDDEN : expectations.get(0).verdict();
        for (final Expectation e : expectations.subList(1, expectations.size())) {
            final boolean eligible = !sc || e.conditions().containsKey(Knob.SC_MODE);
            if (eligible && settings.matches(e.conditions())) {
                verdict = e.verdict();
            }
        }
        return verdict;
    }

    /**
     * The knob settings that matter for this test: the defaults, each {@code when} line's
     * conditions applied to the defaults, and {@code SC_MODE=TRUE}. Knobs the file does not
     * mention are claimed not to change the verdict; {@code -Pspec-full} checks that claim by
     * running {@link KnobSettings#all()}.
     *
     * @return distinct settings, defaults first
     */
    public List<KnobSettings> relevantSettings() {
        final Set<KnobSettings> out = new LinkedHashSet<>();
        out.add(KnobSettings.defaults());
        for (final Expectation e : expectations.subList(1, expectations.size())) {
            out.add(new KnobSettings(e.conditions()));
        }
        out.add(KnobSettings.defaults().with(Knob.SC_MODE, "TRUE"));
        return List.copyOf(out);
    }

    /**
     * Every thread register, in thread and program order. Registers start at 0.
     *
     * @return register names
     */
    public List<String> registers() {
        final Set<String> out = new LinkedHashSet<>();
        for (final ThreadProgram t : threads) {
            for (final Op op : t.ops()) {
                if (op instanceof Op.CpuRead r) {
                    out.add(r.register());
                } else if (op instanceof Op.LocalFaa f && f.register().isPresent()) {
                    out.add(f.register().get());
                } else if (op instanceof Op.Poll p && p.register().isPresent()) {
                    out.add(p.register().get());
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The nodes named anywhere in the test, sorted.
     *
     * @return node names
     */
    public Set<String> nodes() {
        final Set<String> out = new TreeSet<>();
        locations.forEach(l -> out.add(l.node()));
        for (final Fault f : faults) {
            if (f.kind() != Fault.Kind.QPERROR) {
                out.add(f.a());
            }
            if (!f.b().isEmpty()) {
                out.add(f.b());
            }
        }
        for (final ThreadProgram t : threads) {
            out.add(t.node());
            for (final Op op : t.ops()) {
                if (op instanceof Op.Verb v) {
                    out.add(v.node());
                }
            }
        }
        return out;
    }

    /**
     * Looks up a location by name.
     *
     * @param name the location's name
     * @return the location
     * @throws IllegalArgumentException if it is not declared
     */
    public Location location(final String name) {
        return locations.stream().filter(l -> l.name().equals(name)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no location " + name));
    }

    /**
     * The initial outcome map: every location at its initial value and every register at 0.
     * A fabric can start from it and update it as the execution runs.
     *
     * @return a fresh mutable map
     */
    public Map<String, Long> initialOutcome() {
        final Map<String, Long> out = new HashMap<>();
        locations.forEach(l -> out.put(l.name(), l.initialValue()));
        registers().forEach(r -> out.put(r, 0L));
        return out;
    }

    /**
     * Whether an outcome satisfies the final predicate.
     *
     * @param outcome register and location values after the execution has drained
     * @return whether the outcome is the one the test asks about
     */
    public boolean outcomeMatches(final Map<String, Long> outcome) {
        return finalPredicate.holds(outcome);
    }

    /**
     * Every verb of the test in thread order then program order: the WR numbering the TLA+
     * model uses (WR {@code k} is element {@code k-1}).
     *
     * @return pairs of thread and verb
     */
    public List<Map.Entry<ThreadProgram, Op.Verb>> verbs() {
        final List<Map.Entry<ThreadProgram, Op.Verb>> out = new ArrayList<>();
        for (final ThreadProgram t : threads) {
            for (final Op op : t.ops()) {
                if (op instanceof Op.Verb v) {
                    out.add(Map.entry(t, v));
                }
            }
        }
        return out;
    }
}
