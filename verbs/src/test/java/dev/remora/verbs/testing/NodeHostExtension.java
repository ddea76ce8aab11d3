package dev.remora.verbs.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link NodeHost} (a child JVM) for a test class: started before the class's first test, closed after its last.
 * Register it in a static field: {@code @RegisterExtension static final NodeHostExtension HOST = new
 * NodeHostExtension();} and pass {@code HOST.host()} to {@link HostedSocketFabric#open}.
 */
public final class NodeHostExtension implements BeforeAllCallback, AfterAllCallback {
    private final String[] jvmOptions;
    private NodeHost host;

    /** A host with the default JVM options. */
    public NodeHostExtension() {
        this(new String[0]);
    }

    /**
     * A host whose JVM gets these options besides the defaults.
     *
     * @param jvmOptions e.g. {@code --enable-native-access=ALL-UNNAMED}
     */
    public NodeHostExtension(String... jvmOptions) {
        this.jvmOptions = jvmOptions.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        host = NodeHost.start(jvmOptions);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (host != null) {
            host.close();
            host = null;
        }
    }

    /** @return the running host */
    public NodeHost host() {
        if (host == null) {
            throw new IllegalStateException("no node host: register the extension on a static field");
        }
        return host;
    }
}
