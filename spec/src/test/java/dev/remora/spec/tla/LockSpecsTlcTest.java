package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs TLC on every lock model under {@code spec/locks/<Lock>/MC*.cfg} and checks that the safe models hold every
 * invariant and property, that each {@code *Unsafe} (and other expected-failure) model fails with the expected
 * violated property, and that the distinct-state counts equal those recorded in {@code spec/locks/manifest.json}.
 *
 * <p>Models whose name ends in {@code Full} run only with {@code -Dremora.spec.full=true} (profile
 * {@code spec-full}). {@code -Dremora.spec.updateManifest=true} rewrites the manifest from this run (expected results
 * are still checked). Each model runs in its own directory under {@code target/tlc-locks/}, with
 * {@code locks/BlockingVerbs.tla} and {@code locks/BlockingFaults.tla} copied next to it. The running and checking
 * is {@link SpecModelSuite}'s, shared with {@link ObjectSpecsTlcTest}; the expected results of the lock models are
 * the maps below.
 */
class LockSpecsTlcTest {

    /** Models expected to fail, with the property TLC must report ("temporal" for a liveness property). */
    private static final Map<String, String> EXPECTED_VIOLATIONS = Map.ofEntries(
        Map.entry("MCCasSpinLockUnsafe", "MutualExclusion"),
        Map.entry("MCCasSpinLockWeak", "Publication"),
        // The current CasSpinLock under faults: a WRITE on a replaced QP lands after the release; a retired CAS that
        // lands leaves the word set with nobody holding it; the fix as first designed takes its own id for the lock.
        Map.entry("MCCasSpinLockReplacedQp", "Publication"),
        Map.entry("MCCasSpinLockOrphan", "temporal"),
        Map.entry("MCCasSpinLockOwnRelease", "MutualExclusion"),
        Map.entry("MCTicketLockUnsafe", "Publication"),
        Map.entry("MCTicketLockSkip", "FifoOrder"),
        // TicketLock under faults: a ticket the current lock() gave up, and (fixed) a ticket of a FETCH_ADD with an
        // unknown outcome, stall the lock.
        Map.entry("MCTicketLockDropped", "temporal"),
        Map.entry("MCTicketLockStall", "temporal"),
        Map.entry("MCMcsLockUnsafe", "Publication"),
        Map.entry("MCMcsLockDoorway", "temporal"),
        // McsLock under faults, the reviewed code: an unlock() that spins for ever on a crashed waiter's link, a
        // release that let go before the flush, a forgotten timed-out tail CAS (the retry links behind itself), a
        // slot never written again after its QP broke.
        Map.entry("MCMcsLockUnboundedUnlock", "UnlockCanEnd"),
        Map.entry("MCMcsLockUnboundedUnlockFull", "temporal"),
        Map.entry("MCMcsLockReleaseFirst", "LockNotLost"),
        Map.entry("MCMcsLockSelfLink", "NoSelfLink"),
        Map.entry("MCMcsLockSlotNeverFull", "SlotsPlaced"),
        // McsLock under faults, the code before the fix (twins: the fix's knob off): the slot check missed a QP that
        // broke after the slot WRITE; a timed-out release CAS was settled by the next lock() as its own; a release CAS
        // or handover with an unknown outcome left a handle that "still held" a lock it may have passed on, and one
        // posted again after a timeout (handover, link) landed in a later tenure.
        Map.entry("MCMcsLockSlotEpoch", "SlotsPlaced"),
        Map.entry("MCMcsLockRelCasTimeout", "NoSelfLink"),
        Map.entry("MCMcsLockReleaseError", "HeldExclusive"),
        Map.entry("MCMcsLockHandoverTimeoutFull", "MutualExclusion"),
        Map.entry("MCMcsLockLinkTimeoutFull", "LockNotLost"),
        // McsLock under faults, the fixed code: after a release verb's timeout the handle says it holds the lock until
        // the next unlock() settles the late verb, which may have passed it on already.
        Map.entry("MCMcsLockReleaseTimeoutFull", "HeldExclusive"),
        Map.entry("MCLeaseLockUnsafe", "LeaseSafety"),
        Map.entry("MCReadWriteLockUnsafe", "Exclusion"),
        // RemoteReadWriteLock under faults: before the fix a timed-out announcement was taken as not made and made
        // again (a leaked waiting count blocks readers); the current handle forgets a timed-out acquiring CAS (it
        // lands, and the writer bit stays set with nobody holding it).
        Map.entry("MCReadWriteLockLeak", "temporal"),
        Map.entry("MCReadWriteLockForgotten", "temporal"),
        // LeaseLock under faults: an acquisition with an unknown outcome resolved by reading the word takes another
        // client's acquisition for its own (the same word, the same token).
        Map.entry("MCLeaseLockResolveByRead", "UniqueTokens"));

    /** The lease lock's timing twins, one per hazard (kept apart: {@code Map.of} takes at most ten entries). */
    private static final Map<String, String> LEASE_LOCK_VIOLATIONS = Map.of(
        "MCLeaseLockWaitAfterRead", "MutualExclusionWhileLeasesHold",
        "MCLeaseLockMarginZero", "MutualExclusionWhileLeasesHold",
        "MCLeaseLockRenewBlind", "RenewalDetectsTakeover",
        "MCLeaseLockPerHandleLease", "MutualExclusionWhileLeasesHold");

    private static final SpecModelSuite SUITE = new SpecModelSuite("lock", Path.of("locks"),
        List.of(Path.of("locks")), Path.of("target", "tlc-locks"),
        "mvn -B -pl spec test -Dtest=LockSpecsTlcTest -Dremora.spec.updateManifest=true",
        cfg -> expected(cfg.getFileName().toString().replace(".cfg", "")));

    private static String expected(final String module) {
        final String violated = EXPECTED_VIOLATIONS.getOrDefault(module, LEASE_LOCK_VIOLATIONS.get(module));
        return violated != null ? "violated:" + violated : "holds";
    }

    @TestFactory
    Stream<DynamicTest> shouldHoldOrFailAsExpectedForEveryLockModel() throws IOException {
        final List<DynamicTest> tests = SUITE.tests(10);
        final List<String> run = SUITE.modelsRun();
        final List<String> expectedHere = EXPECTED_VIOLATIONS.keySet().stream()
            .filter(m -> SpecModelSuite.FULL || !m.endsWith("Full")).toList();
        assertTrue(run.containsAll(expectedHere) && run.containsAll(LEASE_LOCK_VIOLATIONS.keySet()),
            "an expected-failure model is missing: " + EXPECTED_VIOLATIONS.keySet() + LEASE_LOCK_VIOLATIONS.keySet()
                + " vs " + run);
        return tests.stream();
    }

    @AfterAll
    static void writeReportAndManifest() throws IOException, InterruptedException {
        SUITE.finish();
    }
}
