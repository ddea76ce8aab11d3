package dev.remora.bench.check;

import dev.remora.check.Event;
import dev.remora.check.EventType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Generates large histories by running random operations of concurrent clients against a real
 * sequential object with random timing: each operation takes effect at a random moment between
 * its invocation and its completion, so the histories are linearizable by construction. A
 * crashed operation becomes {@code :info} (having taken effect or not) and its client is
 * replaced by a fresh process id.
 */
public final class HistoryGenerator {
    private HistoryGenerator() {
    }

    /** A sequential object: picks an operation and applies it. */
    private interface Target {
        /** @return {f, key, input} */
        Object[] next(SplittableRandom r);

        Object apply(Object[] op);
    }

    /**
     * A key-value history of get, put and append.
     *
     * @param ops     operations
     * @param keys    distinct keys
     * @param clients concurrent clients
     * @param seed    random seed
     * @return the events
     */
    public static List<Event> kv(int ops, int keys, int clients, long seed) {
        Map<Object, String> m = new HashMap<>();
        int[] n = new int[1];
        return run(new Target() {
            public Object[] next(SplittableRandom r) {
                String key = Integer.toString(r.nextInt(keys));
                int k = r.nextInt(4);
                if (k < 2) {
                    return new Object[] {"get", key, null};
                }
                return new Object[] {k == 2 ? "put" : "append", key, "x" + (n[0]++) + " "};
            }

            public Object apply(Object[] op) {
                return applyKv(m, op);
            }
        }, ops, clients, 0, seed);
    }

    /**
     * The hard shape for a per-key search: many clients appending to a few keys, in Porcupine's
     * key-value style (values {@code "x CLIENT SEQ y"} appended to per-key strings, gets and
     * puts, no crashed operations), with partitions of very different difficulty, and one read
     * made impossible in the smallest partition.
     *
     * <p>Keys are drawn with weights halving from key {@code "0"} (half the operations) to the
     * last key, so with 50 clients about 25 operations on key {@code "0"} are in flight at any
     * time: the orders of its concurrent appends are what a search must enumerate between two
     * gets. The history is generated linearizable, then the last get of the key with the fewest
     * operations that returned a non-empty value is changed to return that value with its last
     * appended piece repeated, which no order of the appends produces: the history is not
     * linearizable, the smallest partition fails quickly, and the largest is intractable or
     * nearly so.
     *
     * @param clients concurrent clients (50 and 100 are the sizes used by the bench)
     * @param keys    distinct keys
     * @param ops     operations
     * @param seed    random seed
     * @return the events, with times (informational) and line numbers
     */
    public static List<Event> kvAppendsHard(int clients, int keys, int ops, long seed) {
        Map<Object, String> m = new HashMap<>();
        int[] seq = new int[1];
        List<Event> events = run(new Target() {
            public Object[] next(SplittableRandom r) {
                int key = 0;
                while (key < keys - 1 && r.nextBoolean()) {
                    key++;
                }
                String k = Integer.toString(key);
                int f = r.nextInt(20);
                if (f < 8) {
                    return new Object[] {"get", k, null};
                }
                String v = "x " + r.nextInt(clients) + " " + (seq[0]++) + " y";
                return new Object[] {f < 19 ? "append" : "put", k, v};
            }

            public Object apply(Object[] op) {
                return applyKv(m, op);
            }
        }, ops, clients, 0, seed);
        Map<Object, Integer> count = new HashMap<>();
        for (Event e : events) {
            if (e.type() == EventType.INVOKE) {
                count.merge(e.key(), 1, Integer::sum);
            }
        }
        int target = -1;
        for (int i = events.size() - 1; i >= 0; i--) {
            Event e = events.get(i);
            if (e.type() == EventType.OK && e.function().equals("get") && !((String) e.value()).isEmpty()
                    && (target < 0 || count.get(e.key()) < count.get(events.get(target).key()))) {
                target = i;
            }
        }
        if (target >= 0) {
            Event e = events.get(target);
            String v = (String) e.value();
            int cut = v.lastIndexOf("x ");
            events.set(target, new Event(e.process(), e.type(), e.function(), e.key(), v + v.substring(cut),
                    e.timeNs(), e.line()));
        }
        return events;
    }

    /**
     * Writes events in Porcupine's key-value log format, one EDN map a line.
     *
     * @param events the events
     * @return the text
     */
    public static String toKvLog(List<Event> events) {
        StringBuilder sb = new StringBuilder();
        for (Event e : events) {
            sb.append("{:process ").append(e.process()).append(", :type :")
                    .append(e.type().name().toLowerCase(Locale.ROOT)).append(", :f :").append(e.function())
                    .append(", :key \"").append(e.key()).append("\", :value ")
                    .append(e.value() == null ? "nil" : "\"" + e.value() + "\"").append("}\n");
        }
        return sb.toString();
    }

