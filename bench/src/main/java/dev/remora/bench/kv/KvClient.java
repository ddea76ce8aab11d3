package dev.remora.bench.kv;

import dev.remora.kv.CuckooMap;
import dev.remora.verbs.Endpoint;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One benchmark thread's handle on a map under test: the cuckoo map (its own {@link Endpoint} and
 * {@link CuckooMap} handle) or the local baseline ({@link ConcurrentHashMap}). Keys are longs, encoded as 8 bytes
 * big-endian for the cuckoo map. Used by one thread at a time.
 */
interface KvClient extends AutoCloseable {
    /** What an operation did, in the benchmark's terms. */
    enum Outcome {
        /** Found (get) or written (update, insert). */
        OK,
        /** get or update of a key that is not there. */
        MISS,
        /** The cuckoo map answered BUSY: nothing changed. */
        BUSY,
        /** The cuckoo map answered TABLE_FULL to an insert. */
        FULL
    }

    /** @param key the key @return the outcome */
    Outcome get(long key);

    /** @param key an existing key @param value the new value @return the outcome */
    Outcome update(long key, byte[] value);

    /** @param key the key @param value its value @return the outcome */
    Outcome insert(long key, byte[] value);

    /** @return round trips this handle's endpoint has posted so far (0 for a local map) */
    long roundTrips();

    /** @return inserts of this handle that kicked keys (0 for a local map) */
    long kicks();

    @Override
    void close();

    /** A cuckoo map handle and the endpoint it uses; closing closes both. */
    final class Cuckoo implements KvClient {
        private final Endpoint endpoint;
        private final CuckooMap map;
        private final byte[] key = new byte[8];

        Cuckoo(Endpoint endpoint, CuckooMap map) {
            this.endpoint = endpoint;
            this.map = map;
        }

        private byte[] key(long k) {
            for (int i = 7; i >= 0; i--) {
                key[i] = (byte) k;
                k >>>= 8;
            }
            return key;
        }

        private static Outcome of(CuckooMap.Status s) {
            return switch (s) {
                case OK -> Outcome.OK;
                case NOT_FOUND, CAS_MISMATCH -> Outcome.MISS;
                case BUSY -> Outcome.BUSY;
                case TABLE_FULL -> Outcome.FULL;
            };
        }

        @Override
        public Outcome get(long k) {
            return of(map.lookup(key(k)).status());
        }

        @Override
        public Outcome update(long k, byte[] value) {
            return of(map.update(key(k), value).status());
        }

        @Override
        public Outcome insert(long k, byte[] value) {
            return of(map.put(key(k), value).status());
        }

        @Override
        public long roundTrips() {
            return endpoint.statistics().roundTrips();
        }

        @Override
        public long kicks() {
            return map.kicks();
        }

        @Override
        public void close() {
            try {
                map.close();
            } finally {
                endpoint.close();
            }
        }
    }

    /** The local baseline: a shared {@link ConcurrentHashMap} of boxed keys and value arrays. */
    final class Local implements KvClient {
        private final ConcurrentHashMap<Long, byte[]> map;

        Local(ConcurrentHashMap<Long, byte[]> map) {
            this.map = map;
        }

        @Override
        public Outcome get(long key) {
            return map.get(key) != null ? Outcome.OK : Outcome.MISS;
        }

        @Override
        public Outcome update(long key, byte[] value) {
            return map.replace(key, value) != null ? Outcome.OK : Outcome.MISS;
        }

        @Override
        public Outcome insert(long key, byte[] value) {
            map.put(key, value);
            return Outcome.OK;
        }

        @Override
        public long roundTrips() {
            return 0;
        }

        @Override
        public long kicks() {
            return 0;
        }

        @Override
        public void close() {
            // nothing held
        }
    }
}
