package dev.remora.kv;

import dev.remora.kv.CuckooMap.Result;
import dev.remora.kv.CuckooMap.Status;

import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The operation mix of the kv concurrency tests: each step draws one of a few keys and, a quarter each, GETs it, PUTs
 * a fresh value, DELETEs it, or compareAndSets it (expecting the value last seen, absence one time in four, and
 * replacing it with the fresh value, absence one time in five), recorded through a {@link RecordedMap}. It tallies,
 * over every client, BUSY and TABLE_FULL answers, successful compareAndSets and the keys PUTs kicked. Thread-safe.
 */
final class MapMix {
    /** BUSY answers. */
    final AtomicInteger busy = new AtomicInteger();
    /** TABLE_FULL answers. */
    final AtomicInteger full = new AtomicInteger();
    /** compareAndSets that succeeded. */
    final AtomicInteger casOk = new AtomicInteger();
    /** Keys the PUTs kicked. */
    final AtomicInteger kicks = new AtomicInteger();

    /**
     * Runs one step of a client.
     *
     * @param m the client's handle (for its kick count)
     * @param map the same handle, recorded
     * @param get how the client GETs a key through {@code map} (a test may count its round trips)
     * @param rnd the client's random source
     * @param keys the keys
     * @param seen per key, the value the client saw last (null: absent); updated
     * @param fresh a value no one wrote before
     * @return the operation's result
     */
    Result step(CuckooMap m, RecordedMap map, Function<String, Result> get, Random rnd, String[] keys,
                String[] seen, String fresh) {
        int k = rnd.nextInt(keys.length);
        String key = keys[k];
        Result r;
        switch (rnd.nextInt(4)) {
            case 0 -> {
                r = get.apply(key);
                seen[k] = r.status() == Status.BUSY ? seen[k] : RecordedMap.text(r.value());
            }
            case 1 -> {
                long before = m.kicks();
                r = map.put(key, fresh);
                kicks.addAndGet((int) (m.kicks() - before));
            }
            case 2 -> r = map.delete(key);
            default -> {
                String expected = rnd.nextInt(4) == 0 ? null : seen[k];
                String replacement = rnd.nextInt(5) == 0 ? null : fresh;
                r = map.compareAndSet(key, expected, replacement);
                if (r.status() == Status.OK) {
                    casOk.incrementAndGet();
                    seen[k] = replacement;
                } else if (r.status() == Status.CAS_MISMATCH) {
                    seen[k] = RecordedMap.text(r.value());
                }
            }
        }
        if (r.status() == Status.BUSY) {
            busy.incrementAndGet();
        } else if (r.status() == Status.TABLE_FULL) {
            full.incrementAndGet();
        }
        return r;
    }
}
