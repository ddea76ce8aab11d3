package dev.remora.verbs.disni;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Whether the {@code disni} provider can run in this JVM on this machine, and if not, exactly what is missing. It
 * looks, in order, for: DiSNI's classes; the {@code sun.nio.ch} export DiSNI needs on JDK 17
 * ({@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}); {@code libibverbs.so.1} and {@code librdmacm.so.1};
 * {@code libdisni.so} on {@code java.library.path}; an RDMA device ({@code /sys/class/infiniband/*} and
 * {@code /dev/infiniband/uverbs*}); and then it loads libdisni and checks the struct layout it was built with
 * ({@link NativeLayout}). Everything missing is named, not only the first.
 *
 * <p>Tests that need the hardware skip with {@link #reason()} ({@code Assumptions.assumeTrue(a.isAvailable(),
 * a.reason())}); {@code remora doctor} prints it.
 */
public final class DisniAvailability {
    /** Where the dynamic linker usually finds {@code libibverbs} and {@code librdmacm}. */
    static final List<String> SYSTEM_LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/lib",
        "/usr/local/lib", "/usr/local/lib64");

    private static volatile DisniAvailability cached;

    private final List<String> missing;

    private DisniAvailability(List<String> missing) {
        this.missing = List.copyOf(missing);
    }

    /**
     * What the checks look at; the real machine in {@link #check()}, a stand-in in tests.
     */
    interface Environment {
        /** @param name a class name @return whether it can be loaded */
        boolean hasClass(String name);

        /** @return whether {@code java.base} exports {@code sun.nio.ch} to DiSNI's (unnamed) module */
        boolean sunNioChExported();

        /** @return the directories of {@code java.library.path} */
        List<Path> javaLibraryPath();

        /** @return the directories of {@code LD_LIBRARY_PATH} and the system's library directories */
        List<Path> linkerPath();

        /** @param p a path @return whether it exists */
        boolean exists(Path p);

        /** @param dir a directory @return its entries' names, empty if it does not exist */
        List<String> list(Path dir);

        /**
         * Loads libdisni and reads its layout.
         *
         * @return the layout
         * @throws LinkageError or a runtime exception if it cannot be loaded
         */
        NativeLayout loadLayout();
    }

    /**
     * Checks this JVM and machine (once; later calls return the same answer).
     *
     * @return the answer
     */
    public static DisniAvailability check() {
        DisniAvailability a = cached;
        if (a == null) {
            a = check(new Machine());
            cached = a;
        }
        return a;
    }

    /**
     * Checks an environment.
     *
     * @param env what to look at
     * @return the answer
     */
    static DisniAvailability check(Environment env) {
        List<String> missing = new ArrayList<>();
        if (!env.hasClass("com.ibm.disni.verbs.RdmaCm")) {
            missing.add("DiSNI's classes (com.ibm.disni:disni:2.1) are not on the class path");
        } else if (!env.hasClass("org.slf4j.LoggerFactory")) {
            missing.add("slf4j-api, which DiSNI logs through, is not on the class path");
        }
        if (!env.sunNioChExported()) {
            missing.add("java.base does not export sun.nio.ch to DiSNI: run the JVM with --add-exports "
                + "java.base/sun.nio.ch=ALL-UNNAMED");
        }
        for (String lib : List.of("libibverbs.so.1", "librdmacm.so.1")) {
            if (find(env, env.linkerPath(), lib) == null && find(env, env.javaLibraryPath(), lib) == null) {
                missing.add(lib + " is not installed (Debian/Ubuntu: apt-get install "
                    + (lib.startsWith("libibverbs") ? "libibverbs1 ibverbs-providers" : "librdmacm1") + ")");
            }
        }
        Path disni = find(env, env.javaLibraryPath(), "libdisni.so");
        if (disni == null) {
            Path elsewhere = find(env, env.linkerPath(), "libdisni.so");
            missing.add(elsewhere != null
                ? "libdisni.so is at " + elsewhere + " but not on java.library.path " + env.javaLibraryPath()
                    + ": add -Djava.library.path=" + elsewhere.getParent()
                : "libdisni.so is not on java.library.path " + env.javaLibraryPath() + " (no package ships it: build "
                    + "it from DiSNI's sources, see docs/hardware.md)");
        }
        List<String> devices = env.list(Path.of("/sys/class/infiniband"));
        boolean uverbs = env.list(Path.of("/dev/infiniband")).stream().anyMatch(n -> n.startsWith("uverbs"));
        if (devices.isEmpty() || !uverbs) {
            missing.add("no RDMA device: " + (devices.isEmpty() ? "/sys/class/infiniband has no device" : "devices "
                + devices + " but") + (uverbs ? "" : (devices.isEmpty() ? " and " : " ")
                + "/dev/infiniband has no uverbs character device") + " (load the NIC's driver, or soft-RoCE: "
                + "rdma link add rxe0 type rxe netdev IFACE)");
        }
        if (missing.isEmpty()) {
            try {
                List<String> m = env.loadLayout().mismatches();
                if (!m.isEmpty()) {
                    missing.add("libdisni's struct layout differs from the provider's mirrors: " + String.join("; ", m));
                }
            } catch (LinkageError | RuntimeException e) {
                missing.add("libdisni could not be loaded: " + e);
            }
        }
        return new DisniAvailability(missing);
    }

    private static Path find(Environment env, List<Path> dirs, String file) {
        for (Path d : dirs) {
            Path p = d.resolve(file);
            if (env.exists(p)) {
                return p;
            }
        }
        return null;
    }

    /** @return whether the provider can run here */
    public boolean isAvailable() {
        return missing.isEmpty();
    }

    /** @return what is missing, one entry each; empty when available */
    public List<String> missing() {
        return missing;
    }

    /** @return one line: "can run here", or everything missing */
    public String reason() {
        return missing.isEmpty() ? "can run here (DiSNI, libdisni, libibverbs, librdmacm and an RDMA device found)"
            : "disni cannot run here: " + String.join("; ", missing);
    }

    @Override
    public String toString() {
        return reason();
    }

    /** This JVM and machine. */
    static final class Machine implements Environment {
        @Override
        public boolean hasClass(String name) {
            try {
                Class.forName(name, false, DisniAvailability.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        @Override
        public boolean sunNioChExported() {
            return Object.class.getModule().isExported("sun.nio.ch", DisniAvailability.class.getModule());
        }

        @Override
        public List<Path> javaLibraryPath() {
            return paths(System.getProperty("java.library.path", ""));
        }

        @Override
        public List<Path> linkerPath() {
            List<Path> dirs = new ArrayList<>(paths(System.getenv().getOrDefault("LD_LIBRARY_PATH", "")));
            SYSTEM_LIBRARY_DIRS.forEach(d -> dirs.add(Path.of(d)));
            return dirs;
        }

        private static List<Path> paths(String list) {
            List<Path> out = new ArrayList<>();
            for (String s : list.split(java.io.File.pathSeparator)) {
                if (!s.isBlank()) {
                    out.add(Path.of(s));
                }
            }
            return out;
        }

        @Override
        public boolean exists(Path p) {
            return Files.exists(p);
        }

        @Override
        public List<String> list(Path dir) {
            if (!Files.isDirectory(dir)) {
                return List.of();
            }
            try (Stream<Path> s = Files.list(dir)) {
                return s.map(p -> p.getFileName().toString()).sorted().toList();
            } catch (IOException e) {
                return List.of();
            }
        }

        @Override
        public NativeLayout loadLayout() {
            return DisniNatives.load().layout();
        }
    }
}
