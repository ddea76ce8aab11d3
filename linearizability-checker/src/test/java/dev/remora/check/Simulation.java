package dev.remora.check;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * Runs random operations of concurrent processes against a real sequential object, with
 * random timing: every operation takes effect atomically at a random moment between its
 * invocation and its completion, so the recorded history is linearizable by construction. A
 * process may crash (the operation becomes {@code :info}, having taken effect or not) and is
 * replaced by a fresh process id.
 */
final class Simulation {
    /** A real object: generates operations and applies them, returning outputs. */
    interface RealObject {
        String model();

        /** @return {f, key, input} */
        Object[] nextOp(Random r);

        Object apply(String f, Object key, Object input);

        /** @return a copy of {@code output} of a read-like f changed to a value never written, or null if f is not a read */
        Object neverWritten(String f, Object output);
    }

    static RealObject object(String model) {
        switch (model) {
            case "register": return new Reg(false);
            case "cas-register": return new Reg(true);
            case "kv": return new Kv();
            case "map": return new MapObj(3);
            case "counter": return new Counter();
            case "set": return new SetObj();
            case "queue": return new Queue();
            case "multi-register": return new Multi();
            case "mutex": return new Mutex();
            default: throw new IllegalArgumentException(model);
        }
    }

    static final List<String> MODELS = List.of("register", "cas-register", "kv", "counter", "set", "queue",
            "multi-register", "mutex", "map");

    /**
     * Simulates a run.
     *
     * @param obj        the object
     * @param r          randomness
     * @param processes  concurrent processes
     * @param ops        operations to issue
     * @param crashPct   percent of operations whose process crashes
     * @return the events, in order
     */
    static List<Event> run(RealObject obj, Random r, int processes, int ops, int crashPct) {
        List<Event> events = new ArrayList<>();
        long[] proc = new long[processes];
        for (int i = 0; i < processes; i++) {
            proc[i] = i;
        }
        long nextProc = processes;
        Object[][] inflight = new Object[processes][];
        int[] phase = new int[processes];
        Object[] out = new Object[processes];
        int issued = 0;
        int active = 0;
        long time = 0;
        while (issued < ops || active > 0) {
            if (time > 100L * ops + 1000) {
                break; // operations still in flight never complete: they stay indeterminate
            }
            int p = r.nextInt(processes);
            time += 1 + r.nextInt(3);
            if (inflight[p] == null) {
                if (issued >= ops) {
                    continue;
                }
                Object[] op = obj.nextOp(r);
                if (op == null) {
                    continue;
                }
                inflight[p] = op;
                phase[p] = 0;
                issued++;
                active++;
                events.add(new Event(proc[p], EventType.INVOKE, (String) op[0], op[1], op[2], time, events.size() + 1));
            } else if (phase[p] == 0) {
                if (r.nextInt(100) < crashPct / 2) {
                    crash(events, proc, p, inflight, time);
                    proc[p] = nextProc++;
                    active--;
                    continue;
                }
                Object[] op = inflight[p];
                out[p] = obj.apply((String) op[0], op[1], op[2]);
                phase[p] = 1;
            } else {
                Object[] op = inflight[p];
                if (r.nextInt(100) < crashPct / 2) {
                    crash(events, proc, p, inflight, time);
                    proc[p] = nextProc++;
                } else {
                    events.add(new Event(proc[p], EventType.OK, (String) op[0], op[1], out[p], time, events.size() + 1));
                    inflight[p] = null;
                }
                active--;
            }
        }
        return events;
    }

    private static void crash(List<Event> events, long[] proc, int p, Object[][] inflight, long time) {
        Object[] op = inflight[p];
        events.add(new Event(proc[p], EventType.INFO, (String) op[0], op[1], op[2], time, events.size() + 1));
        inflight[p] = null;
    }

    static final class Reg implements RealObject {
        final boolean cas;
        Object v;

        Reg(boolean cas) {
            this.cas = cas;
        }

        public String model() {
            return cas ? "cas-register" : "register";
        }

