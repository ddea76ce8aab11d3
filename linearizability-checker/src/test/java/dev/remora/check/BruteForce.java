package dev.remora.check;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle: tries every order of the operations that respects real time (an operation may go
 * next only if no unplaced completed operation returned before it was called); indeterminate
 * operations may be placed or left out. The state is a map from key to the model's state, so
 * the oracle does not rely on partitioning. Only for tiny histories.
 */
final class BruteForce {
    private BruteForce() {
    }

    static <S> boolean linearizable(Model<S> model, List<Operation> ops) {
        return search(model, ops, new boolean[ops.size()], new HashMap<>());
    }

    private static <S> boolean search(Model<S> model, List<Operation> ops, boolean[] used, Map<Object, S> state) {
        boolean allOkUsed = true;
        long minRet = Long.MAX_VALUE;
        for (int i = 0; i < ops.size(); i++) {
            if (!used[i] && ops.get(i).isOk()) {
                allOkUsed = false;
                minRet = Math.min(minRet, ops.get(i).ret());
            }
        }
        if (allOkUsed) {
            return true;
        }
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (used[i] || op.call() > minRet) {
                continue;
            }
            Object key = op.key() == null ? Nil.NIL : op.key();
            S cur = state.containsKey(key) ? state.get(key) : model.init();
            S next = model.step(cur, op);
            if (next == null) {
                continue;
            }
            Map<Object, S> st = new HashMap<>(state);
            st.put(key, next);
            used[i] = true;
            boolean ok = search(model, ops, used, st);
            used[i] = false;
            if (ok) {
                return true;
            }
        }
        return false;
    }
}
