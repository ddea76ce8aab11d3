package dev.remora.check.model;

import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A set per key: {@code add x} inserts {@code x}; {@code read} with output a collection is legal
 * iff the set holds exactly those elements ({@code nil} matches anything).
 */
public final class SetModel implements Model<Set<Object>> {
    @Override
    public String name() {
        return "set";
    }

    @Override
    public Set<Object> init() {
        return Set.of();
    }

    @Override
    public Set<Object> step(Set<Object> state, Operation op) {
        switch (op.function()) {
            case "add": {
                if (state.contains(op.input())) {
                    return state;
                }
                Set<Object> next = new HashSet<>(state);
                next.add(op.input());
                return Collections.unmodifiableSet(next);
            }
            case "read": {
                Object out = op.output();
                if (out == null || out == Operation.UNKNOWN) {
                    return state;
                }
                Collection<?> c = (Collection<?>) out;
                return c.size() >= state.size() && state.equals(new HashSet<>(c)) ? state : null;
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        switch (op.function()) {
            case "add":
                return null;
            case "read":
                Object out = op.output();
                return out == null || out == Operation.UNKNOWN || out instanceof Collection ? null
                        : "read result a collection of elements, found " + Values.show(out);
            default:
                return "function add or read for model set, found :" + op.function();
        }
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return op.function().equals("read");
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        Set<Object> added = new HashSet<>();
        for (Operation op : ops) {
            if (op.function().equals("add")) {
                added.add(op.input());
            }
        }
        int best = -1;
        Object missing = null;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.isOk() && op.function().equals("read") && op.output() != null
                    && (best < 0 || op.ret() < ops.get(best).ret())) {
                for (Object x : (Collection<?>) op.output()) {
                    if (!added.contains(x)) {
                        best = i;
                        missing = x;
                        break;
                    }
                }
            }
        }
        return best < 0 ? null : new ImpossibleOperation(best, "read containing " + Values.show(missing)
                + ", an element that no operation adds");
    }

    /**
     * Drops indeterminate reads, and indeterminate adds of elements that no completed read
     * returns: adding such an element only makes later reads fail.
     */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        Set<Object> observed = new HashSet<>();
        for (Operation op : ops) {
            if (op.isOk() && op.function().equals("read") && op.output() != null) {
                observed.addAll((Collection<?>) op.output());
            }
        }
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op.isOk() || op.function().equals("add") && observed.contains(op.input())) {
                out.add(op);
            }
        }
        return out;
    }

    @Override
    public int stateBytes(Set<Object> state) {
        return 48 + 40 * state.size();
    }
}
