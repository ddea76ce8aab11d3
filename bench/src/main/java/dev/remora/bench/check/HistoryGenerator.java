package dev.remora.bench.check;

import dev.remora.check.Event;
import dev.remora.check.EventType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
