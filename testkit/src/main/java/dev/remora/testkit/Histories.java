package dev.remora.testkit;

import dev.remora.check.CheckResult;
import dev.remora.check.Checker;
import dev.remora.check.History;
import dev.remora.check.HistoryRecorder;
import dev.remora.check.Model;
import dev.remora.check.Verdict;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.VerbsTimeoutException;

import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Recording histories of operations on remote objects and checking them with a model of the linearizability
 * checker.
 *
 * <p>{@link HistoryRecorder} records an operation {@code ok} when it returns, {@code fail} when it throws, and
 * {@code info} (outcome unknown) when it throws an exception marked as an unknown outcome. The recorders made here
 * mark what the verbs themselves call indeterminate ({@link #unknownOutcome}): a {@link RemoteAccessException}
 * whose status may have let the request execute (RETRY_EXC_ERR, WR_FLUSH_ERR, ...,
 * {@link RemoteAccessException#isIndeterminate()}) and a {@link VerbsTimeoutException} for a request that was
 * posted ({@link VerbsTimeoutException#isIndeterminate()}). A refusal before any effect (REM_ACCESS_ERR, a timeout
 * before posting) stays {@code fail}. Objects add their own unknown-outcome exceptions with
 * {@link #recorder(LongSupplier, Predicate)}.
 */
public final class Histories {
    private Histories() {
    }

    /**
     * Whether an operation that threw {@code t} may have taken effect, by the verbs' own classification.
     *
     * @param t what the operation threw
     * @return true for an indeterminate {@link RemoteAccessException} or {@link VerbsTimeoutException}, or either of
     *     them as the cause
     */
    public static boolean unknownOutcome(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof RemoteAccessException r && r.isIndeterminate()
                || c instanceof VerbsTimeoutException v && v.isIndeterminate()) {
                return true;
            }
        }
        return false;
    }

    /**
     * An in-memory recorder on the cluster's clock (virtual time on the deterministic fabric), marking
     * {@link #unknownOutcome} exceptions {@code info}.
     *
     * @param cluster the cluster whose operations are recorded
     * @return the recorder
     */
    public static HistoryRecorder recorder(Cluster cluster) {
        return recorder(cluster::nanoTime, t -> false);
    }

    /**
     * An in-memory recorder marking {@link #unknownOutcome} exceptions, and those {@code alsoUnknown} accepts,
     * {@code info}.
     *
     * @param clock the clock, in nanoseconds
     * @param alsoUnknown further unknown outcomes (an object's own "write overtaken", say)
     * @return the recorder
     */
    public static HistoryRecorder recorder(LongSupplier clock, Predicate<? super Throwable> alsoUnknown) {
        return HistoryRecorder.builder().clock(clock).name("testkit")
            .unknownOutcomeWhen(Histories::unknownOutcome).unknownOutcomeWhen(alsoUnknown).build();
    }

    /**
     * Checks a history.
     *
     * @param history the history
     * @param model the model, e.g. {@code new RegisterModel(false, 0L)}
     * @param <S> the model's state
     * @return the checker's result
     */
    public static <S> CheckResult check(History history, Model<S> model) {
        return Checker.check(history, model);
    }

    /**
     * Checks a history and fails unless it is linearizable.
     *
     * @param history the history
     * @param model the model
     * @param <S> the model's state
     * @return the checker's result, whose verdict is {@link Verdict#LINEARIZABLE}
     * @throws AssertionError naming the verdict, its cause or failure, and the operations
     */
    public static <S> CheckResult assertLinearizable(History history, Model<S> model) {
        CheckResult r = Checker.check(history, model);
        if (r.verdict() != Verdict.LINEARIZABLE) {
            throw new AssertionError(r.verdict() + (r.cause() != null ? " (" + r.cause() + ")" : "")
                + (r.failure() != null ? ": " + r.failure() : "") + " in " + history.operations());
        }
        return r;
    }

    /**
     * Whether the checker refutes a history (finds it not linearizable), for controls that must be caught.
     *
     * @param history the history
     * @param model the model
     * @param <S> the model's state
     * @return true if the verdict is {@link Verdict#NOT_LINEARIZABLE}; false for linearizable or unknown
     */
    public static <S> boolean refuted(History history, Model<S> model) {
        return Checker.check(history, model).verdict() == Verdict.NOT_LINEARIZABLE;
    }
}
