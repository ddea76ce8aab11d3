package dev.remora.check;

import dev.remora.check.io.HistoryReader;
import dev.remora.check.model.Models;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failure in any partition decides the history, however hard the others are.
 *
 * <p>{@code hard/kv-appends-20-clients.txt} is the hard key-value shape of the bench's
 * {@code HistoryGenerator.kvAppendsHard(20, 5, 400, 1)} (written with {@code toKvLog}): 20
 * clients appending to 5 keys, key "0" with 214 operations of which 115 appends (not decided
 * after 300,000 states, about 120 MiB of cache), and one get of key "4" (21 operations) made
 * impossible, which fails after 43 states. Checking the largest partition first and to its end
 * ends unknown at the memory limit (one thread) or finds the failure only after the hard
 * partition has used up its memory; interleaving the partitions finds it in the first round.
 */
class PartitionSchedulingTest {
    /** Round 0 gives each of the 5 partitions at most 4,096 states. */
    private static final long STATE_BOUND = 5 * 4096;

    static History hard() throws Exception {
        Path p = Paths.get(PartitionSchedulingTest.class.getResource("/hard/kv-appends-20-clients.txt").toURI());
        return HistoryReader.read(p, null);
    }

    @Test
    void shouldFindAnEasyFailureBehindAHardPartitionWithinABoundedNumberOfStates() throws Exception {
        History h = hard();
        Model<?> kv = Models.create("kv", null, false);
        Checker.validate(h, kv);
        for (int threads : new int[] {1, 2, 4}) {
            CheckResult r = Checker.check(h, kv, CheckOptions.DEFAULTS.withParallelism(threads)
                    .withMemoryLimitBytes(32 << 20).withTimeLimitSeconds(30));
            assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict(), threads + " threads: " + r);
            assertEquals("4", r.failure().partitionKey(), r.failure().reason());
            assertTrue(r.statesExplored() <= STATE_BOUND, threads + " threads: " + r.statesExplored() + " states");
        }
    }

    @Test
    void shouldGiveTheSameVerdictAndExplanationForEveryThreadCountAndMemoryLimit() throws Exception {
        History h = hard();
        Model<?> kv = Models.create("kv", null, false);
        CheckResult first = null;
        for (int threads : new int[] {1, 2, 4}) {
            for (long memory : new long[] {0, 16 << 20, 1L << 30}) {
                CheckResult r = Checker.check(h, kv, CheckOptions.DEFAULTS.withParallelism(threads)
                        .withMemoryLimitBytes(memory).withTimeLimitSeconds(30));
                String what = threads + " threads, memory limit " + memory;
                assertEquals(Verdict.NOT_LINEARIZABLE, r.verdict(), what);
                if (first == null) {
                    first = r;
                    continue;
                }
                assertEquals(first.statesExplored(), r.statesExplored(), what);
                Failure a = first.failure();
                Failure b = r.failure();
                assertEquals(a.reason(), b.reason(), what);
                assertEquals(a.partitionKey(), b.partitionKey(), what);
                assertEquals(a.blocking(), b.blocking(), what);
                assertEquals(a.partialLinearization(), b.partialLinearization(), what);
                assertEquals(a.states(), b.states(), what);
                assertEquals(a.window(), b.window(), what);
                assertEquals(a.windowStart(), b.windowStart(), what);
            }
        }
    }

    @Test
    void shouldStopAPartitionThatOutgrowsItsMemoryShareAndStillDecideTheOthers() throws Exception {
        // Without the impossible get, key "0" is undecided: the verdict is unknown at the memory
        // limit, and only then, after every other partition was decided linearizable.
        History h = hard();
        List<Operation> ops = h.operations();
        Model<?> kv = Models.create("kv", null, false);
        History withoutKey4 = new History("no-key-4", h.format(), renumber(ops.stream()
                .filter(o -> !"4".equals(o.key())).toList()));
        CheckResult r = Checker.check(withoutKey4, kv, CheckOptions.DEFAULTS.withParallelism(1)
                .withMemoryLimitBytes(16 << 20).withTimeLimitSeconds(30));
        assertEquals(Verdict.UNKNOWN, r.verdict(), r::toString);
        assertEquals("memory limit reached", r.cause());
    }

    private static List<Operation> renumber(List<Operation> ops) {
        List<Operation> out = new ArrayList<>();
        for (Operation o : ops) {
            out.add(o.with(out.size(), o.ret(), o.output()));
        }
        return out;
    }
}
