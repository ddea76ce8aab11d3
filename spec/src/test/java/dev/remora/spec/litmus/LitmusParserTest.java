package dev.remora.spec.litmus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class LitmusParserTest {

    private static final Path LITMUS = Path.of("litmus");
    private final LitmusParser parser = new LitmusParser();

    static List<Path> catalogue() throws IOException {
        try (Stream<Path> files = Files.list(LITMUS)) {
            return files.filter(p -> p.toString().endsWith(".litmus")).sorted().toList();
        }
    }

    @Test
    void shouldParseEveryCatalogueFile() throws IOException {
        final List<Path> files = catalogue();
        assertTrue(files.size() >= 30, "expected at least 30 litmus files, found " + files.size());
        for (final Path file : files) {
            final LitmusTest test = parser.parse(file);
            assertEquals(file.getFileName().toString().replace(".litmus", ""), test.id(), "id matches file name");
        }
    }

    @Test
    void shouldBuildTheAstOfL05b() {
        final LitmusTest t = parser.parse("L05b", String.join("\n",
            "test L05b",
            "init d@N2=0, f@N3=0, one@N1=1, r@N3=0",
            "T1@N1: put(N2,d,one); poll(N2); put!F(N3,f,one)@A; wait(A)",
            "T3@N3: a := f; get(N2,r,d); poll(N2); b := r",
            "final a = 1 /\\ b = 0",
            "expect allowed",
            "when PUT_COMPLETION=ON_PLACEMENT expect forbidden"));
        assertEquals(4, t.locations().size());
        assertEquals("N3", t.location("f").node());
        assertEquals(List.of(
            new Op.Put("N2", List.of("d"), List.of("one"), false, false, Optional.empty(), Optional.empty()),
            new Op.Poll("N2", Optional.empty()),
            new Op.Put("N3", List.of("f"), List.of("one"), true, false, Optional.empty(), Optional.of("A")),
            new Op.Wait("A")), t.threads().get(0).ops());
        assertEquals(new Op.CpuRead("a", "f"), t.threads().get(1).ops().get(0));
        assertEquals(List.of("a", "b"), t.registers());
        assertEquals(Verdict.ALLOWED, t.expected(KnobSettings.defaults()));
        assertEquals(Verdict.FORBIDDEN,
            t.expected(KnobSettings.defaults().with(Knob.PUT_COMPLETION, "ON_PLACEMENT")));
        assertEquals(Verdict.FORBIDDEN, t.expected(KnobSettings.defaults().with(Knob.SC_MODE, "TRUE")));
        assertEquals(List.of("default", "PUT_COMPLETION-ON_PLACEMENT", "SC_MODE-TRUE"),
            t.relevantSettings().stream().map(KnobSettings::label).toList());
    }

    @Test
    void shouldExpandWordRanges() {
        final LitmusTest t = parser.parse("L18", String.join("\n",
            "test L18", "init b[0..1]@N2=0, s[0..1]@N1=1",
            "T1@N1: put(N2,b[0..1],s[0..1])", "T2@N2: a := b[1]", "final a = 1", "expect allowed"));
        assertEquals(List.of("b[0]", "b[1]", "s[0]", "s[1]"),
            t.locations().stream().map(Location::name).toList());
        assertEquals(List.of("b[0]", "b[1]"), ((Op.Put) t.threads().get(0).ops().get(0)).dst());
    }

    @Test
    void shouldEvaluateFinalPredicates() {
        final LitmusTest t = parser.parse("p", String.join("\n",
            "test P", "init x@N2=0, r1@N1=0, r3@N3=0",
            "T1@N1: faa(N2,x,1,r1)", "T3@N3: faa(N2,x,1,r3)",
            "final x = 1 \\/ r1 = r3 /\\ ~(x != 2)", "expect forbidden"));
        final Map<String, Long> outcome = new HashMap<>(t.initialOutcome());
        outcome.put("x", 2L);
        outcome.put("r1", 0L);
        outcome.put("r3", 1L);
        assertFalse(t.outcomeMatches(outcome));
        outcome.put("r3", 0L);
        assertTrue(t.outcomeMatches(outcome));
        outcome.put("x", 1L);
        assertTrue(t.outcomeMatches(outcome));
        assertThrows(IllegalArgumentException.class, () -> t.finalPredicate().holds(Map.of("r1", 1L)));
    }

    @Test
    void shouldLetSettingsOverrideInFileOrderButKeepScForbidden() {
        final LitmusTest t = parser.parse("o", String.join("\n",
            "test O", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final x = 0",
            "expect forbidden",
            "when RELAXED_ORDERING=TRUE expect allowed",
            "when RELAXED_ORDERING=TRUE, ATOMIC_CAP=GLOB expect forbidden"));
        final KnobSettings relaxed = KnobSettings.defaults().with(Knob.RELAXED_ORDERING, "TRUE");
        assertEquals(Verdict.ALLOWED, t.expected(relaxed));
        assertEquals(Verdict.FORBIDDEN, t.expected(relaxed.with(Knob.ATOMIC_CAP, "GLOB")));
        assertEquals(Verdict.FORBIDDEN, t.expected(relaxed.with(Knob.SC_MODE, "TRUE")));
        assertEquals(33, KnobSettings.all().size());
    }

    private LitmusSyntaxException reject(final String... lines) {
        return assertThrows(LitmusSyntaxException.class, () -> parser.parse("bad.litmus", String.join("\n", lines)));
    }

    @Test
    void shouldRejectMalformedFilesWithFileLineAndExpectation() {
        LitmusSyntaxException e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x one)",
            "final x = 1", "expect allowed");
        assertEquals(3, e.line());
        assertTrue(e.getMessage().startsWith("bad.litmus:3: expected ','"), e.getMessage());

        e = reject("init x@N1=0");
        assertTrue(e.getMessage().contains("bad.litmus:1: expected 'test <ID>'"), e.getMessage());

        e = reject("test X", "init x@N2=0", "T1@N1: x := 1", "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected the stored location 'x' local to N1"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one); poll(N2); poll(N2)",
            "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected an outstanding work request to N2"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final y = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":4: expected a declared location or a register"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final x = 1",
            "expect maybe");
        assertTrue(e.getMessage().contains(":5: expected 'allowed' or 'forbidden'"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final x = 1",
            "expect allowed", "when ATOMIC_CAP=NONE expect forbidden");
        assertTrue(e.getMessage().contains(":6: expected a value of ATOMIC_CAP"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: get!I(N2,one,x)", "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected !I only on put"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final x = ", "expect allowed");
        assertTrue(e.getMessage().contains(":4: expected a register, location or integer"), e.getMessage());

        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put(N2,x,one)", "final x = 1");
        assertTrue(e.getMessage().contains("expected an 'expect allowed' or 'expect forbidden' line"), e.getMessage());
    }

    @Test
    void shouldParseStoresToIndexedWords() {
        final LitmusTest t = parser.parse("L21", String.join("\n",
            "test L21", "init s[0..1]@N1=1, b[0..1]@N2=0",
            "T1@N1: put(N2,b[0..1],s[0..1]); s[0] := 2; s[1] := 2", "final b[0] = 1 /\\ b[1] = 2",
            "expect allowed"));
        assertEquals(List.of(new Op.CpuWrite("s[0]", 2), new Op.CpuWrite("s[1]", 2)),
            t.threads().get(0).ops().subList(1, 3));
        LitmusSyntaxException e = reject("test X", "init b[0..1]@N1=0", "T1@N1: b[0] := b[1]", "final b[0] = 1",
            "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected a value to store in 'b[0]'"), e.getMessage());
        e = reject("test X", "init b[0..1]@N2=0", "T1@N1: b[0] := 1", "final b[0] = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected the stored location 'b[0]' local to N1"), e.getMessage());
    }

    @Test
    void shouldParseRefusalsStatusPollsAndFaults() {
        final LitmusTest t = parser.parse("E", String.join("\n",
            "test E", "init x@N2=0, y@N2=0, one@N1=1, res@N1=0",
            "fault crash(N2)", "fault cut(N1,N2)", "fault qperror(T1,N2)",
            "T1@N1: put!K(N2,x,one); cas!A(N2,y,0,1,res); get!L(N2,one,x); s1 := poll(N2); poll(N2); s3 := poll(N2)",
            "final s1 = REM_ACCESS_ERR /\\ s3 != SUCCESS /\\ y = 0", "expect forbidden"));
        final List<Op> ops = t.threads().get(0).ops();
        assertEquals(java.util.Optional.of(Status.REM_ACCESS_ERR), ((Op.Verb) ops.get(0)).refusal());
        assertEquals(java.util.Optional.of(Status.REM_INV_REQ_ERR), ((Op.Verb) ops.get(1)).refusal());
        assertEquals(java.util.Optional.of(Status.LOC_PROT_ERR), ((Op.Verb) ops.get(2)).refusal());
        assertEquals(new Op.Poll("N2", java.util.Optional.of("s1")), ops.get(3));
        assertEquals(new Op.Poll("N2", java.util.Optional.empty()), ops.get(4));
        assertEquals(List.of("s1", "s3"), t.registers());
        assertEquals(List.of(new Fault(Fault.Kind.CRASH, "N2", ""), new Fault(Fault.Kind.CUT, "N1", "N2"),
            new Fault(Fault.Kind.QPERROR, "T1", "N2")), t.faults());
        final Map<String, Long> outcome = new HashMap<>(t.initialOutcome());
        outcome.put("s1", (long) Status.REM_ACCESS_ERR.code());
        outcome.put("s3", (long) Status.WR_FLUSH_ERR.code());
        assertTrue(t.outcomeMatches(outcome));
        outcome.put("s3", (long) Status.SUCCESS.code());
        assertFalse(t.outcomeMatches(outcome));
    }

    @Test
    void shouldRejectMisplacedRefusalsAndBadFaults() {
        LitmusSyntaxException e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put!A(N2,x,one)",
            "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected !A (misaligned atomic) only on cas or faa"), e.getMessage());
        e = reject("test X", "init x@N2=0, one@N1=1", "T1@N1: put!K!L(N2,x,one)", "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected at most one of !K, !A, !L"), e.getMessage());
        e = reject("test X", "init x@N2=0, one@N1=1", "fault reboot(N2)", "T1@N1: put(N2,x,one)", "final x = 1",
            "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected a fault crash(N), cut(N1,N2) or qperror(T,N)"),
            e.getMessage());
        e = reject("test X", "init x@N2=0, one@N1=1", "fault cut(N2,N2)", "T1@N1: put(N2,x,one)", "final x = 1",
            "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected a link between two different nodes"), e.getMessage());
        e = reject("test X", "init x@N2=0, one@N1=1", "fault qperror(T1,N3)", "T1@N1: put(N2,x,one)",
            "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":3: expected qperror(T1,N3) to name a queue pair the test uses"),
            e.getMessage());
        e = reject("test X", "init x@N2=0, one@N1=1", "fault crash(N2)", "fault crash(N2)", "T1@N1: put(N2,x,one)",
            "final x = 1", "expect allowed");
        assertTrue(e.getMessage().contains(":4: expected each fault once"), e.getMessage());
    }
}
