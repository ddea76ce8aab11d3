package dev.remora.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sequential specification as a pure step function.
 *
 * <p>Contract: {@link #step} never mutates its arguments and returns the state after the
 * operation, or {@code null} when the operation, with its recorded output, is impossible in
 * that state. States are never {@code null} (use {@link Nil#NIL}), are immutable, and have
 * value-based {@code equals} and {@code hashCode}, because the search memoises on them.
 *
 * <p>An {@linkplain Operation#isIndeterminate() indeterminate} operation has output
 * {@link Operation#UNKNOWN}; {@code step} then returns the state it leaves <em>if it takes
 * effect</em> (and {@code null} if it cannot). The search itself covers the case where it never
 * takes effect, so an indeterminate operation whose failure leaves the state unchanged (a
 * compare-and-set that does not match) may simply return {@code null}.
 *
 * <p>Models whose operations on different keys are independent are checked one key at a time
 * (P-compositionality, Horn and Kroening 2015): {@link #partition} groups the operations.
 *
 * @param <S> the state type
 */
public interface Model<S> {
    /** @return the model's name, as given to {@link dev.remora.check.model.Models#create} */
    String name();

    /** @return the initial state of each partition */
    S init();

    /**
     * Applies an operation.
     *
     * @param state the state before
     * @param op    the operation, with its output or {@link Operation#UNKNOWN}
     * @return the state after, or {@code null} when impossible
     */
    S step(S state, Operation op);

    /**
     * Checks an operation's shape before the search starts.
     *
     * @param op the operation
     * @return {@code null} when fine, otherwise what was expected, for example
     *         {@code "cas value [old new]"}
     */
    String validate(Operation op);

    /**
     * Tells whether an operation can never change the state, so that an indeterminate copy of
     * it constrains nothing and is dropped before the search.
     *
     * @param op the operation
     * @return whether it is read-only
     */
    boolean isReadOnly(Operation op);

    /**
     * Prepares one partition for the search. A model may drop indeterminate operations that can
     * never help a linearization and replace values that no operation observes by one
     * representative, so that states differing only in such values are memoised once; it must
     * keep every completed operation and each operation's id, and must not change the verdict.
     * The default drops the indeterminate {@linkplain #isReadOnly read-only} operations.
     *
     * @param ops the partition's operations, in order of invocation
     * @return the operations to search, in the same order
     */
    default List<Operation> prepare(List<Operation> ops) {
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op.isOk() || !isReadOnly(op)) {
                out.add(op);
            }
        }
        return out;
    }

    /**
     * Finds a completed operation that is impossible in every state the partition could reach,
     * such as a read of a value that no operation writes. The checker then reports it at once
     * instead of searching every order of the operations before it.
     *
     * @param ops the partition's {@linkplain #prepare prepared} operations
     * @return the first such operation (by completion): its index in {@code ops} and a sentence
     *         saying why it is impossible, or {@code null} when there is none
     */
    default ImpossibleOperation impossible(List<Operation> ops) {
        return null;
    }

    /**
     * Splits operations into independent groups, each checked from {@link #init()} on its own.
     * The default groups by {@link Operation#key()}, keeping each group in order.
     *
     * @param ops all operations, in order of invocation
     * @return the groups, ordered by their first operation
     */
    default List<List<Operation>> partition(List<Operation> ops) {
        Map<Object, List<Operation>> groups = new LinkedHashMap<>();
        List<Operation> nullKey = null;
        for (Operation op : ops) {
            if (op.key() == null) {
                if (nullKey == null) {
                    nullKey = new ArrayList<>();
                    groups.put(Nil.NIL, nullKey);
                }
                nullKey.add(op);
            } else {
                groups.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        return new ArrayList<>(groups.values());
    }

    /**
     * Describes an operation for reports, such as {@code write 3} or {@code read -> 4}.
     *
     * @param op the operation
     * @return the description
     */
    default String describeOperation(Operation op) {
        StringBuilder sb = new StringBuilder();
        if (op.key() != null) {
            sb.append('[').append(Values.show(op.key())).append("] ");
        }
        sb.append(op.function());
        if (op.input() != null || op.output() == null || op.output() == Operation.UNKNOWN) {
            sb.append(' ').append(Values.show(op.input()));
        }
        if (op.isIndeterminate()) {
            sb.append(" -> ? (indeterminate)");
        } else if (op.output() != null && !op.output().equals(op.input())) {
            sb.append(" -> ").append(Values.show(op.output()));
        }
        return sb.toString();
    }

    /**
     * Describes a state for reports.
     *
     * @param state the state
     * @return the description
     */
    default String describeState(S state) {
        return Values.show(Nil.unbox(state));
    }

    /**
     * Estimates the heap bytes a state holds beyond what other states share, for the memory
     * limit.
     *
     * @param state the state
     * @return the estimate
     */
    default int stateBytes(S state) {
        return 24;
    }
}
