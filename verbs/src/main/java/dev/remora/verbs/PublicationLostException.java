package dev.remora.verbs;

import java.util.Arrays;

/**
 * Thrown by {@link Endpoint#flush(int)} when it cannot make the endpoint's WRITEs visible: a queue pair that carried
 * WRITEs not yet known to be placed was replaced (it failed, or a wait on it timed out and it broke later). Those
 * WRITEs may land at any time, after any READ on the new queue pair (R10 orders nothing across queue pairs), so no
 * flush can order them before what comes next. An ordered release that gets this exception must not release: the
 * caller learns that its critical section's data at {@link #nodeIds()} is in an unknown state.
 *
 * <p>Reported once: the endpoint forgets the lost nodes when it throws.
 */
public class PublicationLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int[] nodeIds;

    /**
     * Creates the exception.
     *
     * @param nodeIds the nodes whose WRITEs' placement is unknown
     */
    public PublicationLostException(int[] nodeIds) {
        super("WRITEs to node(s) " + Arrays.toString(nodeIds) + " were posted on a queue pair that was replaced before "
            + "they were known to be placed: they may land at any time, so they cannot be made visible");
        this.nodeIds = nodeIds.clone();
    }

    /** @return the nodes whose WRITEs' placement is unknown */
    public int[] nodeIds() {
        return nodeIds.clone();
    }
}
