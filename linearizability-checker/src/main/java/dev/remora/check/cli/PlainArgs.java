package dev.remora.check.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The options of {@code check} read by hand when they are plain, so that the common command line
 * does not pay for picocli's start-up (about 170 classes loaded and its annotations read
 * reflectively, some 100 ms of a short run). "Plain" is kept narrow on purpose: every known option
 * at most once, as {@code --name VALUE} or {@code --name=VALUE}, numbers in plain decimal, values
 * and files not starting with {@code -} (except the file {@code -}) or {@code @}, {@code --model}
 * and at least one file given. Anything else (help, version, an unknown or repeated option, a
 * missing value, {@code --}, an argument file) returns {@code null}, and picocli parses the
 * arguments as before, with its own messages and exit codes; for plain arguments both give the
 * same fields, which {@code PlainArgsTest} compares.
 */
final class PlainArgs {
    String model;
    String init;
    String format;
    double timeLimitSeconds = 600; // the defaultValue of each option in CheckCommand
    long memoryLimitMib;
    int threads;
    Path html;
    boolean json;
    double progressSeconds = 5;
    final List<Path> files = new ArrayList<>();

    private PlainArgs() {
    }

    /**
     * @param args the arguments of {@code check}
     * @return the options, or {@code null} when picocli must parse the arguments
     */
    static PlainArgs parse(String[] args) {
        PlainArgs a = new PlainArgs();
        Set<String> seen = new HashSet<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String s = args[i];
                if (s.isEmpty() || s.charAt(0) == '@') {
                    return null;
                }
                if (s.equals("-") || s.charAt(0) != '-') {
                    a.files.add(Path.of(s));
                    continue;
                }
                String name = s;
                String value = null;
                int eq = s.indexOf('=');
                if (eq > 0) {
                    name = s.substring(0, eq);
                    value = s.substring(eq + 1);
                }
                if (!seen.add(name)) {
                    return null;
                }
                if (name.equals("--json")) {
                    if (value != null) {
                        return null;
                    }
                    a.json = true;
                    continue;
                }
                if (value == null) {
                    if (i + 1 == args.length) {
                        return null;
                    }
                    value = args[++i];
                }
                if (value.isEmpty() || value.charAt(0) == '-' || value.charAt(0) == '@') {
                    return null;
                }
                switch (name) {
                    case "--model": a.model = value; break;
                    case "--init": a.init = value; break;
                    case "--format": a.format = value; break;
                    case "--html": a.html = Path.of(value); break;
                    case "--time-limit": a.timeLimitSeconds = decimal(value); break;
                    case "--progress": a.progressSeconds = decimal(value); break;
                    case "--memory-limit": a.memoryLimitMib = whole(value, 18); break;
                    case "--threads": a.threads = (int) whole(value, 9); break;
                    default: return null;
                }
            }
        } catch (NumberFormatException | InvalidPathException e) {
            return null;
        }
        return a.model == null || a.files.isEmpty() ? null : a;
    }

    /** A non-negative decimal without sign, exponent or leading zeros, which any number parser reads the same. */
    private static double decimal(String v) {
        if (!v.matches("(0|[1-9][0-9]{0,8})(\\.[0-9]{1,9})?")) {
            throw new NumberFormatException(v);
        }
        return Double.parseDouble(v);
    }

    /** Digits only, no leading zero (picocli reads {@code 010} as octal), at most {@code digits} of them. */
    private static long whole(String v, int digits) {
        if (v.length() > digits || !v.matches("0|[1-9][0-9]*")) {
            throw new NumberFormatException(v);
        }
        return Long.parseLong(v);
    }
}
