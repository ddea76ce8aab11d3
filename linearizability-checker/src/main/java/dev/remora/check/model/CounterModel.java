package dev.remora.check.model;

import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

/**
 * A counter per key: {@code add n} adds {@code n} (an integer, possibly negative);
 * {@code read} with output {@code v} is legal iff the counter equals {@code v}
 * ({@code nil} matches anything).
 */
public final class CounterModel implements Model<Long> {
    private final long init;

    /**
     * Creates the model.
     *
     * @param init the initial count
     */
    public CounterModel(long init) {
        this.init = init;
    }

    @Override
    public String name() {
        return "counter";
    }

    @Override
    public Long init() {
        return init;
    }

    @Override
    public Long step(Long state, Operation op) {
        switch (op.function()) {
            case "add":
                return state + (Long) op.input();
            case "read": {
                Object out = op.output();
                return out == null || out == Operation.UNKNOWN || state.equals(out) ? state : null;
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        switch (op.function()) {
            case "add":
                return op.input() instanceof Long ? null : "add value an integer, found " + Values.show(op.input());
            case "read":
                Object out = op.output();
                return out == null || out == Operation.UNKNOWN || out instanceof Long ? null
                        : "read result an integer, found " + Values.show(out);
            default:
                return "function add or read for model counter, found :" + op.function();
        }
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return op.function().equals("read");
    }
}
