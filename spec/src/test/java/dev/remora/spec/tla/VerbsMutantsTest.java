package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import dev.remora.spec.litmus.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Semantic mutants of the model: each one breaks one rule of {@code Verbs.tla} or {@code RDMA.tla} by a
 * textual edit of a copy of the module, and names the litmus files (and the knob settings) that must
 * catch it. For every mutant this test copies the model modules into a fresh directory, generates the
 * killers' models there, applies the edit (its original text must occur exactly once, so a mutant whose
 * text the model no longer has fails loudly instead of silently testing nothing), runs TLC and requires
 * that at least one killer's verdict differs from the verdict its file expects. A few mutants also
 * accept a TLC error that the broken rule produces (a deadlock or a {@code TypeOK} violation); a parse
 * or semantic error never counts, nor does a timeout. The score (mutants killed of mutants run) is
 * printed and must be full.
 *
 * <p>The unmutated verdict of every killer is checked by {@link LitmusTlcConformanceTest} in the same
 * build; this test requires each killer setting to be one that test checks. Mutants run in parallel,
 * {@code remora.spec.tlcParallelism} at a time (default 2), each killer in its own TLC JVM.
 */
class VerbsMutantsTest {

    private static final Path LITMUS = Path.of("litmus");
    private static final Path OUT = Path.of("target", "tlc-mutants");
    private static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("remora.spec.tlcTimeoutSec", 120));
    private static final int PARALLELISM = Integer.getInteger("remora.spec.tlcParallelism", 2);
    private static final String VERBS = "Verbs.tla";
    private static final String RDMA = "RDMA.tla";

    /** How a killer may catch a mutant. */
    enum Catch {
        /** TLC's verdict differs from the one the litmus file expects. */
        VERDICT,
        /** TLC reports a deadlock: some execution gets stuck before quiescence. */
        DEADLOCK,
        /** TLC reports {@code TypeOK} violated. */
        TYPE_OK
    }

    /**
     * A litmus file and the knob setting under which it catches a mutant.
     *
     * @param litmus   the file's test id
     * @param settings the setting
     */
    record Killer(String litmus, KnobSettings settings) {
    }

    /**
     * One documented mutant.
     *
     * @param name        a short name
     * @param rule        the rule it breaks and how
     * @param module      the module it edits
     * @param original    the text it replaces, which must occur exactly once
     * @param replacement the text it puts there
     * @param killers     the litmus files that must catch it
     * @param accepted    how it may be caught; always includes {@link Catch#VERDICT}
     */
    record Mutant(String name, String rule, String module, String original, String replacement,
                  List<Killer> killers, Set<Catch> accepted) {
    }

    /**
     * What happened to one mutant.
     *
     * @param mutant  the mutant
     * @param killed  whether a killer caught it in an accepted way
     * @param details one line per killer run
     * @param problem why the mutant could not be judged (stale text, TLC parse error, timeout), or null
     */
    record Result(Mutant mutant, boolean killed, List<String> details, String problem) {
    }

    private static Killer killer(final String litmus) {
        return new Killer(litmus, KnobSettings.defaults());
    }

    private static Killer killer(final String litmus, final Knob knob, final String value) {
        return new Killer(litmus, KnobSettings.defaults().with(knob, value));
    }

    private static Mutant verbs(final String name, final String rule, final String original, final String replacement,
                                final Killer... killers) {
        return new Mutant(name, rule, VERBS, original, replacement, List.of(killers), EnumSet.of(Catch.VERDICT));
    }

    private static Mutant rdma(final String name, final String rule, final String original, final String replacement,
                               final Killer... killers) {
        return new Mutant(name, rule, RDMA, original, replacement, List.of(killers), EnumSet.of(Catch.VERDICT));
    }

    /* The put-write ordering case of PutWriteOrdered for an earlier atomic (the same text occurs in ReadOrdered). */
    private static final String PUT_AFTER_ATOMIC = "[] Wr[j].kind = \"get\" -> READ_PASSABLE_BY_WRITE \\/ ReadAll(j)\n"
        + "          [] OTHER              -> AtomicDone(j)";

    /** The mutants; see spec/mutants.md for the table. */
    static final List<Mutant> MUTANTS = List.of(
        verbs("put-inside-atomic-window",
            "R9: a later put on the QP lands between an earlier atomic's read and write phases",
            PUT_AFTER_ATOMIC,
            PUT_AFTER_ATOMIC.replace("-> AtomicDone(j)", "-> wr[j].rd # {}"),
            killer("L17a")),
        verbs("failed-cas-writes",
            "R16: a CAS whose comparison fails still writes its swap value",
            "AtomicWrites(k, old) == Wr[k].kind = \"faa\" \\/ old = Wr[k].cmp",
            "AtomicWrites(k, old) == TRUE",
            killer("L15a")),
        verbs("relaxed-ordering-drops-read-flush",
            "R7, R19: under RELAXED_ORDERING a get reads before an earlier put on the QP is placed"
                + " (a relaxed MR drops only R6)",
            "CASE Wr[j].kind = \"put\" -> Placed(j)",
            "CASE Wr[j].kind = \"put\" -> RELAXED_ORDERING \\/ Placed(j)",
            killer("L06", Knob.RELAXED_ORDERING, "TRUE")),
        verbs("relaxed-put-passes-atomic",
            "R19: under RELAXED_ORDERING a later put lands before an earlier atomic is done"
                + " (relaxed writes do not bypass atomics)",
            PUT_AFTER_ATOMIC,
            PUT_AFTER_ATOMIC.replace("-> AtomicDone(j)", "-> RELAXED_ORDERING \\/ AtomicDone(j)"),
            killer("L17a", Knob.RELAXED_ORDERING, "TRUE")),
        verbs("fence-ignored-on-inline-put",
            "R13: IBV_SEND_FENCE has no effect on an inline put (whose source was copied at post)",
            "FenceOK(k) == Wr[k].fence =>",
            "FenceOK(k) == Wr[k].fence /\\ ~Wr[k].inline =>",
            killer("L07b")),
        verbs("get-local-write-fused-with-remote-read",
            "R4: a get's local write happens in the same step as its remote read, never later",
            "/\\ TargetOK(k) /\\ ~Broken(k) /\\ FenceOK(k) /\\ ReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = @ \\cup {i}, ![k].data[i] = mem[Wr[k].src[i]]]\n"
                + "    /\\ UNCHANGED <<mem, sb, faulted>>",
            "/\\ TargetOK(k) /\\ ~Broken(k) /\\ FenceOK(k) /\\ ReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = @ \\cup {i}, ![k].data[i] = mem[Wr[k].src[i]],"
                + " ![k].lw = @ \\cup {i}]\n"
                + "    /\\ mem' = [mem EXCEPT ![Wr[k].dst[i]] = mem[Wr[k].src[i]]]\n"
                + "    /\\ UNCHANGED <<sb, faulted>>",
            killer("L02b")),
        verbs("locked-add-skips-drain",
            "R1: a locked CPU read-modify-write does not drain the store buffer",
            "CpuLockedAdd(t, l, v) ==\n    /\\ sb[t] = <<>>\n",
            "CpuLockedAdd(t, l, v) ==\n    /\\ TRUE\n",
            killer("L10b")),
        verbs("r6-dropped",
            "R6: puts on one QP land in any order, relaxed MR or not",
            "CASE Wr[j].kind = \"put\" -> RELAXED_ORDERING \\/ Placed(j)",
            "CASE Wr[j].kind = \"put\" -> TRUE",
            killer("L04")),
        verbs("r7-dropped",
            "R7: a get or atomic reads before an earlier put on the QP is placed (no read flush)",
            "CASE Wr[j].kind = \"put\" -> Placed(j)",
            "CASE Wr[j].kind = \"put\" -> TRUE",
            killer("L06")),
        verbs("rao-dropped",
            "R14: two remote atomics at one node overlap (no rao)",
            " /\\ ReadOrdered(k) /\\ NoAtomicWindowAt(Wr[k].node)",
            " /\\ ReadOrdered(k)",
            killer("L15")),
        verbs("fence-ignored",
            "R13: IBV_SEND_FENCE has no effect at all",
            "FenceOK(k) == Wr[k].fence => \\A j \\in WRs : Earlier(j, k) /\\ Wr[j].kind # \"put\" => wr[j].cpl",
            "FenceOK(k) == TRUE",
            killer("L08a")),
        verbs("get-remote-read-snapshot",
            "R18: a multi-word get reads all its remote words in one step (an untorn snapshot)",
            "/\\ TargetOK(k) /\\ ~Broken(k) /\\ FenceOK(k) /\\ ReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = @ \\cup {i}, ![k].data[i] = mem[Wr[k].src[i]]]",
            "/\\ TargetOK(k) /\\ ~Broken(k) /\\ FenceOK(k) /\\ ReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = Words(k), ![k].data = [w \\in Words(k) |-> mem[Wr[k].src[w]]]]",
            killer("L20")),
        verbs("put-source-read-snapshot",
            "R18, R3: a multi-word put reads all its source words in one step (an untorn snapshot)",
            "/\\ RequesterOK(k) /\\ FenceOK(k) /\\ PutReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = @ \\cup {i}, ![k].data[i] = mem[Wr[k].src[i]]]",
            "/\\ RequesterOK(k) /\\ FenceOK(k) /\\ PutReadOrdered(k)\n"
                + "    /\\ wr' = [wr EXCEPT ![k].rd = Words(k), ![k].data = [w \\in Words(k) |-> mem[Wr[k].src[w]]]]",
            killer("L21")),
        verbs("get-local-writes-in-address-order",
            "R18: a get's local writes always go in address order, as if DATA_IN_ORDER held",
            "/\\ RequesterOK(k) /\\ InOrder(i, wr[k].lw)",
            "/\\ RequesterOK(k) /\\ \\A h \\in 1..(i - 1) : h \\in wr[k].lw",
            killer("L22")),
        verbs("refused-request-successor-takes-effect",
            "R17: a request after a refused one on its QP still has its effect",
            "Unrefused(k) == Wr[k].fail = \"\" /\\ UnrefusedBefore(k)",
            "Unrefused(k) == Wr[k].fail = \"\"",
            killer("E03")),
        verbs("refusal-before-earlier-answers",
            "R17: a refusal overtakes the answers to the requests before it, so a later fault fails those too",
            "ELSE IF Wr[k].fail # \"\" /\\ ~Broken(k) /\\ EarlierCompleted(k) THEN Wr[k].fail",
            "ELSE IF Wr[k].fail # \"\" /\\ ~Broken(k) THEN Wr[k].fail",
            killer("E13")),
        verbs("breaks-are-clean",
            "R20: a fault leaves no request in flight, so nothing of a broken QP lands after the break",
            "THEN [wr[k] EXCEPT !.inflight = TRUE] ELSE wr[k]]",
            "THEN wr[k] ELSE wr[k]]",
            killer("E09")),
        verbs("completions-out-of-posting-order",
            "R11: a request completes before earlier requests of its QP",
            "/\\ EarlierCompleted(k)\n    /\\ \\/ Failed(k)",
            "/\\ \\/ Failed(k)",
            killer("L23")),
        verbs("acknowledged-put-lost-on-cut",
            "R11, R20: a put that completed SUCCESS is lost when its link is cut afterwards",
            "/\\ wr[k].cpl => Failed(k)",
            "/\\ TRUE",
            killer("E17")),
        verbs("doorbell-bypasses-store-buffer",
            "R2: a posted request reaches the NIC at once, ahead of the thread's buffered stores",
            "ELSE [@ EXCEPT !.st = \"db\"]]",
            "ELSE [@ EXCEPT !.st = \"nic\"]]",
            killer("L01a")),
        verbs("glob-atomic-not-fused",
            "R15: under ATOMIC_CAP = GLOB a CPU store still lands between an atomic's phases",
            "fused == ATOMIC_CAP = \"GLOB\"",
            "fused == FALSE",
            killer("L11", Knob.ATOMIC_CAP, "GLOB")),
        verbs("placement-completion-ignored",
            "R11: under PUT_COMPLETION = ON_PLACEMENT a put still completes before it is placed",
            "THEN ReadAll(k) /\\ (PUT_COMPLETION = \"ON_PLACEMENT\" => Placed(k))",
            "THEN ReadAll(k)",
            killer("L05b", Knob.PUT_COMPLETION, "ON_PLACEMENT")),
        verbs("read-passable-knob-ignored",
            "R8: under READ_PASSABLE_BY_WRITE = FALSE a put still lands before an earlier get's remote read",
            "-> READ_PASSABLE_BY_WRITE \\/ ReadAll(j)",
            "-> TRUE",
            killer("L07", Knob.READ_PASSABLE_BY_WRITE, "FALSE")),
        verbs("put-data-in-order-ignored",
            "R18: under DATA_IN_ORDER a multi-word put still lands in any order",
            "/\\ TargetOK(k) /\\ InOrder(i, wr[k].placed)",
            "/\\ TargetOK(k)",
            killer("L18", Knob.DATA_IN_ORDER, "TRUE")),
        verbs("poll-before-completion",
            "R12: poll retires the oldest request before it has completed",
            "PollEnabled(t, n) == Unretired(t, n) # {} /\\ wr[PollTarget(t, n)].cpl",
            "PollEnabled(t, n) == Unretired(t, n) # {}",
            killer("L02a")),
        verbs("lost-peer-reported-as-flush",
            "R20: a QP broken by a crash or a cut link completes WR_FLUSH_ERR instead of RETRY_EXC_ERR",
            "THEN \"RETRY_EXC_ERR\" ELSE \"WR_FLUSH_ERR\"",
            "THEN \"WR_FLUSH_ERR\" ELSE \"WR_FLUSH_ERR\"",
            killer("E08")),
        verbs("load-misses-own-store",
            "R1, R3: a CPU load (and an inline put's copy) reads memory, not the thread's buffered store",
            "IN  IF hits = {} THEN mem[l] ELSE sb[t][CHOOSE i \\in hits : \\A j \\in hits : j <= i].val",
            "IN  mem[l]",
            killer("L01d")),
        new Mutant("lost-doorbell-blocks-quiescence",
            "R20: a doorbell lost with its crashed sender leaves the request waiting for ever",
            VERBS,
            "/\\ wr[k].st = \"db\" => Down(Sender(k))",
            "/\\ wr[k].st # \"db\"",
            List.of(killer("E14")),
            // No final state is reached after such a crash, so TLC reports the stuck execution as a deadlock.
            EnumSet.of(Catch.VERDICT, Catch.DEADLOCK)),
        rdma("mfence-does-not-wait",
            "R1: mfence proceeds with stores still in the store buffer",
            "/\\ Op(t).op = \"mfence\" /\\ sb[t] = <<>>",
            "/\\ Op(t).op = \"mfence\"",
            killer("L10a")),
        rdma("flush-status-code-wrong",
            "R17: the litmus interpreter stores REM_ACCESS_ERR's code for a WR_FLUSH_ERR completion"
                + " (RDMA.tla and the Java status codes disagree)",
            "[] s = \"WR_FLUSH_ERR\"    -> 1",
            "[] s = \"WR_FLUSH_ERR\"    -> 2",
            killer("E01")));

    private static final List<Result> RESULTS = new ArrayList<>();
    private static ExecutorService executor;
    private static TlcProgress progress;

    @TestFactory
    Stream<DynamicTest> shouldCatchEveryDocumentedMutantOfTheModel() throws IOException {
        assertTrue(MUTANTS.size() >= 16, "at least 16 mutants, found " + MUTANTS.size());
        final Set<String> names = new HashSet<>();
        for (final Mutant m : MUTANTS) {
            assertTrue(names.add(m.name()), "mutant name used twice: " + m.name());
            assertFalse(m.killers().isEmpty(), m.name() + " names no killer");
            assertFalse(m.original().equals(m.replacement()), m.name() + " changes nothing");
            assertTrue(m.accepted().contains(Catch.VERDICT), m.name() + " must accept a verdict change");
        }
        final LitmusParser parser = new LitmusParser();
        final Map<String, LitmusTest> tests = new HashMap<>();
        for (final Mutant m : MUTANTS) {
            for (final Killer k : m.killers()) {
                if (!tests.containsKey(k.litmus())) {
                    tests.put(k.litmus(), parser.parse(LITMUS.resolve(k.litmus() + ".litmus")));
                }
                assertTrue(tests.get(k.litmus()).relevantSettings().contains(k.settings()), () -> m.name() + ": "
                    + k.litmus() + " under " + k.settings().label() + " is not a setting the conformance run checks");
            }
        }
        final TlcRunner runner = new TlcRunner(TlcRunner.locateTlatools(), TIMEOUT);
        executor = Executors.newFixedThreadPool(PARALLELISM);
        progress = new TlcProgress("TLA+ mutants");
        final List<Future<Result>> futures = new ArrayList<>();
        final List<DynamicTest> cases = new ArrayList<>();
        for (final Mutant m : MUTANTS) {
            progress.planned();
            final Future<Result> future = executor.submit(() -> {
                try {
                    return run(m, tests, runner);
                } finally {
                    progress.done();
                }
            });
            futures.add(future);
            cases.add(DynamicTest.dynamicTest(m.name(), () -> check(future.get())));
        }
        executor.shutdown();
        cases.add(DynamicTest.dynamicTest("score", () -> score(futures)));
        return cases.stream();
    }

    private static Result run(final Mutant m, final Map<String, LitmusTest> tests, final TlcRunner runner)
        throws IOException, InterruptedException {
        final Path dir = OUT.resolve(m.name());
        TlcRunner.deleteTree(dir);
        final TlaGenerator generator = new TlaGenerator();
        final List<String> modules = new ArrayList<>();
        // Generate first: TlaGenerator.write refreshes the copied model modules.
        for (final Killer k : m.killers()) {
            modules.add(generator.write(tests.get(k.litmus()), k.settings(), dir));
        }
        final Path target = dir.resolve(m.module());
        final String text = Files.readString(target, StandardCharsets.UTF_8);
        final int occurrences = occurrences(text, m.original());
        if (occurrences != 1) {
            return new Result(m, false, List.of(), "its original text occurs " + occurrences + " times in "
                + m.module() + " (expected once): the model changed, update the mutant");
        }
        Files.writeString(target, text.replace(m.original(), m.replacement()), StandardCharsets.UTF_8);
        final List<String> details = new ArrayList<>();
        boolean killed = false;
        for (int i = 0; i < m.killers().size(); i++) {
            final Killer k = m.killers().get(i);
            final LitmusTest test = tests.get(k.litmus());
            final TlcRunner.Result r = runner.check(dir, modules.get(i));
            final Verdict expected = test.expected(k.settings());
            final String where = k.litmus() + " [" + k.settings().label() + "]";
            switch (r.outcome()) {
                case VIOLATED, HOLDS -> {
                    final Verdict got = r.outcome() == TlcRunner.Outcome.VIOLATED ? Verdict.ALLOWED : Verdict.FORBIDDEN;
                    final boolean differs = got != expected;
                    killed |= differs;
                    details.add(where + ": expects " + expected + ", mutant gives " + got
                        + (differs ? " (killed)" : " (survives)"));
                }
                case ERROR -> {
                    final String out = Files.readString(r.output(), StandardCharsets.UTF_8);
                    final Catch c = out.contains("Error: Deadlock reached") ? Catch.DEADLOCK
                        : out.contains("Error: Invariant TypeOK is violated") ? Catch.TYPE_OK : null;
                    if (c == null) {
                        return new Result(m, false, details, where + ": TLC error that no mutant may cause: "
                            + r.summary() + " (see " + r.output() + ")");
                    }
                    final boolean ok = m.accepted().contains(c);
                    killed |= ok;
                    details.add(where + ": TLC reports " + c + (ok ? " (killed)" : " (not accepted for this mutant)"));
                }
                case TIMEOUT -> {
                    return new Result(m, false, details, where + ": TLC timed out after " + TIMEOUT);
                }
                default -> throw new IllegalStateException(r.outcome().toString());
            }
            TlcRunner.deleteTree(dir.resolve("states").resolve(modules.get(i)));
            TlcRunner.deleteTree(dir.resolve("tmp").resolve(modules.get(i)));
        }
        return new Result(m, killed, details, null);
    }

    private static void check(final Result r) {
        synchronized (RESULTS) {
            RESULTS.add(r);
        }
        final Mutant m = r.mutant();
        if (r.problem() != null) {
            fail(m.name() + " (" + m.rule() + "): " + r.problem());
        }
        assertTrue(r.killed(), () -> m.name() + " (" + m.rule() + ") survives: " + String.join("; ", r.details()));
    }

    private static void score(final List<Future<Result>> futures) throws InterruptedException, ExecutionException {
        int killed = 0;
        final List<String> rows = new ArrayList<>();
        rows.add("| mutant | rule | killer | result |");
        rows.add("|---|---|---|---|");
        for (final Future<Result> f : futures) {
            final Result r = f.get();
            if (r.killed() && r.problem() == null) {
                killed++;
            }
            rows.add("| " + r.mutant().name() + " | " + r.mutant().rule() + " | "
                + String.join("<br>", r.details()) + " | "
                + (r.problem() != null ? "PROBLEM: " + r.problem() : r.killed() ? "killed" : "SURVIVES") + " |");
        }
        final String score = "TLA+ mutants killed: " + killed + "/" + futures.size();
        rows.add("");
        rows.add(score);
        try {
            Files.createDirectories(OUT);
            Files.write(OUT.resolve("results.md"), rows, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        System.out.println(score);
        assertEquals(futures.size(), killed, score + " (see " + OUT.resolve("results.md") + ")");
    }

    @AfterAll
    static void stopExecutor() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            executor.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        }
        if (progress != null) {
            progress.close();
        }
    }

    private static int occurrences(final String text, final String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

}