    /**
     * A compare-and-set register history over the values 0..4, starting at nil.
     *
     * @param ops        operations
     * @param clients    concurrent clients
     * @param crashPct   percent of operations that end indeterminate
     * @param seed       random seed
     * @return the events
     */
    public static List<Event> casRegister(int ops, int clients, int crashPct, long seed) {
        Object[] v = new Object[1];
        return run(new Target() {
            public Object[] next(SplittableRandom r) {
                int k = r.nextInt(3);
                if (k == 0) {
                    return new Object[] {"read", null, null};
                }
                if (k == 1) {
                    return new Object[] {"write", null, (long) r.nextInt(5)};
                }
                return new Object[] {"cas", null, List.of((long) r.nextInt(5), (long) r.nextInt(5))};
            }

            public Object apply(Object[] op) {
                switch ((String) op[0]) {
                    case "read": return v[0];
                    case "write": v[0] = op[2]; return op[2];
                    default:
                        List<?> l = (List<?>) op[2];
                        if (Objects.equals(v[0], l.get(0))) {
                            v[0] = l.get(1);
                            return Boolean.TRUE;
                        }
                        return Boolean.FALSE;
                }
            }
        }, ops, clients, crashPct, seed);
    }

    /** One operation of {@link #etcdLog}: who, what, and where its events are. */
    private static final class EtcdOp {
        long process;
        String f;
        Object value; // write: the value; cas: [old new]; read: the value read (ok only)
        int invoke; // event index of the invocation
        int complete = Integer.MAX_VALUE; // event index of the completion; MAX_VALUE when info
        char outcome; // 'o' ok, 'f' failed cas, 'i' timed out
    }

