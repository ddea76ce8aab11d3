package dev.remora.spec.tla;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import tlc2.TLC;
import tlc2.TLCGlobals;
import util.SimpleFilenameToStream;
import util.ToolIO;
import util.UniqueString;

/**
 * A long-lived JVM that runs TLC on one small model after another, for {@link TlcWorkerPool}: most of a litmus
 * model's TLC run in a fresh JVM is start-up (the JVM, TLC's classes, the JIT warming up on the parser), so a warm
 * JVM checks one in a fraction of the CPU time.
 *
 * <p>Protocol, one line per request on standard input: {@code RUN <tab> model directory <tab> module <tab>
 * metadir}; the worker runs TLC with {@link TlcRunner}'s options on {@code <dir>/<module>.tla} and
 * {@code <dir>/<module>.cfg}, writes TLC's whole output to {@code <dir>/<module>.out} (as a run in its own JVM does)
 * and answers {@code DONE <tab> exit code} on standard output. End of input ends the worker.
 *
 * <p>TLC keeps some state in static fields, meant to live one run per JVM. Before every run the worker puts back what
 * a run leaves behind that would change the next one:
 * <ul>
 *   <li>every interned name's slot ({@code UniqueString.loc}: a variable's index or a definition's place in the
 *       definition table) and the variable count: stale slots of the previous spec would make two definitions of the
 *       next one share a place;</li>
 *   <li>{@link TLCGlobals}' settable fields, to their values when the worker started (which also drops the previous
 *       run's model checker and its fingerprint set);</li>
 *   <li>the liveness checker's "error found by thread" flag;</li>
 *   <li>{@link ToolIO}'s streams and message buffer, pointed at this run's output file.</li>
 * </ul>
 * TLC resets the rest itself when a run starts (the model values, SANY's global context). What is not reset is the
 * order in which names were first interned, which TLC uses to order strings and record fields: a run may therefore
 * explore states in another order than a run in a fresh JVM, which changes nothing about whether an invariant holds
 * or how many states a complete search finds, but may change how many states were found when a search stops at a
 * violation. Callers that compare those counts with a fresh JVM's check a disagreement again in a fresh JVM
 * ({@link TlcRunner#check}).
 *
 * <p>If TLC ends the JVM itself ({@code System.exit} on some internal errors), the pool sees the worker die and runs
 * the model in a fresh JVM instead.
 */
public final class TlcWorker {

    private TlcWorker() {
    }

    /**
     * Serves requests until standard input ends.
     *
     * @param args none
     * @throws IOException if standard input cannot be read or an output file cannot be written
     * @throws ReflectiveOperationException if TLC's fields are not where this TLC version has them
     */
    public static void main(final String[] args) throws IOException, ReflectiveOperationException {
        final PrintStream protocol = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true,
            StandardCharsets.UTF_8);
        final Map<Field, Object> globals = settableStatics(TLCGlobals.class);
        final Field errFound = Class.forName("tlc2.tool.liveness.LiveWorker").getDeclaredField("errFoundByThread");
        errFound.setAccessible(true);
        final Object errFoundInitial = errFound.get(null);
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            final String[] request = line.split("\t", -1);
            if (request.length != 4 || !"RUN".equals(request[0])) {
                protocol.println("BAD\t" + line);
                continue;
            }
            final Path dir = Path.of(request[1]);
            final String module = request[2];
            for (final Map.Entry<Field, Object> g : globals.entrySet()) {
                g.getKey().set(null, g.getValue());
            }
            errFound.set(null, errFoundInitial);
            for (final UniqueString name : UniqueString.internTbl.toMap().values()) {
                name.setLoc(-1);
            }
            UniqueString.setVariableCount(0);
            final int rc = run(dir, module, request[3]);
            protocol.println("DONE\t" + rc);
        }
        // TLC may leave non-daemon threads behind (a finished run's helpers); the worker is done.
        System.exit(0);
    }

    private static int run(final Path dir, final String module, final String metadir) throws IOException {
        final PrintStream stdout = System.out;
        final PrintStream stderr = System.err;
        try (PrintStream out = new PrintStream(Files.newOutputStream(dir.resolve(module + ".out")), true,
            StandardCharsets.UTF_8)) {
            System.setOut(out);
            System.setErr(out);
            ToolIO.out = out;
            ToolIO.err = out;
            ToolIO.reset();
            ToolIO.setMode(ToolIO.SYSTEM);
            final TLC tlc = new TLC();
            // TlcRunner's options, with the model's files named by absolute path instead of the working directory.
            final String[] tlcArgs = {"-workers", "1", "-fp", "0", "-nowarning", "-lncheck", "final",
                "-metadir", metadir, "-config", dir.resolve(module + ".cfg").toString(),
                dir.resolve(module + ".tla").toString()};
            if (!tlc.handleParameters(tlcArgs)) {
                return 1;
            }
            tlc.setResolver(new SimpleFilenameToStream(dir.toString()));
            return tlc.process();
        } catch (RuntimeException | Error e) {
            // An exception TLC did not catch: recorded in the run's output, where the caller's classification sees
            // no verdict and reports an error.
            try (PrintStream out = new PrintStream(new FileOutputStream(dir.resolve(module + ".out").toFile(), true),
                true, StandardCharsets.UTF_8)) {
                out.println("Error: TLC worker: " + e);
                e.printStackTrace(out);
            }
            return 255;
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            ToolIO.out = stdout;
            ToolIO.err = stderr;
        }
    }

    /** The static, non-final fields of a class and their current values. */
    private static Map<Field, Object> settableStatics(final Class<?> type) throws IllegalAccessException {
        final Map<Field, Object> values = new LinkedHashMap<>();
        for (final Field f : type.getDeclaredFields()) {
            final int mod = f.getModifiers();
            if (Modifier.isStatic(mod) && !Modifier.isFinal(mod)) {
                f.setAccessible(true);
                values.put(f, f.get(null));
            }
        }
        return values;
    }
}
