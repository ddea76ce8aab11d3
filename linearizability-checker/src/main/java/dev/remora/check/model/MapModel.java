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
 * A map whose keys may be absent, whose writes return what they replaced: checked one key at a time, the state of
 * each partition being one key's value or its absence. Every key starts absent. {@code nil} (JSON {@code null})
 * stands for absence wherever a value is expected, and only for it: unlike {@code register} and {@code kv}, a get of
 * {@code nil} is not a wildcard, it says the key was absent.
 *
 * <ul>
 *   <li>{@code get} &rarr; {@code v}: legal iff the key holds {@code v} ({@code nil}: iff it is absent);</li>
 *   <li>{@code put v} &rarr; {@code previous}: legal iff the key holds {@code previous} ({@code nil}: absent); the key
 *       then holds {@code v} (never {@code nil}: absence is written by {@code delete});</li>
 *   <li>{@code update v} &rarr; {@code previous}: as {@code put} when the key is present; {@code nil} when it is
 *       absent, which it stays;</li>
 *   <li>{@code delete} &rarr; {@code previous}: legal iff the key holds {@code previous} ({@code nil}: it was already
 *       absent); the key is then absent;</li>
 *   <li>{@code cas [expected new]} (either may be {@code nil}: expect absence, write absence) &rarr;
 *       {@code [true previous]} or {@code true}: legal iff the key holds {@code expected} (and {@code previous}
 *       equals it); the key then holds {@code new}; &rarr; {@code [false current]}: legal iff the key holds
 *       {@code current}, which differs from {@code expected}, and nothing changes; &rarr; {@code false}: legal iff the
 *       key does not hold {@code expected}.</li>
 * </ul>
 * An indeterminate operation, if it takes effect, does what it would have done: a put writes, a delete removes, an
 * update writes if the key is present, a compare-and-set writes if the key holds its expected value (and otherwise
 * changes nothing, which is the same as not taking effect).
 *
 * <p>Because every completed write reports the value it replaced, a lost update is visible: two puts that both report
 * the same previous value cannot both have taken effect one after the other.
 */
public final class MapModel implements Model<Object> {
    /** The model's name. */
    public static final String NAME = "map";

    /** Creates the model; every key starts absent. */
    public MapModel() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Object init() {
        return Nil.NIL;
    }

    @Override
    public Object step(Object state, Operation op) {
        Object cur = Nil.unbox(state);
        Object out = op.output();
        boolean known = out != Operation.UNKNOWN;
        switch (op.function()) {
            case "get":
                return !known || Objects.equals(cur, out) ? state : null;
            case "put":
                return known && !Objects.equals(cur, out) ? null : op.input();
            case "update":
                if (known && !Objects.equals(cur, out)) {
                    return null;
                }
                return cur == null ? state : op.input();
            case "delete":
                return known && !Objects.equals(cur, out) ? null : Nil.NIL;
            case "cas": {
                List<?> in = (List<?>) op.input();
                boolean matches = Objects.equals(cur, in.get(0));
                if (!known) {
                    return matches ? Nil.box(in.get(1)) : null;
                }
                if (succeeded(out)) {
                    return matches && (!(out instanceof List) || Objects.equals(cur, ((List<?>) out).get(1)))
                            ? Nil.box(in.get(1)) : null;
                }
                if (matches) {
                    return null;
                }
                return !(out instanceof List) || Objects.equals(cur, ((List<?>) out).get(1)) ? state : null;
            }
            default:
                return null;
        }
    }

    /** Whether a completed cas's output ({@code true}, {@code false}, {@code [true v]}, {@code [false v]}) is a success. */
    private static boolean succeeded(Object out) {
        return Boolean.TRUE.equals(out instanceof List ? ((List<?>) out).get(0) : out);
    }

    @Override
    public String validate(Operation op) {
        if (op.key() == null) {
            return "a :key on every map operation, found none on :" + op.function();
        }
        switch (op.function()) {
            case "get":
            case "delete":
                return null;
            case "put":
            case "update":
                return op.input() != null ? null
                        : op.function() + " value a value (absence is written by delete), found nil";
            case "cas": {
                if (!Values.isTuple(op.input(), 2)) {
                    return "cas value [expected new] (nil for absent), found " + Values.show(op.input());
                }
                Object out = op.output();
                if (out == Operation.UNKNOWN || out instanceof Boolean
                        || Values.isTuple(out, 2) && ((List<?>) out).get(0) instanceof Boolean) {
                    return null;
                }
                return "cas result [true previous], [false current], true or false, found " + Values.show(out);
            }
            default:
                return "function get, put, update, delete or cas for model map, found :" + op.function();
        }
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return op.function().equals("get");
    }

    /** Adds the values an operation observes: a completed operation's output, a compare-and-set's expected value. */
    private static void observed(Operation op, Set<Object> into) {
        if (op.function().equals("cas")) {
            into.add(((List<?>) op.input()).get(0));
            if (op.output() instanceof List) {
                into.add(((List<?>) op.output()).get(1));
            }
        } else if (op.isOk()) {
            into.add(op.output());
        }
    }

    /** The value an operation writes, or {@code null} for none (a get, a delete, a cas that writes absence). */
    private static Object written(Operation op) {
        switch (op.function()) {
            case "put":
            case "update":
                return op.input();
            case "cas":
                return ((List<?>) op.input()).get(1);
            default:
                return null;
        }
    }

