package dev.remora.verbs.det;

import java.util.function.LongConsumer;

/**
 * Runs a seeded check over many seeds and makes failures replayable: a failing seed is reported with the system
 * property that reruns exactly that seed ({@value #SEED_PROPERTY}), and setting the property runs only that seed.
 */
public final class DetRuns {
    /** System property that selects one seed to replay. */
    public static final String SEED_PROPERTY = "remora.det.seed";

    private DetRuns() {
    }

    /**
     * Calls {@code check} for every seed in {@code [first, first + count)}, or only for the seed named by
     * {@value #SEED_PROPERTY} when it is set.
     *
     * @param first the first seed
     * @param count how many seeds
     * @param check the check; it throws (an assertion error, say) to fail
     * @throws AssertionError naming the failing seed and how to replay it, with the original as cause
     */
    public static void forEachSeed(long first, int count, LongConsumer check) {
        String only = System.getProperty(SEED_PROPERTY);
        if (only != null && !only.isBlank()) {
            long seed = Long.parseLong(only.trim());
            run(seed, check);
            return;
        }
        for (long seed = first; seed < first + count; seed++) {
            run(seed, check);
        }
    }

    private static void run(long seed, LongConsumer check) {
        try {
            check.accept(seed);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("seed " + seed + " failed: " + e.getMessage() + "\n  replay just this seed with -D"
                + SEED_PROPERTY + "=" + seed + " (e.g. mvn -pl <module> test -Dtest=<TestClass> -D" + SEED_PROPERTY
                + "=" + seed + ")", e);
        }
    }
}