        public Object[] nextOp(Random r) {
            int k = r.nextInt(cas ? 3 : 2);
            if (k == 0) {
                return new Object[] {"read", null, null};
            }
            if (k == 1) {
                return new Object[] {"write", null, (long) r.nextInt(5)};
            }
            return new Object[] {"cas", null, List.of((long) r.nextInt(5), (long) r.nextInt(5))};
        }

        public Object apply(String f, Object key, Object input) {
            switch (f) {
                case "read": return v;
                case "write": v = input; return input;
                default:
                    List<?> l = (List<?>) input;
                    if (Objects.equals(v, l.get(0))) {
                        v = l.get(1);
                        return Boolean.TRUE;
                    }
                    return Boolean.FALSE;
            }
        }

        public Object neverWritten(String f, Object output) {
            return f.equals("read") ? (Object) 1_000_000L : null;
        }
    }

    static final class Kv implements RealObject {
        final Map<Object, Object> m = new HashMap<>();
        int n;

        public String model() {
            return "kv";
        }

        public Object[] nextOp(Random r) {
            String key = "k" + r.nextInt(3);
            switch (r.nextInt(4)) {
                case 0: return new Object[] {"get", key, null};
                case 1: return new Object[] {"put", key, "v" + (n++)};
                case 2: return new Object[] {"append", key, "x" + (n++) + ";"};
                default: return new Object[] {"cas", key, List.of(r.nextBoolean() ? "" : "v" + r.nextInt(n + 1), "c" + (n++))};
            }
        }

        public Object apply(String f, Object key, Object input) {
            Object cur = m.getOrDefault(key, "");
            switch (f) {
                case "get": return cur;
                case "put": m.put(key, input); return input;
                case "append": m.put(key, cur + (String) input); return input;
                default:
                    List<?> l = (List<?>) input;
                    if (cur.equals(l.get(0))) {
                        m.put(key, l.get(1));
                        return Boolean.TRUE;
                    }
                    return Boolean.FALSE;
            }
        }

        public Object neverWritten(String f, Object output) {
            return f.equals("get") ? "never-written" : null;
        }
    }

    /**
     * A map whose writes return the value they replaced ({@code null} for absent); a compare-and-set answers
     * {@code [true previous]} or {@code [false current]}, or, for one in three inputs, a bare {@code true} or
     * {@code false}, as a recorder that does not see the current value would write it.
     */
    static final class MapObj implements RealObject {
        final Map<Object, Object> m = new HashMap<>();
        final int keys;
        int n;

        MapObj(int keys) {
            this.keys = keys;
        }

        public String model() {
            return "map";
        }

        public Object[] nextOp(Random r) {
            String key = "k" + r.nextInt(keys);
            switch (r.nextInt(5)) {
                case 0: return new Object[] {"get", key, null};
                case 1: return new Object[] {"put", key, "v" + (n++)};
                case 2: return new Object[] {"update", key, "u" + (n++)};
                case 3: return new Object[] {"delete", key, null};
                default: {
                    int e = r.nextInt(3);
                    Object expected = e == 0 ? null : e == 1 ? m.get(key) : "v" + r.nextInt(n + 1);
                    Object replacement = r.nextInt(4) == 0 ? null : "c" + (n++);
                    return new Object[] {"cas", key, Arrays.asList(expected, replacement)};
                }
            }
        }

        public Object apply(String f, Object key, Object input) {
            Object cur = m.get(key);
            switch (f) {
                case "get": return cur;
                case "put": return m.put(key, input);
                case "update": return cur == null ? null : m.put(key, input);
                case "delete": return m.remove(key);
                default: {
                    List<?> l = (List<?>) input;
                    boolean ok = Objects.equals(cur, l.get(0));
                    if (ok) {
                        if (l.get(1) == null) {
                            m.remove(key);
                        } else {
                            m.put(key, l.get(1));
                        }
                    }
                    return Math.floorMod(Objects.hashCode(input), 3) == 0 ? (Object) ok : Arrays.asList(ok, cur);
                }
            }
        }

        public Object neverWritten(String f, Object output) {
            return f.equals("cas") ? null : "never-written";
        }
    }

    static final class Counter implements RealObject {
        long c;

        public String model() {
            return "counter";
        }

