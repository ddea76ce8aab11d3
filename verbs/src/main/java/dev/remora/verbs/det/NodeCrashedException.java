package dev.remora.verbs.det;

/**
 * Thrown into a thread of the deterministic fabric whose node crashed: the thread stops, as the node's CPUs did.
 */
public final class NodeCrashedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param node the crashed node's name
     */
    public NodeCrashedException(String node) {
        super("node " + node + " has crashed");
    }
}
