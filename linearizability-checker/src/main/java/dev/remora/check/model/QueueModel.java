package dev.remora.check.model;

import dev.remora.check.ImpossibleOperation;
import dev.remora.check.Model;
import dev.remora.check.Operation;
import dev.remora.check.Values;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A FIFO queue per key: {@code enqueue x} appends {@code x}; {@code dequeue} with output
 * {@code x} needs {@code x} at the head and removes it; a dequeue with output {@code nil} needs
 * the queue empty. An indeterminate dequeue removes the head, whatever it is.
 */
public final class QueueModel implements Model<List<Object>> {
    @Override
    public String name() {
        return "queue";
    }

    @Override
    public List<Object> init() {
        return List.of();
    }

    @Override
    public List<Object> step(List<Object> state, Operation op) {
        switch (op.function()) {
            case "enqueue": {
                if (op.input() instanceof Observed && !((Observed) op.input()).mayFollow(state)) {
                    return null;
                }
                Object[] next = state.toArray(new Object[state.size() + 1]);
                next[state.size()] = op.input();
                return Collections.unmodifiableList(Arrays.asList(next));
            }
            case "dequeue": {
                Object out = op.output();
                if (state.isEmpty()) {
                    return out == null ? state : null;
                }
                if (out != Operation.UNKNOWN && !Objects.equals(plain(state.get(0)), out)) {
                    return null;
                }
                if (op.input() == TAKES_UNOBSERVED && state.get(0) != UNOBSERVED) {
                    return null;
                }
                return Collections.unmodifiableList(Arrays.asList(
                        state.subList(1, state.size()).toArray()));
            }
            default:
                return null;
        }
    }

    @Override
    public String validate(Operation op) {
        String f = op.function();
        return f.equals("enqueue") || f.equals("dequeue") ? null
                : "function enqueue or dequeue for model queue, found :" + f;
    }

    @Override
    public boolean isReadOnly(Operation op) {
        return false;
    }

