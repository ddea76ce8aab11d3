package dev.remora.bench.locks;

import dev.remora.locks.CasSpinLock;
import dev.remora.locks.LeaseLock;
import dev.remora.locks.McsLock;
import dev.remora.locks.RemoteLock;
import dev.remora.locks.RemoteReadWriteLock;
import dev.remora.locks.TicketLock;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

/**
 * The locks the driver measures: how to create one and attach a thread's handle, and the fewest round trips an
 * uncontended acquire and release can take in each design, with the reason.
 */
enum LockDesign {
    CAS_SPIN("cas", "CAS spin", 1, 1, true,
        "one CAS decides ownership; one WRITE frees the word") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return CasSpinLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return CasSpinLock.attach(endpoint, lock, index + 1L);
        }
    },
    TICKET("ticket", "ticket", 1, 1, true,
        "FAA(next) and READ(serving) share one doorbell (R9); one WRITE of serving") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return TicketLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return TicketLock.attach(endpoint, lock);
        }
    },
    MCS("mcs", "MCS", 1, 1, true,
        "one CAS swaps the tail in; one CAS swaps it out when nobody queued") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return McsLock.create(home, handles).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return McsLock.attach(endpoint, lock, handles, index);
        }
    },
    LEASE("lease", "lease", 2, 1, true,
        "READ of (generation, heartbeat) then CAS; a CAS on a cached generation could make it 1") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return LeaseLock.create(home, LEASE_NS, LEASE_MARGIN_NS).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return LeaseLock.attach(endpoint, lock);
        }
    },
    RW_WRITE("rw-write", "read-write, write side", 2, 1, true,
        "FAA announces the writer, CAS takes W; a CAS(0 -> W) fast path could make it 1") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return RemoteReadWriteLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return RemoteReadWriteLock.attach(endpoint, lock).writeLock();
        }
    },
    RW_READ("rw-read", "read-write, read side", 1, 1, false,
        "FAA(+1 reader) returns the writer bits; FAA(-1 reader)") {
        @Override
        RemoteAddress create(Node home, int handles) {
            return RemoteReadWriteLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index) {
            return RemoteReadWriteLock.attach(endpoint, lock).readLock();
        }
    };

    /** The lease of {@link #LEASE}: far longer than any critical section here, so none expires during a run. */
    static final long LEASE_NS = 10_000_000_000L;
    /** How much earlier a lease holder stops trusting its lease. */
    static final long LEASE_MARGIN_NS = 1_000_000_000L;

    final String key;
    final String label;
    final int minAcquireRoundTrips;
    final int minReleaseRoundTrips;
    final boolean exclusive;
    final String why;

    LockDesign(String key, String label, int minAcquireRoundTrips, int minReleaseRoundTrips, boolean exclusive,
               String why) {
        this.key = key;
        this.label = label;
        this.minAcquireRoundTrips = minAcquireRoundTrips;
        this.minReleaseRoundTrips = minReleaseRoundTrips;
        this.exclusive = exclusive;
        this.why = why;
    }

    /**
     * Allocates a free lock.
     *
     * @param home the lock's node
     * @param handles the most handles that will attach
     * @return the lock's address
     */
    abstract RemoteAddress create(Node home, int handles);

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param lock the lock's address
     * @param handles the number the lock was created for
     * @param index this handle's index, unique, in {@code 0..handles-1}
     * @return the handle
     */
    abstract RemoteLock attach(Endpoint endpoint, RemoteAddress lock, int handles, int index);

    /**
     * @param key a {@link #key}
     * @return the design
     * @throws IllegalArgumentException if unknown
     */
    static LockDesign byKey(String key) {
        for (LockDesign d : values()) {
            if (d.key.equals(key)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown lock '" + key + "'");
    }
}
