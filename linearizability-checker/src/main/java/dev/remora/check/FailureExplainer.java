package dev.remora.check;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Explains a partition that is not linearizable, in three steps: the shortest failing prefix of
 * the partition (found by bisection over completion positions, cutting operations that complete
 * later into indeterminate ones); the longest partial linearization of that prefix and the
 * operation whose completion it cannot reach; and the smallest window: a contiguous stretch of
 * the prefix's end, such that every operation invoked before it is summed up by the state that
 * the partial linearization reaches over those operations, and the operations of the stretch
 * still cannot be linearized from that state. (The window is thus minimal given the partial
 * linearization's order of the earlier operations; other orders of them were already ruled out
 * by the search.) Every search it runs honours the check's deadline and may use the check's
 * whole memory limit (the other partitions' searches are released by then).
 *
 * @param <S> the model's state type
 */
final class FailureExplainer<S> {
    private static final int MAX_WINDOW_TRIES = 256;

    private final Model<S> model;
    private final Budget budget;

    FailureExplainer(Model<S> model, Budget budget) {
        this.model = model;
        this.budget = budget;
    }

    private SearchOutcome run(S init, List<Operation> ops) {
        return search(init, ops, false).run();
    }

    private WglSearch<S> search(S init, List<Operation> ops, boolean record) {
        WglSearch<S> s = new WglSearch<>(model, init, ops, budget, record);
        s.memoryLimitBytes(budget.memoryLimitBytes());
        return s;
    }

    /** Operations of {@code ops} invoked at or before {@code t}; those completing after it become indeterminate. */
    private List<Operation> cut(List<Operation> ops, long t) {
        List<Operation> out = new ArrayList<>();
        for (Operation op : ops) {
            if (op.call() > t) {
                continue;
            }
            if (op.ret() > t) {
                Operation c = op.isIndeterminate() ? op : op.with(op.id(), Operation.INFINITY, Operation.UNKNOWN);
                if (!model.isReadOnly(c)) {
                    out.add(c);
                }
            } else {
                out.add(op);
            }
        }
        return model.prepare(out);
    }

    /**
     * Explains why a partition is not linearizable.
     *
     * @param part       the partition's prepared operations
     * @param original   the partition's operations as read (reports show these)
     * @param impossible an operation {@link Model#impossible} found, or {@code null}
     * @param window     whether to find the shortest failing prefix and the smallest window
     * @return the failure
     */
    Failure explain(List<Operation> part, List<Operation> original, ImpossibleOperation impossible, boolean window) {
        if (impossible != null) {
            Failure f = explainImpossible(part, original, impossible);
            if (f != null) {
                return f;
            }
        }
        List<Operation> prefix = part;
        if (window) {
            long[] rets = part.stream().filter(Operation::isOk).mapToLong(Operation::ret).sorted().distinct().toArray();
            int lo = 0;
            int hi = rets.length - 1;
            boolean complete = true;
            while (lo < hi) {
                if (budget.expired() != null) {
                    complete = false;
                    break;
                }
                int mid = (lo + hi) >>> 1;
                SearchOutcome r = run(model.init(), cut(part, rets[mid]));
                if (r == SearchOutcome.STOPPED) {
                    complete = false;
                    break;
                }
                if (r == SearchOutcome.NOT_LINEARIZABLE) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if (complete && rets.length > 0) {
                prefix = cut(part, rets[hi]);
            }
        }
        WglSearch<S> rec = search(model.init(), prefix, true);
        rec.run();
        int[] lin = rec.bestLinearization();
        List<Operation> partial = new ArrayList<>(lin.length);
        List<String> states = new ArrayList<>(lin.length + 1);
        List<S> stateValues = new ArrayList<>(lin.length + 1);
        S s = model.init();
        states.add(model.describeState(s));
        stateValues.add(s);
        for (int i : lin) {
            Operation op = prefix.get(i);
            partial.add(op);
            s = model.step(s, op);
            states.add(model.describeState(s));
            stateValues.add(s);
        }
        Operation blocking = rec.blocking() >= 0 ? prefix.get(rec.blocking()) : null;
        int k = 0;
        if (window && budget.expired() == null) {
            // A candidate k is a contiguous window when every one of the first k steps was invoked
            // before every completed operation left in the window; checked in O(1) per k.
            int np = partial.size();
            long[] prefixMaxCall = new long[np + 1];
            prefixMaxCall[0] = Long.MIN_VALUE;
            for (int i = 0; i < np; i++) {
                prefixMaxCall[i + 1] = Math.max(prefixMaxCall[i], partial.get(i).call());
            }
            Set<Operation> inPartial = Collections.newSetFromMap(new IdentityHashMap<>());
            inPartial.addAll(partial);
            long restMinOkCall = Long.MAX_VALUE;
            for (Operation op : prefix) {
                if (op.isOk() && !inPartial.contains(op)) {
                    restMinOkCall = Math.min(restMinOkCall, op.call());
                }
            }
            int tries = 0;
            for (int cand = np; cand > 0 && tries < MAX_WINDOW_TRIES && budget.expired() == null; cand--) {
                Operation joining = partial.get(cand - 1);
                if (prefixMaxCall[cand] >= restMinOkCall) {
                    if (joining.isOk()) {
                        restMinOkCall = Math.min(restMinOkCall, joining.call());
                    }
                    continue;
                }
                tries++;
                SearchOutcome r = run(stateValues.get(cand), without(prefix, partial, cand));
                if (r == SearchOutcome.STOPPED) {
                    break;
                }
                if (r == SearchOutcome.NOT_LINEARIZABLE) {
                    k = cand;
                    break;
                }
                if (joining.isOk()) {
                    restMinOkCall = Math.min(restMinOkCall, joining.call());
                }
            }
        }
        Map<Integer, Operation> byId = new HashMap<>();
        for (Operation op : original) {
            byId.put(op.id(), op);
        }
        List<Operation> win = new ArrayList<>();
        for (Operation op : without(prefix, partial, k)) {
            win.add(byId.getOrDefault(op.id(), op));
        }
        List<Operation> origPartial = new ArrayList<>(partial.size());
        List<String> origStates = new ArrayList<>(states.size());
        S os = model.init();
        origStates.add(model.describeState(os));
        for (int i = 0; i < partial.size(); i++) {
            Operation op = byId.getOrDefault(partial.get(i).id(), partial.get(i));
            origPartial.add(op);
            os = os == null ? null : model.step(os, op);
            origStates.add(os == null ? states.get(i + 1) : model.describeState(os));
        }
        Operation origBlocking = blocking == null ? null : byId.getOrDefault(blocking.id(), blocking);
        String reason;
        Object key = original.isEmpty() ? null : original.get(0).key();
        String where = key == null ? "" : " on key " + Values.show(key);
        if (origBlocking == null) {
            reason = "no linearization found" + where;
        } else {
            String d = model.describeOperation(origBlocking) + " (process " + Values.show(origBlocking.process())
                    + ", line " + origBlocking.callLine() + ")";
            S after = stateValues.get(stateValues.size() - 1);
            boolean possible = model.step(after, blocking) != null;
            reason = "cannot linearize " + d + where + ": the longest partial linearization (" + partial.size()
                    + " operations) ends in state " + origStates.get(origStates.size() - 1) + ", where it "
                    + (possible ? "is possible but leaves no order for the operations that must precede it"
                    : "is impossible") + ", and every other order fails earlier";
            if (budget.expired() != null) {
                reason += " (explanation cut short: " + budget.expired() + ")";
            }
        }
        return new Failure(key, original, origBlocking, origPartial, origStates, win, k, reason);
    }

    /**
     * Explains an operation that is impossible in every state: the partial linearization is a
     * full linearization of what precedes its completion, and the window is the operation alone.
     */
    private Failure explainImpossible(List<Operation> part, List<Operation> original, ImpossibleOperation impossible) {
        Operation bad = part.get(impossible.index());
        List<Operation> others = new ArrayList<>(part);
        // The impossible operation may still have had an effect (a dequeue, a transaction's
        // writes): keep it as an indeterminate operation.
        others.set(impossible.index(), bad.with(bad.id(), Operation.INFINITY, Operation.UNKNOWN));
        List<Operation> before = cut(others, bad.ret());
        WglSearch<S> rec = search(model.init(), before, true);
        if (rec.run() != SearchOutcome.LINEARIZABLE) {
            return null;
        }
        Map<Integer, Operation> byId = new HashMap<>();
        for (Operation op : original) {
            byId.put(op.id(), op);
        }
        List<Operation> partial = new ArrayList<>();
        List<String> states = new ArrayList<>();
        S s = model.init();
        S os = s;
        states.add(model.describeState(s));
        for (int i : rec.bestLinearization()) {
            Operation op = byId.getOrDefault(before.get(i).id(), before.get(i));
            s = model.step(s, before.get(i));
            os = os == null ? null : model.step(os, op);
            partial.add(op);
            states.add(model.describeState(os != null ? os : s));
        }
        Operation origBad = byId.getOrDefault(bad.id(), bad);
        Object key = original.isEmpty() ? null : original.get(0).key();
        String reason = "cannot linearize " + model.describeOperation(origBad) + " (process "
                + Values.show(origBad.process()) + ", line " + origBad.callLine() + ")"
                + (key == null ? "" : " on key " + Values.show(key)) + ": it is impossible in every state, being a "
                + impossible.reason();
        return new Failure(key, original, origBad, partial, states, List.of(origBad), partial.size(), reason);
    }

    private static List<Operation> without(List<Operation> ops, List<Operation> partial, int k) {
        if (k == 0) {
            return ops;
        }
        Set<Operation> drop = Collections.newSetFromMap(new IdentityHashMap<>());
        drop.addAll(partial.subList(0, k));
        List<Operation> out = new ArrayList<>(ops.size() - k);
        for (Operation op : ops) {
            if (!drop.contains(op)) {
                out.add(op);
            }
        }
        return out;
    }
}