    /**
     * Drops indeterminate gets, and handles values that nothing observes (no completed operation returns them and no
     * compare-and-set expects them): a key holding one satisfies no check but "present" and "not what a
     * compare-and-set expected", as any other such value would, so all of them are replaced by one
     * {@link RegisterModel#UNOBSERVED}. Indeterminate writes of such values are dropped outright when the partition has
     * no {@code update} (which could turn an unobserved value into an observed one) and no compare-and-set answered a
     * bare {@code false} (which could need the key to hold something it does not expect): taking effect, such a
     * write only makes the next completed operation impossible until a later put or delete overwrites it.
     */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        Set<Object> observed = new HashSet<>();
        boolean keepUnobservedWrites = false;
        for (Operation op : ops) {
            observed(op, observed);
            keepUnobservedWrites |= op.function().equals("update")
                    || op.function().equals("cas") && Boolean.FALSE.equals(op.output());
        }
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op.isIndeterminate() && isReadOnly(op)) {
                continue;
            }
            Object w = written(op);
            if (w == null || observed.contains(w)) {
                out.add(op);
            } else if (op.isIndeterminate() && !keepUnobservedWrites) {
                continue;
            } else if (op.function().equals("cas")) {
                out.add(op.withInput(Arrays.asList(((List<?>) op.input()).get(0), RegisterModel.UNOBSERVED)));
            } else {
                out.add(op.withInput(RegisterModel.UNOBSERVED));
            }
        }
        return out;
    }

    /**
     * A completed operation that no state allows: one that observes a value no operation of its key writes (a get,
     * or the previous or current value a write or compare-and-set returned), a compare-and-set that succeeded
     * expecting such a value, one that succeeded reporting a previous value other than the one it expected, or one
     * that failed reporting the very value it expected. Absence is always possible (every key starts absent).
     */
    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        Set<Object> written = new HashSet<>();
        written.add(null);
        for (Operation op : ops) {
            Object w = written(op);
            if (w != null) {
                written.add(w);
            }
        }
        int best = -1;
        String why = null;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (!op.isOk() || best >= 0 && op.ret() >= ops.get(best).ret()) {
                continue;
            }
            String reason = impossibleAlone(op, written);
            if (reason != null) {
                best = i;
                why = reason;
            }
        }
        return best < 0 ? null : new ImpossibleOperation(best, why);
    }

    /** Why a completed operation is impossible in every state, as a phrase after "being a", or null. */
    private static String impossibleAlone(Operation op, Set<Object> written) {
        Object out = op.output();
        String unwritten = ", a value that no operation of this key writes";
        switch (op.function()) {
            case "get":
                return written.contains(out) ? null : "get of " + Values.show(out) + unwritten;
            case "cas":
                break;
            default:
                return written.contains(out) ? null : op.function() + " reporting " + Values.show(out)
                        + " as the value before" + unwritten;
        }
        Object expected = ((List<?>) op.input()).get(0);
        boolean ok = succeeded(out);
        Object reported = out instanceof List ? ((List<?>) out).get(1) : null;
        if (ok && !written.contains(expected)) {
            return "compare-and-set that succeeded expecting " + Values.show(expected) + unwritten;
        }
        if (ok && out instanceof List && !Objects.equals(expected, reported)) {
            return "compare-and-set that succeeded reporting " + show(reported) + " as the value before, not the "
                    + show(expected) + " it expected";
        }
        if (!ok && out instanceof List && Objects.equals(expected, reported)) {
            return "compare-and-set that failed reporting the very value it expected, " + show(expected);
        }
        if (!ok && out instanceof List && !written.contains(reported)) {
            return "compare-and-set that failed reporting " + Values.show(reported) + " as the current value"
                    + unwritten;
        }
        return null;
    }

    private static String show(Object v) {
        return v == null ? "absent" : Values.show(v);
    }

    @Override
    public String describeOperation(Operation op) {
        String k = op.key() == null ? "" : "[" + Values.show(op.key()) + "] ";
        boolean unknown = op.isIndeterminate();
        String ind = unknown ? " -> ? (indeterminate)" : "";
        Object out = op.output();
        switch (op.function()) {
            case "get":
                return k + "get -> " + (unknown ? "? (indeterminate)" : show(out));
            case "put":
            case "update":
                return k + op.function() + " " + Values.show(op.input())
                        + (unknown ? ind : out == null && op.function().equals("update")
                        ? " (was absent: nothing written)" : " (was " + show(out) + ")");
            case "delete":
                return k + "delete" + (unknown ? ind : " (was " + show(out) + ")");
            case "cas": {
                List<?> in = (List<?>) op.input();
                String head = k + "cas " + show(in.get(0)) + "->" + show(in.get(1));
                if (unknown) {
                    return head + ind;
                }
                if (succeeded(out)) {
                    return head + " = ok";
                }
                return head + " = mismatch" + (out instanceof List ? ", holds " + show(((List<?>) out).get(1)) : "");
            }
            default:
                return k + op.function();
        }
    }

    @Override
    public String describeState(Object state) {
        return show(Nil.unbox(state));
    }
}
