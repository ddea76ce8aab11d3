package dev.remora.check.model;

import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Nil;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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
        this.init = Nil.box(Values.normalize(init));
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
                    return "function read or write for model register, found :cas (model cas-register has cas)";
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

    /**
     * Drops indeterminate reads, and handles values that no read or compare-and-set observes:
     * writing one makes the register hold "something nobody looks for", so all of them are
     * replaced by {@link #UNOBSERVED}, and indeterminate writes of them are dropped outright
     * unless a compare-and-set that returned false could need the register to differ.
     */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        return prepareRegister(ops, "read", "write");
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        return impossibleRead(ops, "read", "write", Nil.unbox(init));
    }

    static ImpossibleOperation impossibleRead(List<Operation> ops, String read, String write,
                                                                Object init) {
        Set<Object> written = new HashSet<>();
        written.add(init);
        for (Operation op : ops) {
            String f = op.function();
            if (f.equals(write)) {
                written.add(op.input());
            } else if (f.equals("cas")) {
                written.add(((List<?>) op.input()).get(1));
            } else if (!f.equals(read)) {
                return null;
            }
        }
        int best = -1;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.isOk() && op.function().equals(read) && op.output() != null && !written.contains(op.output())
                    && (best < 0 || op.ret() < ops.get(best).ret())) {
                best = i;
            }
        }
        return best < 0 ? null : new ImpossibleOperation(best, read + " of " + Values.show(ops.get(best).output())
                + ", a value that no operation writes and that is not the initial value");
    }

    /** Stands for every value that no operation of the partition observes. */
    static final Object UNOBSERVED = new Object() {
        @Override
        public String toString() {
            return "<unobserved>";
        }
    };

    static List<Operation> prepareRegister(List<Operation> ops, String read, String write) {
        Set<Object> observed = new HashSet<>();
        boolean negative = false;
        for (Operation op : ops) {
            if (op.function().equals(read)) {
                if (op.isOk() && op.output() != null) {
                    observed.add(op.output());
                }
            } else if (op.function().equals("cas")) {
                observed.add(((List<?>) op.input()).get(0));
                negative |= Boolean.FALSE.equals(op.output());
            } else if (!op.function().equals(write)) {
                return ops; // e.g. append: values combine, nothing to simplify
            }
        }
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op.function().equals(read)) {
                if (op.isOk()) {
                    out.add(op);
                }
                continue;
            }
            boolean cas = op.function().equals("cas");
            Object written = cas ? ((List<?>) op.input()).get(1) : op.input();
            if (observed.contains(written)) {
                out.add(op);
            } else if (op.isIndeterminate() && !negative) {
                continue;
            } else {
                out.add(op.withInput(cas ? Arrays.asList(((List<?>) op.input()).get(0), UNOBSERVED)
                        : UNOBSERVED));
            }
        }
        return out;
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
