package dev.remora.verbs.det;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seed runner: every seed once, and the failure the sequential loop would report. */
class DetRunsTest {
    @Test
    void shouldRunEverySeedExactlyOnceOnParallelWorkers() {
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        DetRuns.forEachSeedInParallel(5, 400, 3, seed -> {
            assertTrue(seen.add(seed), "seed " + seed + " ran twice");
            threads.add(Thread.currentThread().getName());
        });
        assertEquals(400, seen.size());
        assertTrue(seen.contains(5L) && seen.contains(404L) && !seen.contains(405L));
        assertTrue(threads.stream().allMatch(n -> n.startsWith("det-seeds-")), "ran on " + threads);
    }

    @Test
    void shouldReportTheLowestFailingSeedWhateverTheWorkersFinishFirst() {
        // Seeds 37 and 90 fail; 37 is slow, so a worker sees 90 fail first.
        AssertionError e = assertThrows(AssertionError.class, () -> DetRuns.forEachSeedInParallel(1, 200, 3, seed -> {
            if (seed == 37) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
                throw new AssertionError("boom 37");
            }
            if (seed == 90) {
                throw new AssertionError("boom 90");
            }
        }));
        assertTrue(e.getMessage().startsWith("seed 37 failed: boom 37"), e.getMessage());
        assertTrue(e.getMessage().contains("-D" + DetRuns.SEED_PROPERTY + "=37"), e.getMessage());
    }
}
