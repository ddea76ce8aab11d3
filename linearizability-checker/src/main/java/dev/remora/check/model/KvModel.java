package dev.remora.check.model;

import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Nil;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.List;

/**
 * A key-value map, checked one key at a time; the state of each partition is one key's value.
 *
 * <ul>
 *   <li>{@code get} with output {@code v}: legal iff the key holds {@code v} ({@code nil}
 *       matches anything);</li>
 *   <li>{@code put v}: the key becomes {@code v};</li>
 *   <li>{@code append s}: the key becomes its string value followed by {@code s};</li>
 *   <li>{@code cas [old new]} with output true/false: as in {@link RegisterModel}.</li>
 * </ul>
 * Every key starts at the initial value, {@code ""} unless another is given.
 * String values are held as {@link Text}, which shares the prefix an append extends.
 */
public final class KvModel implements Model<Object> {
    private final Object initValue;
    private final Object init;

    /**
     * Creates the model.
     *
     * @param init every key's initial value
     */
    public KvModel(Object init) {
        this.initValue = Values.normalize(init);
        this.init = state(this.initValue);
    }

    /** The state holding a value: a {@link Text} for a string, the boxed value otherwise. */
    private static Object state(Object value) {
        return value instanceof String ? Text.of((String) value) : Nil.box(value);
    }

    private static boolean holds(Object state, Object value) {
        if (state instanceof Text) {
            return value instanceof String && ((Text) state).contentEquals((String) value);
        }
        return RegisterModel.holds(state, value);
    }

    @Override
    public String name() {
        return "kv";
    }

    @Override
    public Object init() {
        return init;
    }

    @Override
    public Object step(Object state, Operation op) {
        switch (op.function()) {
            case "get":
            case "read": {
                Object out = op.output();
                return out == null || out == Operation.UNKNOWN || holds(state, out) ? state : null;
            }
            case "put":
            case "write":
                return state(op.input());
            case "append": {
                if (state instanceof Text) {
                    return ((Text) state).append((String) op.input());
                }
                Object cur = Nil.unbox(state);
                return Text.of(cur == null ? "" : cur.toString()).append((String) op.input());
            }
            case "cas": {
                List<?> in = (List<?>) op.input();
                boolean matches = holds(state, in.get(0));
                if (Boolean.FALSE.equals(op.output())) {
                    return matches ? null : state;
                }
                return matches ? state(in.get(1)) : null;
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        if (op.key() == null) {
            return "a :key on every kv operation, found none on :" + op.function();
        }
        switch (op.function()) {
            case "get": case "read": case "put": case "write":
                return null;
            case "append":
                return op.input() instanceof String ? null
                        : "append value a string, found " + Values.show(op.input());
            case "cas":
                if (!Values.isTuple(op.input(), 2)) {
                    return "cas value [old new], found " + Values.show(op.input());
                }
                Object out = op.output();
                return out == Operation.UNKNOWN || out instanceof Boolean || out instanceof List ? null
                        : "cas result true, false or [old new], found " + Values.show(out);
            default:
                return "function get, put, append or cas for model kv, found :" + op.function();
        }
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return op.function().equals("get") || op.function().equals("read");
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        boolean gets = false;
        for (Operation op : ops) {
            gets |= op.function().equals("get");
        }
        return RegisterModel.impossibleRead(ops, gets ? "get" : "read", "put", initValue);
    }

    /** As for {@link RegisterModel#prepare}, on keys without appends. */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        boolean gets = false;
        for (Operation op : ops) {
            gets |= op.function().equals("get");
        }
        List<Operation> out = RegisterModel.prepareRegister(ops, gets ? "get" : "read", "put");
        if (out != ops) {
            return out;
        }
        return Model.super.prepare(ops);
    }

    @Override
    public String describeState(Object state) {
        return state instanceof Text ? Values.show(state.toString()) : Model.super.describeState(state);
    }

    /** A {@link Text} is one node sharing its prefix with the state it was appended to. */
    @Override
    public int stateBytes(Object state) {
        return state instanceof Text ? 32 : 24;
    }
}
