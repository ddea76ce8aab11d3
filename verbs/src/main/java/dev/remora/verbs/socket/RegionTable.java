package dev.remora.verbs.socket;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A local node's regions by key: an open-addressing table, copied on every change (registration is rare) and read
 * without a lock by the service thread and posting threads. Keys are random per region, so a key of a previous
 * incarnation of the node (a restarted process) is refused, up to a 2^-32 chance per key.
 */
final class RegionTable {
    private volatile SocketRegion[] table = new SocketRegion[16];
    private int size;

    /** @return a fresh non-zero key not in use */
    synchronized int newKey() {
        while (true) {
            int k = ThreadLocalRandom.current().nextInt();
            if (k != 0 && get(k) == null) {
                return k;
            }
        }
    }

    synchronized void add(SocketRegion r) {
        SocketRegion[] t = table;
        if ((size + 1) * 2 > t.length) {
            t = rehash(t, t.length * 2);
        } else {
            t = t.clone();
        }
        insert(t, r);
        size++;
        // The volatile write publishes the region (and its zeroed memory) to the service thread.
        table = t;
    }

    synchronized void remove(SocketRegion r) {
        SocketRegion[] t = table;
        SocketRegion[] next = new SocketRegion[t.length];
        for (SocketRegion x : t) {
            if (x != null && x != r) {
                insert(next, x);
            }
        }
        size--;
        table = next;
    }

    /** @return the region with that key, or null */
    SocketRegion get(int key) {
        SocketRegion[] t = table;
        int mask = t.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            SocketRegion r = t[i];
            if (r == null) {
                return null;
            }
            if (r.key() == key) {
                return r;
            }
        }
    }

    /** @return every region (a snapshot) */
    java.util.List<SocketRegion> all() {
        java.util.List<SocketRegion> out = new java.util.ArrayList<>();
        for (SocketRegion r : table) {
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    private static SocketRegion[] rehash(SocketRegion[] t, int length) {
        SocketRegion[] next = new SocketRegion[length];
        for (SocketRegion x : t) {
            if (x != null) {
                insert(next, x);
            }
        }
        return next;
    }

    private static void insert(SocketRegion[] t, SocketRegion r) {
        int mask = t.length - 1;
        int i = mix(r.key()) & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = r;
    }

    private static int mix(int k) {
        int h = k * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