        public Object[] nextOp(Random r) {
            return r.nextBoolean() ? new Object[] {"read", null, null} : new Object[] {"add", null, (long) 1 + r.nextInt(3)};
        }

        public Object apply(String f, Object key, Object input) {
            if (f.equals("add")) {
                c += (Long) input;
                return input;
            }
            return c;
        }

        public Object neverWritten(String f, Object output) {
            return f.equals("read") ? (Object) (-1L) : null;
        }
    }

    static final class SetObj implements RealObject {
        final Set<Object> s = new HashSet<>();

        public String model() {
            return "set";
        }

        public Object[] nextOp(Random r) {
            return r.nextInt(3) == 0 ? new Object[] {"read", null, null} : new Object[] {"add", null, (long) r.nextInt(6)};
        }

        public Object apply(String f, Object key, Object input) {
            if (f.equals("add")) {
                s.add(input);
                return input;
            }
            return new ArrayList<>(s);
        }

        public Object neverWritten(String f, Object output) {
            if (!f.equals("read")) {
                return null;
            }
            List<Object> l = new ArrayList<>((List<?>) output);
            l.add(99L);
            return l;
        }
    }

    static final class Queue implements RealObject {
        final ArrayDeque<Object> q = new ArrayDeque<>();
        long n;

        public String model() {
            return "queue";
        }

        public Object[] nextOp(Random r) {
            return r.nextBoolean() ? new Object[] {"dequeue", null, null} : new Object[] {"enqueue", null, n++};
        }

        public Object apply(String f, Object key, Object input) {
            if (f.equals("enqueue")) {
                q.addLast(input);
                return input;
            }
            return q.pollFirst();
        }

        public Object neverWritten(String f, Object output) {
            return f.equals("dequeue") ? (Object) (-5L) : null;
        }
    }

    static final class Multi implements RealObject {
        final Map<Object, Object> m = new HashMap<>();

        public String model() {
            return "multi-register";
        }

        public Object[] nextOp(Random r) {
            List<Object> txn = new ArrayList<>();
            int len = 1 + r.nextInt(2);
            for (int i = 0; i < len; i++) {
                String k = r.nextBoolean() ? "x" : "y";
                txn.add(r.nextBoolean() ? Arrays.asList(new Keyword("read"), k, null)
                        : List.of(new Keyword("write"), k, (long) r.nextInt(4)));
            }
            return new Object[] {"txn", null, txn};
        }

        public Object apply(String f, Object key, Object input) {
            List<Object> out = new ArrayList<>();
            for (Object o : (List<?>) input) {
                List<?> mop = (List<?>) o;
                if (mop.get(0).equals(new Keyword("read"))) {
                    out.add(Arrays.asList(mop.get(0), mop.get(1), m.get(mop.get(1))));
                } else {
                    m.put(mop.get(1), mop.get(2));
                    out.add(mop);
                }
            }
            return out;
        }

        public Object neverWritten(String f, Object output) {
            List<Object> out = new ArrayList<>((List<?>) output);
            for (int i = 0; i < out.size(); i++) {
                List<?> mop = (List<?>) out.get(i);
                if (mop.get(0).equals(new Keyword("read"))) {
                    out.set(i, List.of(mop.get(0), mop.get(1), 777L));
                    return out;
                }
            }
            return null;
        }
    }

    /** A mutex whose acquire is only issued when it can succeed at once, so that no process blocks. */
    static final class Mutex implements RealObject {
        boolean held;
        boolean pendingAcquire;
        boolean pendingRelease;

        public String model() {
            return "mutex";
        }

        public Object[] nextOp(Random r) {
            if (!held && !pendingAcquire && !pendingRelease) {
                pendingAcquire = true;
                return new Object[] {"acquire", null, null};
            }
            if (held && !pendingRelease && !pendingAcquire) {
                pendingRelease = true;
                return new Object[] {"release", null, null};
            }
            return null;
        }

        public Object apply(String f, Object key, Object input) {
            if (f.equals("acquire")) {
                held = true;
                pendingAcquire = false;
            } else {
                held = false;
                pendingRelease = false;
            }
            return null;
        }

        public Object neverWritten(String f, Object output) {
            return null;
        }
    }
}
