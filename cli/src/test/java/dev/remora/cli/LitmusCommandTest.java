package dev.remora.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.remora.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LitmusCommandTest {

    /** Two settings (default, SC), 51 and 5 states, both forbidden. */
    private static final String L15 = catalogue("L15");
    /** Three settings, all agree. */
    private static final String L04 = catalogue("L04");
    /** Allowed by default with a witness within the first 10 states, 26 states in all. */
    private static final String L01 = catalogue("L01");

    /** What the tests say every knob and its values are. */
    private static final String KNOWN_KNOBS = "known knobs: ATOMIC_CAP (HCA|GLOB), PUT_COMPLETION "
        + "(ON_ACK|ON_PLACEMENT), READ_PASSABLE_BY_WRITE (TRUE|FALSE), RELAXED_ORDERING (FALSE|TRUE), "
        + "DATA_IN_ORDER (FALSE|TRUE), SC_MODE (FALSE|TRUE)";

    @TempDir
    Path dir;


    private static String catalogue(String id) {
        return Path.of("..", "spec", "litmus", id + ".litmus").toString();
    }


    /** A well-formed test whose default verdict is wrong (the SC setting agrees); 3 states. */
    private String wrongVerdict() throws IOException {
        Path f = dir.resolve("W.litmus");
        Files.writeString(f, "test W\ninit x@N1=0\nT1@N1: x := 1\nfinal x = 0\nexpect allowed\n");
        return f.toString();
    }

    private String malformed() throws IOException {
        Path f = dir.resolve("bad.litmus");
        Files.writeString(f, "test X\ninit x@N1=0\nT1@N1: x := \nfinal x = 1\nexpect allowed\n");
        return f.toString();
    }

    @Test
    void shouldReportADirectoryInOneLineAndStillRunTheOtherFiles() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        CliRun r = run("litmus", sub.toString(), L15);
        assertEquals(65, r.code(), r.all());
        assertEquals(List.of(sub + ": is a directory, not a litmus file"), r.errLines(), r.all());
        assertTrue(r.out().contains("L15 [default]") && r.out().contains("L15 [SC_MODE-TRUE]"), r.all());
        assertEquals("agree: 1 file, 2 settings; 1 file not run", r.lastLine(), r.all());
    }

    @Test
    void shouldReportBinaryFilesInOneLineEachAndStillRunTheOtherFiles() throws IOException {
        Path nul = dir.resolve("nul.litmus");
        Files.write(nul, "test X\u0000\ninit x@N1=0\n".getBytes(StandardCharsets.UTF_8));
        Path latin1 = dir.resolve("latin1.litmus");
        Files.write(latin1, new byte[] {'t', 'e', 's', 't', ' ', 'X', '\n', '#', ' ', (byte) 0xE9, '\n'});
        CliRun r = run("litmus", nul.toString(), L15, latin1.toString());
        assertEquals(65, r.code(), r.all());
        assertEquals(List.of(nul + ": not a text file", latin1 + ": not a text file"), r.errLines(), r.all());
        assertTrue(r.out().contains("L15 [default]"), r.all());
        assertEquals("agree: 1 file, 2 settings; 2 files not run", r.lastLine(), r.all());
    }

    @Test
    void shouldReportAMalformedFileWithItsLineAndStillRunTheOtherFiles() throws IOException {
        String bad = malformed();
        CliRun r = run("litmus", bad, L15);
        assertEquals(65, r.code(), r.all());
        assertEquals(1, r.errLines().size(), r.all());
        assertTrue(r.err().startsWith(bad + ":3: expected "), r.all());
        assertTrue(r.out().contains("L15 [default]") && r.out().contains("fabric: forbidden (51 states)"), r.all());
        assertEquals("agree: 1 file, 2 settings; 1 file not run", r.lastLine(), r.all());
        r = run("litmus", bad);
        assertEquals(65, r.code(), r.all());
        assertEquals(1, r.errLines().size(), r.all());
        assertEquals("nothing run; 1 file not run\n", r.out(), r.all());
    }

    @Test
    void shouldLetAMalformedFileTakePrecedenceOverADisagreement() throws IOException {
        String bad = malformed();
        CliRun r = run("litmus", bad, wrongVerdict());
        assertEquals(65, r.code(), r.all());
        assertTrue(r.err().startsWith(bad + ":3: expected "), r.all());
        assertTrue(r.out().contains("<- DISAGREE"), r.all());
        assertEquals("DISAGREE: 1 of 2 settings (W [default]); 1 file not run", r.lastLine(), r.all());
    }

    @Test
    void shouldReportEveryMissingFileAsAUsageErrorAndRunNothing() throws IOException {
        String gone = dir.resolve("gone.litmus").toString();
        String lost = dir.resolve("lost.litmus").toString();
        CliRun r = run("litmus", gone, L15, lost, malformed());
        assertEquals(64, r.code(), r.all());
        assertEquals(List.of(gone + ": no such file", lost + ": no such file"), r.errLines(), r.all());
        assertEquals("", r.out(), r.all());
    }

    @Test
    void shouldListTheKnownKnobsForAnUnknownKnob() {
        CliRun r = run("litmus", "--knob", "NOPE=1", L15);
        assertEquals(64, r.code(), r.all());
        assertEquals(List.of("bad --knob 'NOPE=1': no knob NOPE; " + KNOWN_KNOBS), r.errLines(), r.all());
        assertEquals("", r.out(), r.all());
    }

    @Test
    void shouldListTheKnownKnobsForABadValueOrAMissingValue() {
        CliRun r = run("litmus", "--knob", "ATOMIC_CAP=NOPE", L15);
        assertEquals(64, r.code(), r.all());
        assertEquals(List.of("bad --knob 'ATOMIC_CAP=NOPE': ATOMIC_CAP takes HCA|GLOB, not NOPE; " + KNOWN_KNOBS),
            r.errLines(), r.all());
        assertEquals("", r.out(), r.all());
        r = run("litmus", "--knob", "ATOMIC_CAP", L15);
        assertEquals(64, r.code(), r.all());
        assertEquals(List.of("bad --knob 'ATOMIC_CAP': expected NAME=VALUE; " + KNOWN_KNOBS), r.errLines(),
            r.all());
        assertEquals("", r.out(), r.all());
    }

    @Test
    void shouldSayWhenTheSearchStoppedAtMaxStatesAndExitUnknown() {
        CliRun r = run("litmus", "--max-states", "10", L15);
        assertEquals(2, r.code(), r.all());
        assertTrue(r.out().contains("\n  fabric: search stopped at 10 states (--max-states); verdict unknown\n"),
            r.all());
        assertTrue(r.out().contains("\n  fabric: forbidden (5 states)\n"), r.all());
        assertFalse(r.out().contains("DISAGREE"), r.all());
        assertEquals("UNKNOWN: 1 of 2 settings undecided (L15 [default]): search stopped at --max-states; "
            + "1 agrees", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldTakeAWitnessFoundBeforeMaxStatesAsAllowed() {
        CliRun r = run("litmus", "--max-states", "10", L01);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("\n  fabric: allowed (witness found; search stopped at 10 states, "
            + "--max-states)\n"), r.all());
        assertFalse(r.out().contains("DISAGREE"), r.all());
        assertEquals("agree: 1 file, 2 settings", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldExitOneWhenADisagreementMeetsAnUnknown() throws IOException {
        CliRun r = run("litmus", "--max-states", "10", wrongVerdict(), L15);
        assertEquals(1, r.code(), r.all());
        assertTrue(r.out().contains("verdict unknown"), r.all());
        assertEquals("DISAGREE: 1 of 4 settings (W [default]); 1 undecided (L15 [default]): search stopped at "
            + "--max-states", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldEndWithWhatAgreed() {
        CliRun r = run("litmus", L04, L15);
        assertEquals(0, r.code(), r.all());
        assertEquals("agree: 2 files, 5 settings", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldEndWithTheDisagreeingSettings() throws IOException {
        CliRun r = run("litmus", L15, wrongVerdict());
        assertEquals(1, r.code(), r.all());
        assertTrue(r.out().contains("  fabric: forbidden (3 states)   <- DISAGREE"), r.all());
        assertEquals("DISAGREE: 1 of 4 settings (W [default])", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
    }

    @Test
    void shouldSayFabricAndTlcAgreeWithTlc() throws IOException {
        java.util.Set<Path> before = tlcWorkDirs();
        CliRun r = run("litmus", "--tlc", L15);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("  fabric: forbidden (51 states)   tlc: forbidden (51 states)"), r.all());
        assertEquals("agree: fabric and TLC, 1 file, 2 settings", r.lastLine(), r.all());
        assertEquals("", r.err(), r.all());
        java.util.Set<Path> left = tlcWorkDirs();
        left.removeAll(before);
        assertTrue(left.isEmpty(), "an agreeing --tlc run left its work directory: " + left);
    }

    private static java.util.Set<Path> tlcWorkDirs() throws IOException {
        try (java.util.stream.Stream<Path> list = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.filter(p -> p.getFileName().toString().startsWith("remora-litmus-tlc"))
                .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
        }
    }

    @Test
    void shouldListEveryExitCodeInTheHelp() {
        CliRun r = run("litmus", "--help");
        assertEquals(0, r.code(), r.all());
        String help = r.out().replaceAll("\\s+", " ");
        assertTrue(help.contains("the last line says agree, DISAGREE or UNKNOWN, and for which settings"), r.all());
        assertTrue(help.contains("the other files still run; a missing file is a usage error and nothing runs"),
            r.all());
        assertTrue(help.contains(" 0 every setting agrees"), r.all());
        assertTrue(help.contains(" 1 a forbidden outcome was observed or a verdict disagrees"), r.all());
        assertTrue(help.contains(" 2 some verdict unknown (search stopped at --max-states), none disagrees"),
            r.all());
        assertTrue(help.contains(" 64 usage error (bad option or --knob, missing file); nothing is run"), r.all());
        assertTrue(help.contains(" 65 some file malformed, a directory or not text; the other files still run"),
            r.all());
        assertEquals("", r.err(), r.all());
    }
}
