package dev.remora.spec.litmus;

import java.util.List;

/**
 * One thread of a litmus test: a straight-line program on one node.
 *
 * @param name thread name, for example {@code T1}
 * @param node the node it runs on
 * @param ops  its operations in program order
 */
public record ThreadProgram(String name, String node, List<Op> ops) {

    /**
     * Copies the operation list.
     *
     * @param name thread name
     * @param node its node
     * @param ops  its operations
     */
    public ThreadProgram {
        ops = List.copyOf(ops);
    }
}
