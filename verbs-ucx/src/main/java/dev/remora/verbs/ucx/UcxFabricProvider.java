package dev.remora.verbs.ucx;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.spi.FabricProvider;

import java.util.Map;
import java.util.Optional;

/**
 * Registers the UCX fabric as provider {@value #NAME}; properties are those of {@link UcxContext}.
 *
 * <p>{@link #unavailableReason()} says, without opening a fabric, whether UCX can run in this JVM and, if not,
 * exactly what is missing; {@code remora doctor} calls it (through reflection, since this module needs JDK 22+).
 */
public final class UcxFabricProvider implements FabricProvider {
    /** The provider's name. */
    public static final String NAME = "ucx";

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public UcxFabricProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Fabric open(Map<String, String> properties) {
        UcxContext c = UcxContext.fromProperties(properties);
        Optional<String> missing = unavailableReason();
        if (missing.isPresent()) {
            throw new IllegalStateException("the ucx provider cannot run here: " + missing.get());
        }
        return UcxFabric.open(c);
    }

    /**
     * Whether UCX can run in this JVM: the JUCX classes and their native library load, libucp and libucs load and
     * are 1.13 or newer, every symbol the provider calls is there, and the native structs' mirrors have their
     * declared sizes. Nothing is opened.
     *
     * @return empty when it can, or the precise reason it cannot (e.g. {@code libucp.so.0 cannot be loaded ...})
     */
    public static Optional<String> unavailableReason() {
        try {
            Class.forName("org.openucx.jucx.ucp.UcpContext");
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.of("the JUCX classes (org.openucx:jucx) are not on the class path: " + e);
        }
        try {
            Ucx.load();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage());
        }
        try {
            org.openucx.jucx.NativeLibs.load();
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("JUCX's native library does not load: " + e);
        }
        return Optional.empty();
    }

    /**
     * The libucp version this JVM loads, for reports.
     *
     * @return e.g. {@code 1.13.1}
     * @throws IllegalStateException if UCX is not usable here
     */
    public static String ucxVersion() {
        return Ucx.load().version;
    }
}
