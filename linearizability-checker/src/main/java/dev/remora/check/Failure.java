package dev.remora.check;

import java.util.List;

/**
 * Why a history is not linearizable, for the partition that failed.
 *
 * @param partitionKey          the key of the failing partition, or {@code null}
 * @param partitionOperations   all operations of the failing partition
 * @param blocking              the operation that cannot be linearized: after the longest partial
 *                              linearization no order reaches its completion
 * @param partialLinearization  the longest partial linearization found, in order
 * @param states                the model state after each step of the partial linearization
 *                              (described), {@code states.get(0)} being the initial state
 * @param window                the operations of the smallest failing window, in order of
 *                              invocation: they still fail when started from the state reached
 *                              by {@code windowStart} steps of the partial linearization
 * @param windowStart           how many steps of the partial linearization precede the window
 * @param reason                a readable sentence, such as {@code read -> 3 is not possible in
 *                              state 4}
 */
public record Failure(Object partitionKey, List<Operation> partitionOperations, Operation blocking,
                      List<Operation> partialLinearization, List<String> states, List<Operation> window,
                      int windowStart, String reason) {
    /** @return the first source line of the window */
    public int windowFirstLine() {
        return window.stream().mapToInt(Operation::callLine).min().orElse(0);
    }

    /** @return the last source line of the window */
    public int windowLastLine() {
        return window.stream().mapToInt(o -> Math.max(o.callLine(), o.returnLine())).max().orElse(0);
    }
}
