package dev.remora.spec.tla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.spec.litmus.Knob;
import dev.remora.spec.litmus.KnobSettings;
import dev.remora.spec.litmus.LitmusParser;
import dev.remora.spec.litmus.LitmusTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlaGeneratorTest {

    private static final String L04 = String.join("\n",
        "test L04", "init d@N2=0, f@N2=0, one@N1=1",
        "T1@N1: put(N2,d,one); put(N2,f,one)", "T2@N2: a := f; b := d",
        "final a = 1 /\\ b = 0", "expect forbidden", "when RELAXED_ORDERING=TRUE expect allowed");

    private final LitmusTest l04 = new LitmusParser().parse("L04.litmus", L04);
    private final TlaGenerator generator = new TlaGenerator();

    @Test
    void shouldNameModulesAfterTestAndSetting() {
        assertEquals("MC_L04_default", TlaGenerator.moduleName(l04, KnobSettings.defaults()));
        assertEquals("MC_L04_RELAXED_ORDERING_TRUE_SC_MODE_TRUE", TlaGenerator.moduleName(l04,
            KnobSettings.defaults().with(Knob.RELAXED_ORDERING, "TRUE").with(Knob.SC_MODE, "TRUE")));
    }

    @Test
    void shouldRenderFinalPredicateOverMemoryAndRegisters() {
        assertEquals("((reg[\"a\"] = 1) /\\ (reg[\"b\"] = 0))",
            TlaGenerator.render(l04.finalPredicate(), Set.of("d", "f", "one")));
        final String module = generator.module(l04, "MC_L04_default");
        assertTrue(module.contains("MC_WR == 2"), module);
        assertTrue(module.contains("FinalNeverReached == Quiescent => ~Final"), module);
        assertTrue(module.contains("[op |-> \"verb\", loc |-> \"\", val |-> 0, reg |-> \"\", wr |-> 2"), module);
    }

    @Test
    void shouldBindEveryKnobInTheConfig() {
        final String cfg = generator.config(KnobSettings.defaults().with(Knob.ATOMIC_CAP, "GLOB"));
        assertTrue(cfg.contains("ATOMIC_CAP = \"GLOB\""), cfg);
        assertTrue(cfg.contains("READ_PASSABLE_BY_WRITE = TRUE"), cfg);
        assertTrue(cfg.contains("INVARIANT FinalNeverReached"), cfg);
        for (final Knob knob : Knob.values()) {
            assertTrue(cfg.contains(knob.name() + " = "), knob.name());
        }
    }

    @Test
    void shouldRefreshACopiedModelModuleThatDiffersFromTheBundledOne(@TempDir final Path dir) throws IOException {
        TlaGenerator.copyModelModules(dir);
        final Path verbs = dir.resolve("Verbs.tla");
        final String bundled = Files.readString(verbs, StandardCharsets.UTF_8);
        Files.writeString(verbs, "---- MODULE Verbs ----\n====\n", StandardCharsets.UTF_8);
        generator.write(l04, KnobSettings.defaults(), dir);
        assertEquals(bundled, Files.readString(verbs, StandardCharsets.UTF_8), "a stale Verbs.tla was kept");
    }

    @Test
    void shouldParseModelModulesWithSany(@TempDir final Path dir) throws IOException, InterruptedException {
        TlaGenerator.copyModelModules(dir);
        for (final String module : TlaGenerator.MODEL_MODULES) {
            final List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + dir.toAbsolutePath(), "-cp", TlcRunner.locateTlatools().toString(),
                "tla2sany.SANY", module));
            final Path out = dir.resolve(module + ".sany");
            final Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "SANY timed out");
            final String text = Files.readString(out, StandardCharsets.UTF_8);
            assertTrue(text.contains("Semantic processing of module " + module.replace(".tla", "")), text);
            assertFalse(text.contains("*** Errors") || text.contains("Fatal errors") || text.contains("*** Abort")
                || text.contains("Semantic errors"), text);
        }
    }

    /**
     * A deliberately unsafe model: R6 (same-QP writes land in order) removed. Message passing on
     * one QP must then fail, which shows the conformance run would catch the broken rule.
     */
    @Test
    void shouldCatchAModelThatBreaksWriteWriteOrder(@TempDir final Path dir) throws IOException,
        InterruptedException {
        final String module = generator.write(l04, KnobSettings.defaults(), dir);
        final Path verbs = dir.resolve("Verbs.tla");
        final String text = Files.readString(verbs, StandardCharsets.UTF_8);
        final String rule = "-> RELAXED_ORDERING \\/ Placed(j)";
        assertTrue(text.contains(rule), "Verbs.tla no longer states R6 as expected");
        Files.writeString(verbs, text.replace(rule, "-> TRUE"), StandardCharsets.UTF_8);
        final TlcRunner.Result broken = new TlcRunner(TlcRunner.locateTlatools(), Duration.ofSeconds(120))
            .check(dir, module);
        assertEquals(TlcRunner.Outcome.VIOLATED, broken.outcome(), broken.summary());
    }
}
