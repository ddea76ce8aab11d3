package dev.remora.kv;

import dev.remora.check.HistoryRecorder;
import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * A {@link CuckooMap} handle whose calls are recorded in the terms of the checker's map model
 * ({@code dev.remora.check.model.Models.map()}): keys and values as UTF-8 strings, absence as {@code null}.
 *
 * <ul>
 *   <li>{@code get}: OK &rarr; {@code ok(value)}, NOT_FOUND &rarr; {@code ok(null)};</li>
 *   <li>{@code put v}, {@code update v}, {@code delete}: OK &rarr; {@code ok(previous)} ({@code null} if the key was
 *       new), NOT_FOUND (update, delete) &rarr; {@code ok(null)}: the key was absent and nothing was written;</li>
 *   <li>{@code cas [expected replacement]} ({@code null} for absent on either side): OK &rarr;
 *       {@code ok([true, previous])}, CAS_MISMATCH &rarr; {@code ok([false, current])};</li>
 *   <li>BUSY and TABLE_FULL (nothing changed) &rarr; {@code fail};</li>
 *   <li>an exception (a verb error or timeout, a crash of the client's node, a hook's abandonment) &rarr; {@code info}
 *       (the outcome is unknown), rethrown; an {@link IllegalArgumentException} (a call refused before any verb)
 *       &rarr; {@code fail}.</li>
 * </ul>
 * So every acknowledged write carries the value it replaced, which the checker verifies: a lost update, or a write
 * that a repair dropped, shows in the history.
 */
final class RecordedMap {
    /** Where an operation is invoked: a recorder's thread ({@code recorder::invoke}) or a client's process. */
    @FunctionalInterface
    interface Process {
        /**
         * @param function the operation
         * @param key its key
         * @param input its argument
         * @return the open invocation
         */
        HistoryRecorder.Invocation invoke(String function, Object key, Object input);
    }

    private CuckooMap map;
    private Process process;

    /**
     * @param map the handle whose calls are recorded
     * @param process where they are invoked
     */
    RecordedMap(CuckooMap map, Process process) {
        this.map = map;
        this.process = process;
    }

    /** @return the handle */
    CuckooMap map() {
        return map;
    }

    /**
     * Goes on with another handle and process (a client restarted after a crash).
     *
     * @param newMap the handle
     * @param newProcess the process
     */
    void restart(CuckooMap newMap, Process newProcess) {
        this.map = newMap;
        this.process = newProcess;
    }

    static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** A GET ({@link CuckooMap#lookup}). */
    Result get(String key) {
        return record("get", key, null, () -> map.lookup(bytes(key)));
    }

    /** A PUT. */
    Result put(String key, String value) {
        return record("put", key, value, () -> map.put(bytes(key), bytes(value)));
    }

    /** An UPDATE. */
    Result update(String key, String value) {
        return record("update", key, value, () -> map.update(bytes(key), bytes(value)));
    }

    /** A DELETE. */
    Result delete(String key) {
        return record("delete", key, null, () -> map.delete(bytes(key)));
    }

    /** A compare-and-set; {@code null} expects absence, or writes it. */
    Result compareAndSet(String key, String expected, String replacement) {
        return record("cas", key, Arrays.asList(expected, replacement),
            () -> map.compareAndSet(bytes(key), bytes(expected), bytes(replacement)));
    }

    private Result record(String function, String key, Object input, Supplier<Result> call) {
        HistoryRecorder.Invocation inv = process.invoke(function, key, input);
        Result r;
        try {
            r = call.get();
        } catch (IllegalArgumentException e) {
            inv.fail();
            throw e;
        } catch (RuntimeException e) {
            inv.info();
            throw e;
        }
        switch (r.status()) {
            case OK -> inv.ok(function.equals("cas") ? Arrays.asList(true, text(r.value())) : text(r.value()));
            case NOT_FOUND -> inv.ok(null);
            case CAS_MISMATCH -> inv.ok(Arrays.asList(false, text(r.value())));
            case BUSY, TABLE_FULL -> inv.fail();
            default -> throw new AssertionError(r.status());
        }
        return r;
    }
}
