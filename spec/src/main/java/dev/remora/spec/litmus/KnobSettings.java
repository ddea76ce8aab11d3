package dev.remora.spec.litmus;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One complete assignment of a value to every {@link Knob}. Immutable.
 *
 * <p>{@link #label()} gives a stable, file-name-safe name: {@code default} for the defaults,
 * otherwise the non-default assignments joined by {@code _}, for example
 * {@code ATOMIC_CAP-GLOB}.
 *
 * @param values the value of every knob
 */
public record KnobSettings(Map<Knob, String> values) {

    /**
     * Copies and validates the assignment.
     *
     * @param values the value of every knob; knobs missing from the map take their default
     */
    public KnobSettings {
        final EnumMap<Knob, String> copy = new EnumMap<>(Knob.class);
        for (final Knob knob : Knob.values()) {
            final String value = values.get(knob);
            copy.put(knob, value == null ? knob.defaultValue() : knob.requireValue(value));
        }
        values = Collections.unmodifiableMap(copy);
    }

    /**
     * The default settings: every knob at {@link Knob#defaultValue()}.
     *
     * @return the defaults
     */
    public static KnobSettings defaults() {
        return new KnobSettings(Map.of());
    }

    /**
     * Every combination of knob values that gives a distinct model. With {@code SC_MODE=TRUE}
     * the other knobs have no effect, so only one SC setting is listed.
     *
     * @return the weak-model combinations followed by the SC setting
     */
    public static List<KnobSettings> all() {
        final List<KnobSettings> result = new ArrayList<>();
        result.add(defaults());
        final Knob[] weak = {Knob.ATOMIC_CAP, Knob.PUT_COMPLETION, Knob.READ_PASSABLE_BY_WRITE,
            Knob.RELAXED_ORDERING, Knob.DATA_IN_ORDER};
        final int combinations = 1 << weak.length;
        for (int mask = 1; mask < combinations; mask++) {
            KnobSettings settings = defaults();
            for (int i = 0; i < weak.length; i++) {
                if ((mask & (1 << i)) != 0) {
                    settings = settings.with(weak[i], weak[i].choices().get(1));
                }
            }
            result.add(settings);
        }
        result.add(defaults().with(Knob.SC_MODE, "TRUE"));
        return List.copyOf(result);
    }

    /**
     * The value of one knob.
     *
     * @param knob the knob
     * @return its value
     */
    public String get(final Knob knob) {
        return values.get(knob);
    }

    /**
     * A copy with one knob changed.
     *
     * @param knob  the knob to set
     * @param value its new value
     * @return the new settings
     */
    public KnobSettings with(final Knob knob, final String value) {
        final EnumMap<Knob, String> copy = new EnumMap<>(values);
        copy.put(knob, knob.requireValue(value));
        return new KnobSettings(copy);
    }

    /**
     * Whether every condition of a {@code when} clause holds in these settings.
     *
     * @param conditions knob values that must all match
     * @return true if all match
     */
    public boolean matches(final Map<Knob, String> conditions) {
        return conditions.entrySet().stream().allMatch(e -> values.get(e.getKey()).equals(e.getValue()));
    }

    /**
     * A stable, file-name-safe label: {@code default}, or the non-default assignments.
     *
     * @return the label
     */
    public String label() {
        final String diff = values.entrySet().stream()
            .filter(e -> !e.getValue().equals(e.getKey().defaultValue()))
            .map(e -> e.getKey().name() + "-" + e.getValue())
            .collect(Collectors.joining("_"));
        return diff.isEmpty() ? "default" : diff;
    }

    @Override
    public String toString() {
        return label();
    }
}
