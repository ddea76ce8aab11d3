package dev.remora.kv;

import dev.remora.kv.CuckooMap.Point;

import java.util.Set;
import java.util.function.Predicate;

/**
 * Hooks that crash a {@link CuckooMap} client at a doorbell of its choosing, for the kv tests: the client posts the
 * first {@code prefix} requests of that doorbell (all, if negative; none, for a crash before posting), then throws
 * {@link ClientCrashed} and is never used again. On the fast fabric the requests posted execute.
 */
final class CrashHooks {
    private CrashHooks() {
    }

    /** A client's crash, thrown from its hook. */
    static final class ClientCrashed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClientCrashed(Point at) {
            super("client crashed at " + at);
        }
    }

    /**
     * @param points the doorbells to crash at: the first one the client rings among them
     * @param prefix the requests of it posted
     * @return the hook
     */
    static CuckooMap.Hook at(Set<Point> points, int prefix) {
        return when(points::contains, prefix);
    }

    /**
     * @param n which doorbell, counting from 0, whatever its point
     * @param prefix the requests of it posted
     * @return the hook
     */
    static CuckooMap.Hook atDoorbell(int n, int prefix) {
        int[] seen = new int[1];
        return when(point -> seen[0]++ == n, prefix);
    }

    private static CuckooMap.Hook when(Predicate<Point> crashHere, int prefix) {
        return new CuckooMap.Hook() {
            private boolean armed;

            @Override
            public int beforePost(Point point, int requests) {
                if (!crashHere.test(point)) {
                    return requests;
                }
                if (prefix == 0) {
                    throw new ClientCrashed(point);
                }
                armed = true;
                return prefix < 0 ? requests : Math.min(prefix, requests);
            }

            @Override
            public void afterPost(Point point) {
                if (armed) {
                    throw new ClientCrashed(point);
                }
            }
        };
    }
}
