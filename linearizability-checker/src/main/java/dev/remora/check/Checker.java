package dev.remora.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Checks histories for linearizability against a {@link Model}.
 *
 * <p>The history is split into the model's partitions, which are searched in parallel, the
 * largest first, each with {@link WglSearch}. The verdict is deterministic: a partition's result
 * does not depend on scheduling, and a failure reports the failing partition that comes first
 * in the history. A time or memory limit stops all searches promptly (they poll every few
 * thousand steps) and gives {@link Verdict#UNKNOWN} with the cause; when a failure was found,
 * running out of time while explaining it still gives {@link Verdict#NOT_LINEARIZABLE}, with as
 * much explanation as was computed.
 *
 * <p>A failure is explained in three steps: the shortest failing prefix of the partition (found
 * by bisection over completion positions, cutting operations that complete later into
 * indeterminate ones); the longest partial linearization of that prefix and the operation whose
 * completion it cannot reach; and the smallest window: a contiguous stretch of the prefix's
 * end, such that every operation invoked before it is summed up by the state that the partial
 * linearization reaches over those operations, and the operations of the stretch still cannot be
 * linearized from that state. (The window is thus minimal given the partial linearization's
 * order of the earlier operations; other orders of them were already ruled out by the search.)
 */
public final class Checker {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "remora-check");
        t.setDaemon(true);
        return t;
    });

    private static final int MAX_WINDOW_TRIES = 256;

    private Checker() {
    }

    /**
     * Rejects operations whose shape does not fit the model.
     *
     * @param history the history
     * @param model   the model
     * @throws MalformedHistoryException naming the first bad operation's line and what was expected
     */
    public static void validate(History history, Model<?> model) throws MalformedHistoryException {
        for (Operation op : history.operations()) {
            String err = model.validate(op);
            if (err != null) {
                throw new MalformedHistoryException(history.source(), op.callLine(), "expected " + err);
            }
        }
    }

    /**
     * Checks a history with default options.
     *
     * @param history the history, already {@linkplain #validate validated}
     * @param model   the model
     * @param <S>     the model's state type
     * @return the result
     */
    public static <S> CheckResult check(History history, Model<S> model) {
        return check(history, model, CheckOptions.DEFAULTS);
    }

    /**
     * Checks a history.
     *
     * @param history the history, already {@linkplain #validate validated}
     * @param model   the model
     * @param options limits and switches
     * @param <S>     the model's state type
     * @return the result
     */
    public static <S> CheckResult check(History history, Model<S> model, CheckOptions options) {
        long start = System.nanoTime();
        long mem = options.memoryLimitBytes();
        if (mem <= 0) {
            Runtime rt = Runtime.getRuntime();
            mem = Math.max(16L << 20, (rt.maxMemory() - (rt.totalMemory() - rt.freeMemory())) / 2);
        }
        Budget budget = new Budget(start, options.timeLimitNs(), mem);
        List<List<Operation>> parts = model.partition(history.operations());
        int np = parts.size();
        int[] outcome = new int[np];
        long[] explored = new long[np];
        java.util.concurrent.atomic.AtomicReferenceArray<List<Operation>> prepared =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(np);
        java.util.concurrent.atomic.AtomicReferenceArray<java.util.Map.Entry<Integer, String>> impossible =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(np);
        Integer[] order = new Integer[np];
        for (int i = 0; i < np; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt((Integer i) -> -parts.get(i).size()).thenComparingInt(i -> i));
        AtomicInteger nextTask = new AtomicInteger();
        Runnable worker = () -> {
            int t;
            while ((t = nextTask.getAndIncrement()) < np) {
                int p = order[t];
                if (budget.expired() != null) {
                    outcome[p] = WglSearch.STOPPED;
                    continue;
                }
                try {
                    List<Operation> prep = model.prepare(parts.get(p));
                    prepared.set(p, prep);
                    java.util.Map.Entry<Integer, String> bad = model.impossible(prep);
                    if (bad != null) {
                        impossible.set(p, bad);
                        outcome[p] = WglSearch.NOT_LINEARIZABLE;
                        continue;
                    }
                    WglSearch<S> s = new WglSearch<>(model, model.init(), prep, budget, false);
                    outcome[p] = s.run();
                    explored[p] = s.explored();
                } catch (OutOfMemoryError e) {
                    budget.stop("memory limit reached (heap exhausted)");
                    outcome[p] = WglSearch.STOPPED;
                }
            }
        };
        int threads = Math.min(options.parallelism(), np);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 1; i < threads; i++) {
            futures.add(POOL.submit(worker));
        }
        worker.run();
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                budget.stop("interrupted");
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("partition search failed", e.getCause());
            }
        }
        long total = Arrays.stream(explored).sum();
        int opCount = 0;
        for (int i = 0; i < np; i++) {
            opCount += prepared.get(i) == null ? 0 : prepared.get(i).size();
        }
        int failed = -1;
        boolean stopped = false;
        for (int i = 0; i < np; i++) {
            if (outcome[i] == WglSearch.NOT_LINEARIZABLE && failed < 0) {
                failed = i;
            }
            stopped |= outcome[i] == WglSearch.STOPPED;
        }
        if (failed >= 0) {
            Failure f;
            if (options.explain()) {
                f = explain(model, prepared.get(failed), parts.get(failed), impossible.get(failed), budget, true);
            } else {
                List<Operation> part = parts.get(failed);
                Object key = part.isEmpty() ? null : part.get(0).key();
                f = new Failure(key, part, null, List.of(), List.of(model.describeState(model.init())), List.of(), 0,
                        "not linearizable" + (key == null ? "" : " on key " + Values.show(key))
                                + " (explanation not requested)");
            }
            return new CheckResult(Verdict.NOT_LINEARIZABLE, null, f, opCount, np, total, System.nanoTime() - start);
        }
        if (stopped) {
            String cause = budget.expired();
            return new CheckResult(Verdict.UNKNOWN, cause == null ? "stopped" : cause, null, opCount, np, total,
                    System.nanoTime() - start);
        }
        return new CheckResult(Verdict.LINEARIZABLE, null, null, opCount, np, total, System.nanoTime() - start);
    }

    private static <S> int run(Model<S> model, S init, List<Operation> ops, Budget budget) {
        return new WglSearch<>(model, init, ops, budget, false).run();
    }

    /** Operations of {@code ops} invoked at or before {@code t}; those completing after it become indeterminate. */
    private static <S> List<Operation> cut(Model<S> model, List<Operation> ops, long t) {
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

    private static <S> Failure explain(Model<S> model, List<Operation> part, List<Operation> original,
                                       java.util.Map.Entry<Integer, String> impossible, Budget budget, boolean window) {
        if (impossible != null) {
            Failure f = explainImpossible(model, part, original, impossible, budget);
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
                int r = run(model, model.init(), cut(model, part, rets[mid]), budget);
                if (r == WglSearch.STOPPED) {
                    complete = false;
                    break;
                }
                if (r == WglSearch.NOT_LINEARIZABLE) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if (complete && rets.length > 0) {
                prefix = cut(model, part, rets[hi]);
            }
        }
        WglSearch<S> rec = new WglSearch<>(model, model.init(), prefix, budget, true);
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
            java.util.Set<Operation> inPartial = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
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
                int r = run(model, stateValues.get(cand), without(prefix, partial, cand), budget);
                if (r == WglSearch.STOPPED) {
                    break;
                }
                if (r == WglSearch.NOT_LINEARIZABLE) {
                    k = cand;
                    break;
                }
                if (joining.isOk()) {
                    restMinOkCall = Math.min(restMinOkCall, joining.call());
                }
            }
        }
        java.util.Map<Integer, Operation> byId = new java.util.HashMap<>();
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
    private static <S> Failure explainImpossible(Model<S> model, List<Operation> part, List<Operation> original,
                                                 java.util.Map.Entry<Integer, String> impossible, Budget budget) {
        Operation bad = part.get(impossible.getKey());
        List<Operation> others = new ArrayList<>(part);
        // The impossible operation may still have had an effect (a dequeue, a transaction's
        // writes): keep it as an indeterminate operation.
        others.set(impossible.getKey(), bad.with(bad.id(), Operation.INFINITY, Operation.UNKNOWN));
        List<Operation> before = cut(model, others, bad.ret());
        WglSearch<S> rec = new WglSearch<>(model, model.init(), before, budget, true);
        if (rec.run() != WglSearch.LINEARIZABLE) {
            return null;
        }
        java.util.Map<Integer, Operation> byId = new java.util.HashMap<>();
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
                + impossible.getValue();
        return new Failure(key, original, origBad, partial, states, List.of(origBad), partial.size(), reason);
    }

    private static List<Operation> without(List<Operation> ops, List<Operation> partial, int k) {
        if (k == 0) {
            return ops;
        }
        java.util.Set<Operation> drop = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
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
