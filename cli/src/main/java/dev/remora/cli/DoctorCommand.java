package dev.remora.cli;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.spi.FabricProvider;
import dev.remora.verbs.spi.FabricProviders;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * {@code remora doctor}: which fabric providers can run here, and why not. Every provider on the class path is found
 * with {@link ServiceLoader}; a provider that has an availability check (a public static no-argument method
 * {@code availability()}, {@code check()} or {@code unavailableReason()} on its provider class, found by reflection
 * so that this module depends on none of the hardware providers) is asked first, and one that says it can run is
 * opened with two nodes. The hardware providers that are not in this build are named with what this machine has
 * for them.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Says which fabric providers can run on this machine, and for those that cannot, what is missing.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the report was printed (whatever it says)"})
public final class DoctorCommand implements Callable<Integer> {
    private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64", "/usr/lib", "/usr/local/lib", "/lib/x86_64-linux-gnu");
    /** Names of a provider's availability check, in the order they are looked for. */
    static final List<String> CHECKS = List.of("availability", "check", "unavailableReason");

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public DoctorCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("remora " + RemoraMain.VERSION + " on " + RemoraMain.jdk());
        List<String> seen = new ArrayList<>();
        // A provider that cannot load (e.g. one compiled for a newer JDK than this one) is reported and skipped.
        for (FabricProvider p : FabricProviders.loadable(e -> out.printf("  %-7s a provider on the class path cannot "
            + "load in this JVM: %s%n", "?", e.getMessage()))) {
            seen.add(p.name());
            out.printf("  %-7s %s%n", p.name(), diagnose(p));
        }
        boolean device = Files.isDirectory(Path.of("/dev/infiniband"));
        String verbs = library("libibverbs.so.1");
        String disni = library("libdisni.so");
        String ucx = library("libucp.so.0");
        if (!seen.contains("disni")) {
            out.printf("  %-7s not in this build (RDMA hardware through DiSNI: build verbs-disni and put "
                + "verbs-disni/target/remora-verbs-disni-provider.jar on the class path; the ./remora launcher does); "
                + "this machine has %s, %s, %s%n", "disni",
                device ? "an RDMA device (/dev/infiniband)" : "no RDMA device (/dev/infiniband is absent)",
                verbs == null ? "no libibverbs" : "libibverbs at " + verbs,
                disni == null ? "no libdisni (it must be built from DiSNI's sources)" : "libdisni at " + disni);
        }
        if (!seen.contains("ucx")) {
            out.printf("  %-7s not in this build (UCX over shared memory, TCP or RDMA; the verbs-ucx module needs JDK "
                + "22+); %s%n", "ucx",
                ucx == null ? "libucx is not installed (Debian: apt-get install libucx0)" : "libucx at " + ucx);
        }
        out.flush();
        return 0;
    }

    /**
     * What one provider says, and whether it opens.
     *
     * @param p the provider
     * @return one line
     */
    static String diagnose(FabricProvider p) {
        Optional<Availability> a = availability(p);
        if (a.isPresent() && !a.get().available()) {
            String reason = String.valueOf(a.get().reason());
            String own = p.name() + " cannot run here: ";
            return "cannot run here: " + (reason.startsWith(own) ? reason.substring(own.length()) : reason);
        }
        String probed = probe(p);
        return a.isPresent() && a.get().reason() != null && probed.startsWith("can run")
            ? probed + "; " + a.get().reason() : probed;
    }

    /** A provider's own answer. */
    record Availability(boolean available, String reason) {
    }

    /**
     * Calls the provider's availability check, if it has one, and reads its answer: null (can run), a Boolean, an
     * Optional of the reason it cannot, a String reason (empty: can run), or an object with
     * {@code isAvailable()}/{@code available()} and {@code reason()}.
     *
     * @param p the provider
     * @return its answer, or empty if it has no check
     */
    static Optional<Availability> availability(FabricProvider p) {
        for (String name : CHECKS) {
            Method m;
            try {
                m = p.getClass().getMethod(name);
            } catch (NoSuchMethodException e) {
                continue;
            }
            if (!Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Object r;
            try {
                r = m.invoke(null);
            } catch (InvocationTargetException e) {
                return Optional.of(new Availability(false, "its check " + name + "() failed: " + e.getCause()));
            } catch (ReflectiveOperationException | LinkageError e) {
                return Optional.of(new Availability(false, "its check " + name + "() cannot be called: " + e));
            }
            return Optional.of(interpret(r));
        }
        return Optional.empty();
    }

    static Availability interpret(Object r) {
        if (r == null) {
            return new Availability(true, null);
        }
        if (r instanceof Boolean b) {
            return new Availability(b, b ? null : "its check says no");
        }
        if (r instanceof Optional<?> o) {
            return o.map(x -> new Availability(false, x.toString())).orElse(new Availability(true, null));
        }
        if (r instanceof CharSequence s) {
            return s.length() == 0 ? new Availability(true, null) : new Availability(false, s.toString());
        }
        Boolean ok = (Boolean) call(r, "isAvailable");
        if (ok == null) {
            ok = (Boolean) call(r, "available");
        }
        Object reason = call(r, "reason");
        if (ok == null) {
            return new Availability(false, "its check answered " + r);
        }
        return new Availability(ok, reason == null ? null : reason.toString());
    }

    private static Object call(Object target, String method) {
        try {
            Method m = target.getClass().getMethod(method);
            m.setAccessible(true);
            return m.invoke(target);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static String probe(FabricProvider p) {
        try (Fabric f = p.open(Map.of())) {
            Node a = f.addNode("doctor-a");
            f.addNode("doctor-b");
            return "can run here (" + a.address().replaceFirst(":\\d+$", ":<port>") + ")";
        } catch (RuntimeException | LinkageError e) {
            return "cannot run here: " + e.getMessage();
        }
    }

    private static String library(String name) {
        for (String d : LIBRARY_DIRS) {
            Path p = Path.of(d, name);
            if (Files.exists(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
