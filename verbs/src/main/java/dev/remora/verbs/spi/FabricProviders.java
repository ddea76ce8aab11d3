package dev.remora.verbs.spi;

import dev.remora.verbs.Fabric;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * The fabric providers registered on the class path ({@code META-INF/services/dev.remora.verbs.spi.FabricProvider}),
 * as {@link Fabric#open(String, java.util.Map)} and {@code remora doctor} find them: a provider that cannot load in
 * this JVM (built for a newer JDK, a missing dependency) does not hide the others.
 */
public final class FabricProviders {
    private FabricProviders() {
    }

    /**
     * The providers that load, in {@link ServiceLoader} order, each loaded only when the iteration reaches it.
     *
     * @param unloadable told of each provider that cannot load, which the iteration skips
     * @return the providers, for one iteration
     */
    public static Iterable<FabricProvider> loadable(Consumer<ServiceConfigurationError> unloadable) {
        Iterator<FabricProvider> it = ServiceLoader.load(FabricProvider.class, Fabric.class.getClassLoader())
            .iterator();
        return () -> new Iterator<>() {
            private FabricProvider next;

            @Override
            public boolean hasNext() {
                while (next == null) {
                    try {
                        if (!it.hasNext()) {
                            return false;
                        }
                        next = it.next();
                    } catch (ServiceConfigurationError e) {
                        // The service iterator goes on with the next provider.
                        unloadable.accept(e);
                    }
                }
                return true;
            }

            @Override
            public FabricProvider next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                FabricProvider p = next;
                next = null;
                return p;
            }
        };
    }
}
