package dev.remora.cli;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;
import dev.remora.verbs.spi.FabricProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * {@code remora doctor}: which fabric providers can run here, and why not. Each provider on the class path is opened
 * with two nodes; the hardware paths are checked for what they need (an RDMA device, the native libraries).
 */
@Command(name = "doctor", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Says which fabric providers can run on this machine, and for those that cannot, what is missing.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the report was printed (whatever it says)"})
public final class DoctorCommand implements Callable<Integer> {
    private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
        "/usr/local/lib", "/lib/x86_64-linux-gnu");

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
        for (FabricProvider p : ServiceLoader.load(FabricProvider.class, Fabric.class.getClassLoader())) {
            seen.add(p.name());
            out.printf("  %-7s %s%n", p.name(), probe(p));
        }
        boolean device = Files.isDirectory(Path.of("/dev/infiniband"));
        String verbs = library("libibverbs.so.1");
        String disni = library("libdisni.so");
        String ucx = library("libucp.so.0");
        if (!seen.contains("disni")) {
            out.printf("  %-7s not in this build (RDMA hardware through DiSNI); this machine has %s, %s, %s%n", "disni",
                device ? "an RDMA device (/dev/infiniband)" : "no RDMA device (/dev/infiniband is absent)",
                verbs == null ? "no libibverbs" : "libibverbs at " + verbs,
                disni == null ? "no libdisni (it must be built from DiSNI's sources)" : "libdisni at " + disni);
        }
        if (!seen.contains("ucx")) {
            out.printf("  %-7s not in this build (UCX over shared memory, TCP or RDMA); %s%n", "ucx",
                ucx == null ? "libucx is not installed (Debian: apt-get install libucx0)" : "libucx at " + ucx);
        }
        out.flush();
        return 0;
    }

    private static String probe(FabricProvider p) {
        try (Fabric f = p.open(Map.of())) {
            Node a = f.addNode("doctor-a");
            f.addNode("doctor-b");
            return "can run here (" + a.address().replaceFirst(":\\d+$", ":<port>") + ")";
        } catch (RuntimeException e) {
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
