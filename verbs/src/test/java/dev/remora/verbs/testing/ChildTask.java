package dev.remora.verbs.testing;

import dev.remora.verbs.Node;

/**
 * Code that a test runs in the {@link NodeHost} child JVM, on a thread of its own, against one of the child's nodes
 * (started with {@link HostedSocketFabric#startInChild}): a producer loop, say, whose every verb then leaves the
 * child's node from the child's process. The class must be public with a public no-argument constructor and on the
 * child's class path (the child runs with the test's class path). It reaches a node of the test process with
 * {@code node.fabric().connect(address)} and an {@code Endpoint} on {@code node}.
 */
@FunctionalInterface
public interface ChildTask {
    /**
     * Runs in the child.
     *
     * @param node the child node the test named
     * @param args the test's arguments
     * @return what the test's {@link Running#await} returns
     * @throws Exception to fail: {@link Running#await} throws with its class and message
     */
    String run(Node node, String[] args) throws Exception;

    /** A task started in the child, as the test process sees it. */
    interface Running {
        /**
         * Waits for the task to end.
         *
         * @param timeoutNs the longest wait
         * @return what the task returned
         * @throws IllegalStateException if it threw (with its class and message) or is still running after the wait
         */
        String await(long timeoutNs);
    }
}
