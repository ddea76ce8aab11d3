package dev.remora.check.model;

import dev.remora.check.Keyword;
import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Knossos's multi-register: named registers read and written by transactions. {@code :f :txn}
 * with a value such as {@code [[:read :x 1] [:write :y 2]]}; micro-operations apply in order;
 * a read of {@code nil} matches anything; registers start at the initial value. Transactions
 * span registers, so the history is not partitioned.
 */
public final class MultiRegisterModel implements Model<Map<Object, Object>> {
    private static final Keyword READ = new Keyword("read");
    private static final Keyword WRITE = new Keyword("write");
    private final Object init;

    /**
     * Creates the model.
     *
     * @param init every register's initial value
     */
    public MultiRegisterModel(Object init) {
        this.init = Values.normalize(init);
    }

    @Override
    public String name() {
        return "multi-register";
    }

    @Override
    public Map<Object, Object> init() {
        return Map.of();
    }

    @Override
    public Map<Object, Object> step(Map<Object, Object> state, Operation op) {
        List<?> txn = (List<?>) (op.isOk() && op.output() instanceof List ? op.output() : op.input());
        Map<Object, Object> next = null;
        for (Object o : txn) {
            List<?> m = (List<?>) o;
            Object k = m.get(1);
            Map<Object, Object> cur = next == null ? state : next;
            if (isRead(m.get(0))) {
                Object v = m.get(2);
                Object held = cur.containsKey(k) ? cur.get(k) : init;
                if (op.isOk() && v != null && !Objects.equals(held, v)) {
                    return null;
                }
            } else {
                if (next == null) {
                    next = new HashMap<>(state);
                }
                next.put(k, m.get(2));
            }
        }
        return next == null ? state : Collections.unmodifiableMap(next);
    }

    private static boolean isRead(Object f) {
        return READ.equals(f) || "read".equals(f) || "r".equals(f);
    }

    private static boolean isWrite(Object f) {
        return WRITE.equals(f) || "write".equals(f) || "w".equals(f);
    }

    @Override
    public String validate(Operation op) {
        if (!op.function().equals("txn")) {
            return "function txn for model multi-register, found :" + op.function();
        }
        for (Object v : new Object[] {op.input(), op.isOk() ? op.output() : null}) {
            if (v == null) {
                continue;
            }
            if (!(v instanceof List)) {
                return "txn value a vector of [:read k v] / [:write k v], found " + Values.show(v);
            }
            for (Object m : (List<?>) v) {
                if (!Values.isTuple(m, 3) || !(isRead(((List<?>) m).get(0)) || isWrite(((List<?>) m).get(0)))) {
                    return "micro-operation [:read k v] or [:write k v], found " + Values.show(m);
                }
            }
        }
        return null;
    }

    @Override
    public boolean isReadOnly(Operation op) {
        for (Object m : (List<?>) op.input()) {
            if (!isRead(((List<?>) m).get(0))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        Set<List<Object>> written = new HashSet<>();
        for (Operation op : ops) {
            for (Object o : (List<?>) op.input()) {
                List<?> m = (List<?>) o;
                if (isWrite(m.get(0))) {
                    written.add(Arrays.asList(m.get(1), m.get(2)));
                }
            }
        }
        int best = -1;
        String why = null;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (!op.isOk() || !(op.output() instanceof List) || best >= 0 && op.ret() >= ops.get(best).ret()) {
                continue;
            }
            for (Object o : (List<?>) op.output()) {
                List<?> m = (List<?>) o;
                if (isRead(m.get(0)) && m.get(2) != null && !Objects.equals(m.get(2), init)
                        && !written.contains(Arrays.asList(m.get(1), m.get(2)))) {
                    best = i;
                    why = "read of " + Values.show(m.get(2)) + " from register " + Values.show(m.get(1))
                            + ", a value that no transaction writes there";
                    break;
                }
            }
        }
        return best < 0 ? null : new ImpossibleOperation(best, why);
    }

    @Override
    public List<List<Operation>> partition(List<Operation> ops) {
        return List.of(ops);
    }

    @Override
    public int stateBytes(Map<Object, Object> state) {
        return 48 + 48 * state.size();
    }
}
