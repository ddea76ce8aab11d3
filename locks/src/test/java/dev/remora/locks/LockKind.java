package dev.remora.locks;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

/** The locks under test, with how to create one and attach a handle. */
enum LockKind {
    CAS_SPIN {
        @Override
        RemoteAddress create(Node home, int handles) {
            return CasSpinLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index) {
            return CasSpinLock.attach(ep, lock, index + 1);
        }

        @Override
        int minRoundTrips() {
            return 2;
        }
    },
    TICKET {
        @Override
        RemoteAddress create(Node home, int handles) {
            return TicketLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index) {
            return TicketLock.attach(ep, lock);
        }

        @Override
        int minRoundTrips() {
            return 2;
        }
    },
    MCS {
        @Override
        RemoteAddress create(Node home, int handles) {
            return McsLock.create(home, handles).address();
        }

        @Override
        RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index) {
            return McsLock.attach(ep, lock, handles, index);
        }

        @Override
        int minRoundTrips() {
            return 2;
        }
    },
    LEASE {
        @Override
        RemoteAddress create(Node home, int handles) {
            return LeaseLock.create(home, 60_000_000_000L, 1_000_000_000L).address();
        }

        @Override
        RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index) {
            return LeaseLock.attach(ep, lock);
        }

        @Override
        int minRoundTrips() {
            return 3;
        }
    },
    READ_WRITE {
        @Override
        RemoteAddress create(Node home, int handles) {
            return RemoteReadWriteLock.create(home).address();
        }

        @Override
        RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index) {
            return RemoteReadWriteLock.attach(ep, lock).writeLock();
        }

        @Override
        int minRoundTrips() {
            return 3;
        }
    };

    abstract RemoteAddress create(Node home, int handles);

    abstract RemoteLock attach(Endpoint ep, RemoteAddress lock, int handles, int index);

    /** Round trips of an uncontended lock() plus unlock() that wrote only to the home. */
    abstract int minRoundTrips();
}
