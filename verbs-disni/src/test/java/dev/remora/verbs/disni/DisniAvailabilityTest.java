package dev.remora.verbs.disni;

import dev.remora.verbs.Fabric;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DisniAvailabilityTest {

    /** A machine made of a set of existing paths and a layout. */
    private static class Fake implements DisniAvailability.Environment {
        final Set<String> files = new HashSet<>();
        boolean classes = true;
        boolean exported = true;
        NativeLayout layout = NativeLayout.EXPECTED;

        @Override
        public boolean hasClass(String name) {
            return classes;
        }

        @Override
        public boolean sunNioChExported() {
            return exported;
        }

        @Override
        public List<Path> javaLibraryPath() {
            return List.of(Path.of("/opt/jlib"));
        }

        @Override
        public List<Path> linkerPath() {
            return List.of(Path.of("/usr/lib/x86_64-linux-gnu"), Path.of("/usr/local/lib"));
        }

        @Override
        public boolean exists(Path p) {
            return files.contains(p.toString());
        }

        @Override
        public List<String> list(Path dir) {
            return files.stream().filter(f -> f.startsWith(dir + "/")).map(f -> f.substring(dir.toString().length() + 1))
                .sorted().toList();
        }

        @Override
        public NativeLayout loadLayout() {
            return layout;
        }

        Fake complete() {
            files.addAll(List.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "/usr/lib/x86_64-linux-gnu/librdmacm.so.1",
                "/opt/jlib/libdisni.so", "/sys/class/infiniband/mlx5_0", "/dev/infiniband/uverbs0"));
            return this;
        }
    }

    @Test
    void shouldRunWhereEverythingIsPresent() {
        DisniAvailability a = DisniAvailability.check(new Fake().complete());
        assertTrue(a.isAvailable(), a.reason());
        assertEquals(List.of(), a.missing());
    }

    @Test
    void shouldNameEverythingMissingOnABareMachine() {
        Fake bare = new Fake();
        bare.exported = false;
        DisniAvailability a = DisniAvailability.check(bare);
        assertFalse(a.isAvailable());
        assertEquals(List.of(
            "java.base does not export sun.nio.ch to DiSNI: run the JVM with --add-exports "
                + "java.base/sun.nio.ch=ALL-UNNAMED",
            "libibverbs.so.1 is not installed (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)",
            "librdmacm.so.1 is not installed (Debian/Ubuntu: apt-get install librdmacm1)",
            "libdisni.so is not on java.library.path [/opt/jlib] (no package ships it: build it from DiSNI's sources, "
                + "see docs/hardware.md)",
            "no RDMA device: /sys/class/infiniband has no device and /dev/infiniband has no uverbs character device "
                + "(load the NIC's driver, or soft-RoCE: rdma link add rxe0 type rxe netdev IFACE)"), a.missing());
        assertTrue(a.reason().startsWith("disni cannot run here: java.base does not export"), a.reason());
    }

    @Test
    void shouldSayWhereLibdisniIsWhenItIsOffTheJavaLibraryPath() {
        Fake f = new Fake().complete();
        f.files.remove("/opt/jlib/libdisni.so");
        f.files.add("/usr/local/lib/libdisni.so");
        assertEquals(List.of("libdisni.so is at /usr/local/lib/libdisni.so but not on java.library.path [/opt/jlib]: "
            + "add -Djava.library.path=/usr/local/lib"), DisniAvailability.check(f).missing());
    }

    @Test
    void shouldRefuseALibdisniOfAnotherLayoutAndOneThatDoesNotLoad() {
        Fake f = new Fake().complete();
        f.layout = new NativeLayout(72, 32, 16, 48, 40, 48, 32);
        assertEquals(List.of("libdisni's struct layout differs from the provider's mirrors: sizeof(struct ibv_send_wr) "
            + "is 72 in libdisni, 128 in the Java mirror"), DisniAvailability.check(f).missing());
        Fake broken = new Fake() {
            @Override
            public NativeLayout loadLayout() {
                throw new UnsatisfiedLinkError("libdisni.so: undefined symbol: ibv_exp_prefetch_mr");
            }
        };
        broken.complete();
        assertEquals(List.of("libdisni could not be loaded: java.lang.UnsatisfiedLinkError: libdisni.so: undefined "
            + "symbol: ibv_exp_prefetch_mr"), DisniAvailability.check(broken).missing());
    }

    @Test
    void shouldDescribeThisMachineAsItIs() {
        DisniAvailability a = DisniAvailability.check();
        boolean device = Files.isDirectory(Path.of("/sys/class/infiniband"))
            && new DisniAvailability.Machine().list(Path.of("/sys/class/infiniband")).size() > 0
            && new DisniAvailability.Machine().list(Path.of("/dev/infiniband")).stream().anyMatch(n -> n.startsWith("uverbs"));
        assertEquals(!device, a.reason().contains("no RDMA device"), a.reason());
        // The surefire JVM runs with the export, so it is never the reason here.
        assertFalse(a.reason().contains("sun.nio.ch"), a.reason());
        if (!a.isAvailable()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Fabric.open("disni", Map.of()));
            assertEquals(a.reason(), e.getMessage());
        }
    }

    @Test
    void shouldRejectUnknownPropertiesBeforeLookingForHardware() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Fabric.open("disni", Map.of("hots", "10.0.0.1")));
        assertTrue(e.getMessage().startsWith("unknown disni fabric property 'hots'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Fabric.open("disni", Map.of("retryCount", "9")));
    }
}
