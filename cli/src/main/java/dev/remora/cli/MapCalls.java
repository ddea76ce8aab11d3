package dev.remora.cli;

import dev.remora.check.HistoryRecorder;
import dev.remora.kv.CuckooMap;

import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@link CuckooMap} calls recorded in the terms of the checker's map model ({@code remora check --model map}): a
 * {@code get} returns the value or {@code null} (absent); {@code put}, {@code update} and {@code delete} return the
 * value they replaced, {@code null} if the key was absent (an UPDATE or DELETE that found nothing wrote nothing);
 * {@code cas [expected replacement]} ({@code null} for absent on either side) returns {@code [true, previous]} or
 * {@code [false, current]}; BUSY and TABLE_FULL (nothing changed) are {@code fail}; an exception is {@code info} when
 * the caller's predicate says its outcome is unknown, {@code fail} otherwise, and is rethrown.
 */
final class MapCalls {
    private MapCalls() {
    }

    /**
     * Runs one call and completes its invocation.
     *
     * @param inv the invocation, opened before the call
     * @param function its function: {@code get}, {@code put}, {@code update}, {@code delete} or {@code cas}
     * @param charset how values are turned into the recorded strings
     * @param unknownOutcome which exceptions leave the outcome unknown
     * @param call the call
     * @return its result
     */
    static CuckooMap.Result record(HistoryRecorder.Invocation inv, String function, Charset charset,
                                   Predicate<Throwable> unknownOutcome, Supplier<CuckooMap.Result> call) {
        CuckooMap.Result r;
        try {
            r = call.get();
        } catch (RuntimeException e) {
            if (unknownOutcome.test(e)) {
                inv.info();
            } else {
                inv.fail();
            }
            throw e;
        }
        String value = r.value() == null ? null : new String(r.value(), charset);
        switch (r.status()) {
            case OK -> inv.ok(function.equals("cas") ? Arrays.asList(true, value) : value);
            case NOT_FOUND -> inv.ok(null);
            case CAS_MISMATCH -> inv.ok(Arrays.asList(false, value));
            default -> inv.fail(); // BUSY, TABLE_FULL: nothing changed
        }
        return r;
    }
}
