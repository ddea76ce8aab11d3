package dev.remora.testkit;

/**
 * Zipf-distributed ranks {@code 0..n-1}: rank {@code i} is drawn with probability proportional to
 * {@code 1 / (i + 1)^theta}, by the inversion method of Gray et al. ("Quickly generating billion-record synthetic
 * databases", SIGMOD 1994), which YCSB's request distribution also uses: one uniform draw and one {@code pow} per
 * sample, after computing the normalising constant {@code zeta(n, theta)} once (about 1 ms for 100,000 ranks).
 *
 * <p>Ranks 0 and 1 are drawn with their exact probabilities; beyond them the inversion is the paper's continuous
 * approximation, within a few per cent of the exact mass of any head of the ranks ({@code ZipfTest}). Rank 0 is the
 * most popular. The kv benchmark and the demo map rank {@code i} to key {@code i} directly, without YCSB's
 * scrambling: the maps hash the key's bytes, so which keys are the popular ones does not change where they land.
 * Immutable and thread-safe; each thread brings its own uniform source.
 */
public final class Zipf {
    /** YCSB's default skew. */
    public static final double YCSB_THETA = 0.99;

    private final int n;
    private final double theta;
    private final double zetaN;
    private final double alpha;
    private final double eta;
    private final double secondThreshold;

    /**
     * @param n the number of ranks, at least 2
     * @param theta the skew, in (0, 1)
     */
    public Zipf(int n, double theta) {
        if (n < 2) {
            throw new IllegalArgumentException("a Zipf distribution needs at least 2 ranks: " + n);
        }
        if (!(theta > 0 && theta < 1)) {
            throw new IllegalArgumentException("theta must be in (0, 1): " + theta);
        }
        this.n = n;
        this.theta = theta;
        this.zetaN = zeta(n, theta);
        this.alpha = 1 / (1 - theta);
        this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta(2, theta) / zetaN);
        this.secondThreshold = 1 + Math.pow(0.5, theta);
    }

    /**
     * The generalised harmonic number.
     *
     * @param n how many terms
     * @param theta the exponent
     * @return {@code sum over i = 1..n of 1 / i^theta}
     */
    public static double zeta(int n, double theta) {
        double sum = 0;
        for (int i = 1; i <= n; i++) {
            sum += 1 / Math.pow(i, theta);
        }
        return sum;
    }

    /** @return the number of ranks */
    public int size() {
        return n;
    }

    /** @return the skew */
    public double theta() {
        return theta;
    }

    /** @return the probability of rank 0, {@code 1 / zeta(n, theta)} */
    public double probabilityOfFirst() {
        return 1 / zetaN;
    }

    /**
     * A rank for one uniform draw.
     *
     * @param u uniform in [0, 1)
     * @return a rank in {@code 0..n-1}
     */
    public int rank(double u) {
        double uz = u * zetaN;
        if (uz < 1) {
            return 0;
        }
        if (uz < secondThreshold) {
            return 1;
        }
        int r = (int) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(Math.max(r, 0), n - 1);
    }
}
