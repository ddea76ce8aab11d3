package dev.remora.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider jar that cannot load in this JVM (built for a newer JDK, or missing a dependency) sits on the class path
 * beside the others, as the {@code remora} launcher's hardware providers may: {@link Fabric#open} must still open
 * every provider that does load, and name the one that does not when asked for an unknown name.
 */
class FabricProviderLoadingTest {

    @Test
    void shouldOpenTheOtherProvidersWhenOneCannotBeLoaded(@TempDir final Path dir) throws Exception {
        // A class path of verbs' own classes and a directory whose service file names a class that does not exist:
        // the loader's parent is the platform loader, so Fabric itself is loaded again from these URLs and its
        // ServiceLoader sees both service files.
        final Path services = Files.createDirectories(dir.resolve("META-INF/services"));
        Files.writeString(services.resolve("dev.remora.verbs.spi.FabricProvider"),
            "dev.remora.verbs.absent.NotBuiltForThisJdkProvider\n", StandardCharsets.UTF_8);
        final URL verbsClasses = Fabric.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL(), verbsClasses},
            ClassLoader.getPlatformClassLoader())) {
            final Class<?> fabric = Class.forName("dev.remora.verbs.Fabric", true, loader);
            final Method open = fabric.getMethod("open", String.class, Map.class);
            try (AutoCloseable sim = (AutoCloseable) open.invoke(null, "sim", Map.of())) {
                assertEquals("sim", fabric.getMethod("providerName").invoke(sim));
            }
            final InvocationTargetException unknown = org.junit.jupiter.api.Assertions.assertThrows(
                InvocationTargetException.class, () -> open.invoke(null, "nope", Map.of()));
            final String message = unknown.getCause().getMessage();
            assertTrue(unknown.getCause() instanceof IllegalArgumentException, message);
            assertTrue(message.contains("known: ") && message.contains("sim"), message);
            assertTrue(message.contains("could not be loaded") && message.contains("NotBuiltForThisJdkProvider"),
                message);
        }
    }
}
