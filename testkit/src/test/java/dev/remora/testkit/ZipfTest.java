package dev.remora.testkit;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Zipf}: the drawn ranks against the exact distribution, and its bounds. */
class ZipfTest {
    @Test
    void shouldDrawRanksFollowingTheDistribution() {
        int n = 100_000;
        Zipf z = new Zipf(n, Zipf.YCSB_THETA);
        SplittableRandom rnd = new SplittableRandom(3);
        int samples = 1_000_000;
        int[] counts = new int[n];
        for (int i = 0; i < samples; i++) {
            counts[z.rank(rnd.nextDouble())]++;
        }
        // Ranks 0 and 1 are drawn exactly (P(i) = 1 / ((i + 1)^theta zeta(n, theta)): 7.8 % and 3.9 %); beyond them
        // the inversion is Gray et al.'s continuous approximation, within a few per cent of the exact mass.
        for (int i = 0; i < 2; i++) {
            double expected = z.probabilityOfFirst() / Math.pow(i + 1, Zipf.YCSB_THETA);
            assertEquals(expected, counts[i] / (double) samples, expected * 0.03, "rank " + i);
        }
        long got = 0;
        int from = 0;
        for (int upTo : new int[] {10, 100, 1_000, 10_000}) {
            for (int i = from; i < upTo; i++) {
                got += counts[i];
            }
            from = upTo;
            double expected = Zipf.zeta(upTo, Zipf.YCSB_THETA) * z.probabilityOfFirst();
            assertEquals(expected, got / (double) samples, expected * 0.06, "ranks below " + upTo);
        }
        long tail = 0;
        for (int i = 9 * n / 10; i < n; i++) {
            tail += counts[i];
        }
        assertTrue(tail > 0, "the last tenth of the ranks is reached");
        assertEquals(0, z.rank(0.0));
        assertEquals(n - 1, z.rank(Math.nextDown(1.0)), "the last rank");
    }

    @Test
    void shouldRefuseTooFewRanksAndASkewOutsideTheOpenInterval() {
        assertThrows(IllegalArgumentException.class, () -> new Zipf(1, 0.99));
        assertThrows(IllegalArgumentException.class, () -> new Zipf(10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new Zipf(10, 0.0));
    }
}
