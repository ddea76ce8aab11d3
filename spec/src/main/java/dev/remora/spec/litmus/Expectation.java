package dev.remora.spec.litmus;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * One {@code expect} or {@code when ... expect} line of a litmus file.
 *
 * <p>The unconditional line has no conditions. A {@code when} line applies when every one of
 * its conditions holds; later lines override earlier ones.
 *
 * @param conditions knob values that must all hold; empty for the unconditional verdict
 * @param verdict    the verdict under those conditions
 * @param line       the line of the file it came from
 */
public record Expectation(Map<Knob, String> conditions, Verdict verdict, int line) {

    /**
     * Copies the conditions.
     *
     * @param conditions knob values that must all hold
     * @param verdict    the verdict
     * @param line       source line
     */
    public Expectation {
        conditions = Collections.unmodifiableMap(conditions.isEmpty()
            ? new EnumMap<>(Knob.class) : new EnumMap<>(conditions));
    }
}