    @Override
    public ImpossibleOperation impossible(List<Operation> ops) {
        Set<Object> enqueued = new HashSet<>();
        for (Operation op : ops) {
            if (op.function().equals("enqueue")) {
                enqueued.add(plain(op.input()));
            }
        }
        int best = -1;
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.isOk() && op.function().equals("dequeue") && op.output() != null && !enqueued.contains(op.output())
                    && (best < 0 || op.ret() < ops.get(best).ret())) {
                best = i;
            }
        }
        if (best >= 0) {
            return new ImpossibleOperation(best, "dequeue of " + Values.show(ops.get(best).output())
                    + ", a value that no operation enqueues");
        }
        return overtaking(ops);
    }

    /**
     * Finds a completed dequeue that FIFO order rules out, given a value {@code x} known to be in
     * the queue throughout it: {@code x}'s enqueue completed before the dequeue's window began
     * and {@code x}'s only dequeue began after the window ended. The dequeue is either one of a
     * value {@code y} that overtakes {@code x} (its window runs from the invocation of
     * {@code y}'s enqueue to its own completion) or one that found the queue empty (its window is
     * its own span). Only values tagged {@link Observed} by {@link #prepare} (enqueued and
     * dequeued once, with no indeterminate dequeue able to take them) serve as {@code x}, so the
     * finding is certain. Of several, the dequeue that completes first is reported. A sweep over
     * the enqueues by completion, in O(n log n).
     */
    private static ImpossibleOperation overtaking(List<Operation> ops) {
        Map<Object, Integer> dequeueAt = new HashMap<>();
        List<Integer> tagged = new ArrayList<>();
        List<long[]> windows = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op.isOk() && op.function().equals("dequeue") && op.output() != null) {
                dequeueAt.put(op.output(), i);
            } else if (op.isOk() && op.function().equals("dequeue")) {
                windows.add(new long[] {op.call(), op.ret(), i});
            } else if (op.function().equals("enqueue") && op.input() instanceof Observed) {
                tagged.add(i);
            }
        }
        for (int i : tagged) {
            Observed y = tag(ops, i);
            windows.add(new long[] {ops.get(i).call(), y.dequeueRet, dequeueAt.get(y.value)});
        }
        if (tagged.isEmpty()) {
            return null;
        }
        Integer[] byRet = tagged.toArray(new Integer[0]);
        Arrays.sort(byRet, (a, b) -> Long.compare(ops.get(a).ret(), ops.get(b).ret()));
        windows.sort((a, b) -> Long.compare(a[0], b[0]));
        int k = 0;
        int ahead = -1;
        int bestDequeue = -1;
        int bestAhead = -1;
        for (long[] w : windows) {
            while (k < byRet.length && ops.get(byRet[k]).ret() < w[0]) {
                int x = byRet[k++];
                if (ahead < 0 || tag(ops, x).dequeueCall > tag(ops, ahead).dequeueCall) {
                    ahead = x;
                }
            }
            int d = (int) w[2];
            if (ahead >= 0 && tag(ops, ahead).dequeueCall > w[1]
                    && (bestDequeue < 0 || ops.get(d).ret() < ops.get(bestDequeue).ret())) {
                bestDequeue = d;
                bestAhead = ahead;
            }
        }
        if (bestDequeue < 0) {
            return null;
        }
        Operation x = ops.get(bestAhead);
        Object y = ops.get(bestDequeue).output();
        String still = ", and the only dequeue of " + x.input() + " (line "
                + ops.get(dequeueAt.get(plain(x.input()))).callLine() + ") began after this one completed";
        return new ImpossibleOperation(bestDequeue, y == null
                ? "dequeue that finds the queue empty while it holds " + x.input() + ": the enqueue of " + x.input()
                        + " (line " + x.callLine() + ") completed before this dequeue began" + still
                : "dequeue of " + Values.show(y) + " that overtakes " + x.input() + ": the enqueue of " + x.input()
                        + " (line " + x.callLine() + ") completed before the enqueue of " + Values.show(y)
                        + " began" + still);
    }

    private static Observed tag(List<Operation> ops, int i) {
        return (Observed) ops.get(i).input();
    }

    /** Stands for every enqueued value that no completed dequeue returns. */
    static final Object UNOBSERVED = new Object() {
        @Override
        public String toString() {
            return "<unobserved>";
        }
    };

    /** Marks an indeterminate dequeue that may only take an {@link #UNOBSERVED} value. */
    static final Object TAKES_UNOBSERVED = new Object() {
        @Override
        public String toString() {
            return "<takes-unobserved>";
        }
    };

    /**
     * An observed value in the queue, with the positions of the one completed dequeue that
     * returns it. When every observed value is enqueued once and dequeued once, FIFO order
     * says that a value enqueued behind another is dequeued after it; so a value whose dequeue
     * completed before the other's was invoked can never be enqueued behind it, and the search
     * is told so at the enqueue rather than finding it out many steps later at the dequeues.
     * Without this, concurrent enqueues that long precede their dequeues give the search one
     * queue order for each interleaving, and a history whose queue grows to twenty values
     * explodes.
     */
    static final class Observed {
        final Object value;
        final long dequeueCall;
        final long dequeueRet;

        Observed(Object value, long dequeueCall, long dequeueRet) {
            this.value = value;
            this.dequeueCall = dequeueCall;
            this.dequeueRet = dequeueRet;
        }

        /** Whether this value may be enqueued behind every value in {@code queue}. */
        boolean mayFollow(List<Object> queue) {
            for (Object o : queue) {
                if (o instanceof Observed && dequeueRet < ((Observed) o).dequeueCall) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Observed && Objects.equals(value, ((Observed) o).value);
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(value);
        }

        @Override
        public String toString() {
            return Values.show(value);
        }
    }

    private static Object plain(Object v) {
        return v instanceof Observed ? ((Observed) v).value : v;
    }

    /**
     * Simplifies the partition without changing its verdict. Values that no completed dequeue
     * returns are interchangeable, so they become {@link #UNOBSERVED}; indeterminate enqueues of
     * them are dropped (such a value could only block the queue, or be taken by an indeterminate
     * dequeue, which is the same as neither happening). When every observed value is enqueued once,
     * an indeterminate dequeue that took a value some completed dequeue returns would make that
     * dequeue impossible, so it is restricted to taking unobserved values, and (when each is also
     * dequeued once) the enqueues carry their dequeue's positions as {@link Observed} values.
     * (Only the observed values need be distinct.) Applying it to its own output recomputes all
     * of this, as the failure explainer does on cut histories.
     */
    @Override
    public List<Operation> prepare(List<Operation> ops) {
        Map<Object, Operation> dequeuedBy = new HashMap<>();
        Set<Object> twice = new HashSet<>();
        Set<Object> enqueued = new HashSet<>();
        boolean unique = true;
        for (Operation op : ops) {
            if (op.isOk() && op.function().equals("dequeue") && op.output() != null
                    && dequeuedBy.put(op.output(), op) != null) {
                twice.add(op.output());
            }
        }
        for (Operation op : ops) {
            Object v = plain(op.input());
            if (op.function().equals("enqueue") && dequeuedBy.containsKey(v)) {
                unique &= enqueued.add(v);
            }
        }
        List<Operation> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            Object v = plain(op.input());
            if (op.function().equals("enqueue") && !dequeuedBy.containsKey(v)) {
                if (op.isOk()) {
                    out.add(op.withInput(UNOBSERVED));
                }
            } else if (op.function().equals("enqueue")) {
                Operation d = dequeuedBy.get(v);
                out.add(op.withInput(unique && !twice.contains(v) ? new Observed(v, d.call(), d.ret()) : v));
            } else if (op.function().equals("dequeue") && op.isIndeterminate() && unique) {
                out.add(op.withInput(TAKES_UNOBSERVED));
            } else {
                out.add(op);
            }
        }
        return out;
    }

    @Override
    public String describeState(List<Object> state) {
        return Values.show(state);
    }

    @Override
    public int stateBytes(List<Object> state) {
        return 32 + 8 * state.size();
    }
}
