package dev.remora.check.model;

import dev.remora.check.Model;
import dev.remora.check.Nil;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.List;
import java.util.Objects;

/**
 * A read/write register, optionally with compare-and-set, one per key.
 *
 * <ul>
 *   <li>{@code read} with output {@code v}: legal iff the register holds {@code v}; a read of
 *       {@code nil} matches any value, as in Knossos;</li>
 *   <li>{@code write v}: the register becomes {@code v};</li>
 *   <li>{@code cas [old new]} (cas-register only): output {@code true} (or the pair echoed back,
 *       as Knossos and Jepsen record it) needs the register to hold {@code old} and sets
 *       {@code new}; output {@code false} needs it to hold something else.</li>
 * </ul>
 */
public final class RegisterModel implements Model<Object> {
    private final boolean cas;
    private final Object init;

    /**
     * Creates the model.
     *
     * @param cas  whether {@code cas} is allowed
     * @param init the initial value, {@code null} for nil
     */
    public RegisterModel(boolean cas, Object init) {
        this.cas = cas;
        this.init = Nil.box(init);
    }

    @Override
    public String name() {
        return cas ? "cas-register" : "register";
    }

    @Override
    public Object init() {
        return init;
    }

    static boolean holds(Object state, Object v) {
        return Objects.equals(Nil.unbox(state), v);
    }

    @Override
    public Object step(Object state, Operation op) {
        switch (op.function()) {
            case "read": {
                Object out = op.output();
                return out == null || out == Operation.UNKNOWN || holds(state, out) ? state : null;
            }
            case "write":
                return Nil.box(op.input());
            case "cas": {
                List<?> in = (List<?>) op.input();
                boolean matches = holds(state, in.get(0));
                if (Boolean.FALSE.equals(op.output())) {
                    return matches ? null : state;
                }
                return matches ? Nil.box(in.get(1)) : null;
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        switch (op.function()) {
            case "read":
            case "write":
                return null;
            case "cas":
                if (!cas) {
                    return "function read or write for model register (use --model cas-register for cas)";
                }
                if (!Values.isTuple(op.input(), 2)) {
                    return "cas value [old new], found " + Values.show(op.input());
                }
                Object out = op.output();
                if (out == Operation.UNKNOWN || out instanceof Boolean || out instanceof List) {
                    return null;
                }
                return "cas result true, false or [old new], found " + Values.show(out);
            default:
                return "function read, write" + (cas ? " or cas" : "") + " for model " + name()
                        + ", found :" + op.function();
        }
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return op.function().equals("read");
    }

    @Override
    public String describeOperation(Operation op) {
        String k = op.key() == null ? "" : "[" + Values.show(op.key()) + "] ";
        String ind = op.isIndeterminate() ? " (indeterminate)" : "";
        switch (op.function()) {
            case "read":
                return k + "read -> " + (op.isIndeterminate() ? "?" : Values.show(op.output())) + ind;
            case "write":
                return k + "write " + Values.show(op.input()) + ind;
            case "cas": {
                List<?> in = (List<?>) op.input();
                String res = op.isIndeterminate() ? "?" : Boolean.FALSE.equals(op.output()) ? "false" : "true";
                return k + "cas " + Values.show(in.get(0)) + "->" + Values.show(in.get(1)) + " = " + res + ind;
            }
            default:
                return k + op.function();
        }
    }
}