    /**
     * A Jepsen etcd-style log, the shape of Porcupine's {@code test_data/jepsen/etcd_*.log}: 5
     * clients on one register (initially nil) over the values 0..4, reads, writes and
     * compare-and-sets ({@code :fail :cas} a compare-and-set that returned false), about one
     * operation in six timed out ({@code :info ... :timed-out}, having taken effect or not; the
     * client then continues as process {@code p + 5}, as Jepsen numbers them), clients idle
     * between operations (see {@link #THINK}). Generated
     * linearizable against a real register, each operation taking effect at a random moment
     * between its invocation and completion.
     *
     * <p>With {@code stale}, one read is made stale so that no order explains it: it returns a
     * value {@code v} all of whose possible writers (a write of {@code v} or a compare-and-set to
     * {@code v}, completed or timed out, invoked before the read ends) completed before some
     * write or successful compare-and-set of another value that itself completed before the read
     * began. After that overwrite the register never holds {@code v} again before the read, so the
     * history is not linearizable; finding that still needs the search through the timed-out
     * operations before it, as on the real logs. The read is one of the first three that qualify.
     *
     * @param ops   operations (the real logs have 77 to 87)
     * @param seed  random seed
     * @param stale whether to make one read stale
     * @return the log text, or {@code null} when {@code stale} and no read of this history can be made stale
     *         (try another seed)
     */
    public static String etcdLog(int ops, long seed, boolean stale) {
        final int clients = 5;
        SplittableRandom r = new SplittableRandom(seed);
        List<EtcdOp> all = new ArrayList<>();
        List<int[]> events = new ArrayList<>(); // {op index, 0 invoke / 1 completion}
        long[] proc = new long[clients];
        for (int i = 0; i < clients; i++) {
            proc[i] = i;
        }
        EtcdOp[] inflight = new EtcdOp[clients];
        boolean[] applied = new boolean[clients];
        Object[] reg = new Object[1];
        int issued = 0;
        int active = 0;
        while (issued < ops || active > 0) {
            int c = r.nextInt(clients);
            EtcdOp op = inflight[c];
            if (op == null) {
                if (issued == ops || r.nextInt(THINK) != 0) {
                    continue; // an idle client starts its next operation on one visit in THINK
                }
                op = new EtcdOp();
                op.process = proc[c];
                int k = r.nextInt(10);
                if (k < 4) {
                    op.f = "read";
                } else if (k < 7) {
                    op.f = "write";
                    op.value = (long) r.nextInt(5);
                } else {
                    op.f = "cas";
                    op.value = List.of((long) r.nextInt(5), (long) r.nextInt(5));
                }
                op.invoke = events.size();
                inflight[c] = op;
                applied[c] = false;
                issued++;
                active++;
                all.add(op);
                events.add(new int[] {all.size() - 1, 0});
            } else if (!applied[c] && r.nextInt(100) < 7) {
                op.outcome = 'i'; // timed out before taking effect
                events.add(new int[] {all.indexOf(op), 1});
                proc[c] += clients;
                inflight[c] = null;
                active--;
            } else if (!applied[c]) {
                switch (op.f) {
                    case "read": op.value = reg[0]; op.outcome = 'o'; break;
                    case "write": reg[0] = op.value; op.outcome = 'o'; break;
                    default:
                        List<?> l = (List<?>) op.value;
                        boolean ok = Objects.equals(reg[0], l.get(0));
                        if (ok) {
                            reg[0] = l.get(1);
                        }
                        op.outcome = ok ? 'o' : 'f';
                }
                applied[c] = true;
            } else {
                if (r.nextInt(100) < 9) {
                    op.outcome = 'i'; // timed out after taking effect
                    proc[c] += clients;
                } else {
                    op.complete = events.size();
                }
                events.add(new int[] {all.indexOf(op), 1});
                inflight[c] = null;
                active--;
            }
        }
        if (stale && !makeStale(all, r)) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (int[] e : events) {
            EtcdOp op = all.get(e[0]);
            sb.append("INFO  jepsen.util - ").append(op.process).append('\t');
            if (e[1] == 0) {
                sb.append(":invoke\t:").append(op.f).append('\t').append(op.f.equals("read") ? "nil" : edn(op.value));
            } else if (op.outcome == 'i') {
                sb.append(":info\t:").append(op.f).append("\t:timed-out");
            } else {
                sb.append(op.outcome == 'f' ? ":fail\t:" : ":ok\t:").append(op.f).append('\t').append(edn(op.value));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String edn(Object v) {
        if (v == null) {
            return "nil";
        }
        if (v instanceof List<?> l) {
            return "[" + l.get(0) + " " + l.get(1) + "]";
        }
        return v.toString();
    }

    /** The value that {@code op} may leave in the register, or {@code null} when it writes nothing. */
    private static Object written(EtcdOp op) {
        if (op.f.equals("write")) {
            return op.value;
        }
        return op.f.equals("cas") && op.outcome != 'f' ? ((List<?>) op.value).get(1) : null;
    }

    /** Makes one ok read stale as {@link #etcdLog} describes; false when no read qualifies. */
    private static boolean makeStale(List<EtcdOp> all, SplittableRandom r) {
        List<Object[]> candidates = new ArrayList<>(); // {read, stale value}
        for (EtcdOp read : all) {
            if (!read.f.equals("read") || read.outcome != 'o') {
                continue;
            }
            for (long v = 0; v < 5; v++) {
                if (Objects.equals(read.value, v)) {
                    continue;
                }
                int lastWriter = -1;
                boolean ok = true;
                for (EtcdOp w : all) {
                    if (w.invoke < read.complete && Objects.equals(written(w), v)) {
                        if (w.outcome == 'i') {
                            ok = false; // may take effect at any time
                            break;
                        }
                        lastWriter = Math.max(lastWriter, w.complete);
                    }
                }
                if (!ok || lastWriter < 0) {
                    continue; // a value never written would be refused without any search
                }
                for (EtcdOp w : all) {
                    Object u = written(w);
                    if (u != null && !Objects.equals(u, v) && w.outcome == 'o' && w.invoke > lastWriter
                            && w.complete < read.invoke) {
                        candidates.add(new Object[] {read, v});
                        break;
                    }
                }
            }
        }
        if (candidates.isEmpty()) {
            return false;
        }
        // One of the first three candidates: early, with few timed-out operations pending before it, as the real
        // failures are (a search of tens to hundreds of states); a late one costs thousands.
        Object[] pick = candidates.get(r.nextInt(Math.min(3, candidates.size())));
        ((EtcdOp) pick[0]).value = pick[1];
        return true;
    }

    /**
     * A key-value log of the shape of Porcupine's {@code test_data/kv/c10-*} and {@code c50-*}:
     * {@code clients} clients over 10 keys chosen uniformly, about half appends, 45 % gets and 5 %
     * puts, values {@code "x CLIENT SEQ y"}, every operation completes, clients idle between
     * operations (see {@link #THINK}). Generated linearizable;
     * with {@code bad}, one get that returned a non-empty value is changed to return it with
     * its last appended piece repeated, which no order produces (every piece is appended once).
     *
     * @param clients concurrent clients (10 or 50 for Porcupine's shapes)
     * @param ops     operations (337 for {@code c10}, 1,712 for {@code c50})
     * @param seed    random seed
     * @param bad     whether to make one get impossible
     * @return the log text
     */
    public static String porcupineKv(int clients, int ops, long seed, boolean bad) {
        Map<Object, String> m = new HashMap<>();
        int[] seq = new int[clients];
        List<Event> events = run(new Target() {
            public Object[] next(SplittableRandom r) {
                String key = Integer.toString(r.nextInt(10));
                int f = r.nextInt(20);
                if (f < 9) {
                    return new Object[] {"get", key, null};
                }
                int c = r.nextInt(clients);
                String v = "x " + c + " " + (seq[c]++) + " y";
                return new Object[] {f < 19 ? "append" : "put", key, v};
            }

            public Object apply(Object[] op) {
                return applyKv(m, op);
            }
        }, ops, clients, 0, THINK, seed);
        if (bad) {
            List<Integer> gets = new ArrayList<>();
            for (int i = 0; i < events.size(); i++) {
                Event e = events.get(i);
                if (e.type() == EventType.OK && e.function().equals("get") && !((String) e.value()).isEmpty()) {
                    gets.add(i);
                }
            }
            int i = gets.get(new SplittableRandom(seed ^ 0x5DEECE66DL).nextInt(gets.size()));
            Event e = events.get(i);
            String v = (String) e.value();
            events.set(i, new Event(e.process(), e.type(), e.function(), e.key(), v + v.substring(v.lastIndexOf("x ")),
                    e.timeNs(), e.line()));
        }
        return toKvLog(events);
    }

    /**
     * Visits of the scheduler to an idle client per operation it starts, in {@link #etcdLog} and
     * {@link #porcupineKv}: about a fifth of the clients are busy at any time, so an operation
     * overlaps about one other on average (0.7 to 0.9 in Porcupine's etcd logs), where starting at
     * once keeps nearly every client busy (2.6 in flight on average with 5 clients).
     */
    private static final int THINK = 8;

    private static List<Event> run(Target t, int ops, int clients, int crashPct, long seed) {
        return run(t, ops, clients, crashPct, 1, seed);
    }

    private static List<Event> run(Target t, int ops, int clients, int crashPct, int think, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Event> events = new ArrayList<>(2 * ops + 16);
        long[] proc = new long[clients];
        for (int i = 0; i < clients; i++) {
            proc[i] = i;
        }
        long nextProc = clients;
        Object[][] inflight = new Object[clients][];
        boolean[] applied = new boolean[clients];
        Object[] out = new Object[clients];
        int issued = 0;
        int active = 0;
        long time = 0;
        while (issued < ops || active > 0) {
            int c = r.nextInt(clients);
            time += 1 + r.nextInt(100);
            Object[] op = inflight[c];
            if (op == null) {
                if (issued == ops || think > 1 && r.nextInt(think) != 0) {
                    continue;
                }
                op = t.next(r);
                inflight[c] = op;
                applied[c] = false;
                issued++;
                active++;
                events.add(new Event(proc[c], EventType.INVOKE, (String) op[0], op[1], op[2], time, events.size() + 1));
            } else if (!applied[c]) {
                if (crashPct > 0 && r.nextInt(200) < crashPct) {
                    // crashes before taking effect
                    events.add(new Event(proc[c], EventType.INFO, (String) op[0], op[1], op[2], time, events.size() + 1));
                    proc[c] = nextProc++;
                    inflight[c] = null;
                    active--;
                    continue;
                }
                out[c] = t.apply(op);
                applied[c] = true;
            } else {
                // crashes after taking effect, or completes
                boolean crash = crashPct > 0 && r.nextInt(200) < crashPct;
                events.add(new Event(proc[c], crash ? EventType.INFO : EventType.OK, (String) op[0], op[1],
                        crash ? op[2] : out[c], time, events.size() + 1));
                if (crash) {
                    proc[c] = nextProc++;
                }
                inflight[c] = null;
                active--;
            }
        }
        return events;
    }

    /**
     * Applies a key-value operation ({@code get}, {@code put} or {@code append}, key, value) to a map of strings,
     * every key initially empty, as Porcupine's key-value model does.
     *
     * @return the value read for a get, else the value written
     */
    private static Object applyKv(Map<Object, String> m, Object[] op) {
        String cur = m.getOrDefault(op[1], "");
        switch ((String) op[0]) {
            case "get": return cur;
            case "put": m.put(op[1], (String) op[2]); return op[2];
            default: m.put(op[1], cur + op[2]); return op[2];
        }
    }
}
