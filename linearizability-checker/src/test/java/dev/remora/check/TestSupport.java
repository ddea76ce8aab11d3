package dev.remora.check;

import dev.remora.check.cli.CheckCommand;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/** Helpers shared by the tests. */
final class TestSupport {
    private TestSupport() {
    }

    /**
     * Finds {@code shared/histories}: from the system property {@code remora.shared.dir} (set by
     * the build to {@code ../shared} of the repository), else by walking up from the working
     * directory looking for a sibling {@code shared/histories}.
     */
    static Optional<Path> sharedHistories() {
        String prop = System.getProperty("remora.shared.dir");
        if (prop != null) {
            Path p = Paths.get(prop, "histories");
            if (Files.isRegularFile(p.resolve("expected.tsv"))) {
                return Optional.of(p.toAbsolutePath().normalize());
            }
        }
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (; dir != null; dir = dir.getParent()) {
            Path p = dir.resolve("shared").resolve("histories");
            if (Files.isRegularFile(p.resolve("expected.tsv"))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** The result of running the CLI in process. */
    record Run(int exitCode, String out, String err) {
    }

    static Run cli(String... args) {
        return cliWithInput(new byte[0], args);
    }

    static Run cliWithInput(byte[] stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = CheckCommand.newCommandLine(new java.io.ByteArrayInputStream(stdin));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
