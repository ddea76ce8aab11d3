package dev.remora.check.model;

import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A FIFO queue per key: {@code enqueue x} appends {@code x}; {@code dequeue} with output
 * {@code x} needs {@code x} at the head and removes it; a dequeue with output {@code nil} needs
 * the queue empty. An indeterminate dequeue removes the head, whatever it is.
 */
public final class QueueModel implements Model<List<Object>> {
    @Override
    public String name() {
        return "queue";
    }

    @Override
    public List<Object> init() {
        return List.of();
    }

    @Override
    public List<Object> step(List<Object> state, Operation op) {
        switch (op.function()) {
            case "enqueue": {
                Object[] next = state.toArray(new Object[state.size() + 1]);
                next[state.size()] = op.input();
                return Collections.unmodifiableList(Arrays.asList(next));
            }
            case "dequeue": {
                Object out = op.output();
                if (state.isEmpty()) {
                    return out == null ? state : null;
                }
                if (out != Operation.UNKNOWN && !Objects.equals(state.get(0), out)) {
                    return null;
                }
                if (op.input() == TAKES_UNOBSERVED && state.get(0) != UNOBSERVED) {
                    return null;
                }
                return Collections.unmodifiableList(Arrays.asList(
                        state.subList(1, state.size()).toArray()));
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        String f = op.function();
        return f.equals("enqueue") || f.equals("dequeue") ? null
                : "function enqueue or dequeue for model queue, found :" + f;
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return false;
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        Set<Object> enqueued = new HashSet<>();
        for (Operation op : ops) {
            if (op.function().equals("enqueue")) {
                enqueued.add(op.input());
            }
        }
        int best = -1;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.isOk() && op.function().equals("dequeue") && op.output() != null && !enqueued.contains(op.output())
                    && (best < 0 || op.ret() < ops.get(best).ret())) {
                best = i;
            }
        }
        return best < 0 ? null : new ImpossibleOperation(best, "dequeue of " + Values.show(ops.get(best).output())
                + ", a value that no operation enqueues");
    }

    /** Stands for every enqueued value that no completed dequeue returns. */
    static final Object UNOBSERVED = new Object() {
        @Override
        public String toString() {
            return "<unobserved>";
        }
    };

    /** Marks an indeterminate dequeue that may only take an {@link #UNOBSERVED} value. */
    static final Object TAKES_UNOBSERVED = new Object() {
        @Override
        public String toString() {
            return "<takes-unobserved>";
        }
    };

    /**
     * Simplifies the partition without changing its verdict. Values that no completed dequeue
     * returns are interchangeable, so they become {@link #UNOBSERVED}; indeterminate enqueues of
     * them are dropped (such a value could only block the queue, or be taken by an indeterminate
     * dequeue, which is the same as neither happening). When every observed value is enqueued once,
     * an indeterminate dequeue that took a value some completed dequeue returns would make that
     * dequeue impossible, so it is restricted to taking unobserved values. (Only the observed
     * values need be distinct.)
     */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        Set<Object> observed = new HashSet<>();
        Set<Object> enqueued = new HashSet<>();
        boolean unique = true;
        for (Operation op : ops) {
            if (op.isOk() && op.function().equals("dequeue") && op.output() != null) {
                observed.add(op.output());
            }
        }
        for (Operation op : ops) {
            if (op.function().equals("enqueue") && observed.contains(op.input())) {
                unique &= enqueued.add(op.input());
            }
        }
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op.function().equals("enqueue") && !observed.contains(op.input())) {
                if (op.isOk()) {
                    out.add(op.withInput(UNOBSERVED));
                }
            } else if (op.function().equals("dequeue") && op.isIndeterminate() && unique) {
                out.add(op.withInput(TAKES_UNOBSERVED));
            } else {
                out.add(op);
            }
        }
        return out;
    }

    @Override
    public String describeState(List<Object> state) {
        return Values.show(state);
    }

    @Override
    public int stateBytes(List<Object> state) {
        return 32 + 8 * state.size();
    }
}
