package dev.remora.check.model;

import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.List;
import java.util.Objects;

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
                return java.util.Collections.unmodifiableList(java.util.Arrays.asList(next));
            }
            case "dequeue": {
                Object out = op.output();
                if (state.isEmpty()) {
                    return out == null ? state : null;
                }
                if (out != Operation.UNKNOWN && !Objects.equals(state.get(0), out)) {
                    return null;
                }
                return java.util.Collections.unmodifiableList(java.util.Arrays.asList(
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
    public String describeState(List<Object> state) {
        return Values.show(state);
    }

    @Override
    public int stateBytes(List<Object> state) {
        return 32 + 8 * state.size();
    }
}
