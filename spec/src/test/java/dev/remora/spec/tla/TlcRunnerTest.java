package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TlcRunnerTest {

    private static TlcRunner.Result classify(final String text) {
        return TlcRunner.classify(text, Duration.ZERO, Path.of("x.out"));
    }

    @Test
    void shouldClassifyACompletedRunAsHolds() {
        final TlcRunner.Result r = classify("Model checking completed. No error has been found.\n"
            + "  Estimates of the probability ...\n36 states generated, 25 distinct states found, 0 states left on queue.");
        assertEquals(TlcRunner.Outcome.HOLDS, r.outcome());
        assertEquals(25, r.distinctStates());
    }

    @Test
    void shouldClassifyAnOutcomeWitnessAsViolated() {
        final TlcRunner.Result r = classify("Error: Invariant FinalNeverReached is violated.\n"
            + "Error: The behavior up to this point is:\n7 states generated, 6 distinct states found, 1 states left");
        assertEquals(TlcRunner.Outcome.VIOLATED, r.outcome());
        assertEquals(6, r.distinctStates());
    }

    @Test
    void shouldClassifyDeadlocksAndOtherInvariantsAsErrors() {
        assertEquals(TlcRunner.Outcome.ERROR, classify("Error: Deadlock reached.\n").outcome());
        assertEquals(TlcRunner.Outcome.ERROR, classify("Error: Invariant TypeOK is violated.\n").outcome());
        final TlcRunner.Result r = classify("Fatal errors while parsing TLA+ spec");
        assertEquals(TlcRunner.Outcome.ERROR, r.outcome());
        assertEquals(-1, r.distinctStates());
    }
}
