package dev.remora.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/**
 * One in-process run of the {@code remora} command line ({@link RemoraMain#commandLine()}): its exit code and what it
 * printed on its out and err writers.
 *
 * @param code the exit code
 * @param out what it printed on out
 * @param err what it printed on err
 */
record CliRun(int code, String out, String err) {

    /**
     * @param args the command line's arguments
     * @return how it ended
     */
    static CliRun run(String... args) {
        CommandLine cl = RemoraMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** @return the exit code and both outputs, for a failure message */
    String all() {
        return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
    }

    /** @return the last line printed on out, or "" */
    String lastLine() {
        List<String> lines = out.lines().toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    /** @return the lines printed on err */
    List<String> errLines() {
        return err.lines().toList();
    }
}
