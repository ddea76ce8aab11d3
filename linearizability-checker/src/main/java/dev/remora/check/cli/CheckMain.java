package dev.remora.check.cli;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;

/** Runs {@link CheckCommand} as a stand-alone program and exits with its code. */
public final class CheckMain {
    private CheckMain() {
    }

    /**
     * Entry point.
     *
     * @param args the command-line arguments of {@code check}
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs {@code check} on {@code System.in}, {@code System.out} and {@code System.err}: plain
     * arguments without picocli, the rest through it.
     *
     * @param args the command-line arguments of {@code check}
     * @return the exit code
     */
    public static int run(String[] args) {
        Integer code = runPlain(args);
        return code != null ? code : CheckCommand.newCommandLine().execute(args);
    }

    /**
     * Runs {@code check} without picocli when its arguments are plain (every option known, given
     * once, with a plain value; see {@code PlainArgs}), on {@code System.in}, {@code System.out} and
     * {@code System.err}.
     *
     * @param args the command-line arguments of {@code check}
     * @return the exit code, or {@code null} when picocli must parse the arguments (nothing was run)
     */
    public static Integer runPlain(String[] args) {
        return CheckCommand.runPlain(args, System.in, writer(System.out, "sun.stdout.encoding"),
                writer(System.err, "sun.stderr.encoding"));
    }

    /** A standard stream as picocli writes it: in the encoding named by {@code property} when that is set. */
    private static PrintWriter writer(OutputStream s, String property) {
        String enc = System.getProperty(property);
        return enc == null ? new PrintWriter(s, true)
                : new PrintWriter(new BufferedWriter(new OutputStreamWriter(s, Charset.forName(enc))), true);
    }
}
