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
                String cur = m.getOrDefault(op[1], "");
                switch ((String) op[0]) {
                    case "get": return cur;
                    case "put": m.put(op[1], (String) op[2]); return op[2];
                    default: m.put(op[1], cur + op[2]); return op[2];
                }
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
                String cur = m.getOrDefault(op[1], "");
                switch ((String) op[0]) {
                    case "get": return cur;
                    case "put": m.put(op[1], (String) op[2]); return op[2];
                    default: m.put(op[1], cur + op[2]); return op[2];
                }
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

    private static List<Event> run(Target t, int ops, int clients, int crashPct, long seed) {
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
                if (issued == ops) {
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
}
