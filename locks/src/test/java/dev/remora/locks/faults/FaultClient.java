package dev.remora.locks.faults;

import dev.remora.check.HistoryRecorder;
import dev.remora.locks.FencedRegister;
import dev.remora.locks.LeaseLock;
import dev.remora.locks.LockResult;
import dev.remora.locks.RemoteLock;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAccessException;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsTimeoutException;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildArgs;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client process of the fault tests, run as a child JVM against a {@link FaultHome}: for {@code runMs} it repeats a
 * round of {@code incs} counter increments and one lease-lock critical section (fence the register with the token,
 * write a value of its own with the token, read it back, release), recording every operation with a
 * {@link HistoryRecorder} per object that flushes every event to its file, so a killed client's history survives up
 * to its last event. Then it prints {@code DONE ...} and exits with 0; every wait is bounded, and a watchdog halts the
 * process with 3 if it is still running 15 s after its workload should have ended.
 *
 * <p>Recording. Each operation is invoked before its verbs are posted and completed after they return: {@code ok},
 * {@code fail} when it certainly did not take effect (a refused stale write, a remote access error, a lock attempt that
 * timed out with nothing in flight), and {@code info} when its outcome is unknown (a retry-exceeded error, any
 * indeterminate status, a timeout). A lease can end without a release: the holder may be killed, stopped or cut off,
 * and then the lease expires at a time nobody records. So right after every acquisition that may have taken effect a
 * second process of this client invokes a speculative {@code release} (the lease's expiry); it completes {@code fail}
 * when the holder's own release succeeded (no expiry happened), {@code info} when the lease was lost or the release's
 * outcome is unknown, and stays open when the client is killed. Its linearization point can then fall anywhere after
 * the acquisition, as an expiry can; a release that succeeded is checked strictly.
 *
 * <p>Output lines: {@code READY}, {@code IN_CS <token> <result> <System.nanoTime()>}, {@code WROTE <token> <value>},
 * {@code REFUSED <token> <value>}, {@code LOST <token>} (a renewal found the lock taken over),
 * {@code ERROR <op> <status>}, {@code RELOOKUP <epoch>}, {@code EPOCH <e> acked <n> info <n>}, {@code DONE}.
 *
 * <p>Arguments, {@code key=value}: {@code home} (host:port, required), {@code history} (file prefix, required),
 * {@code id} (default 1), {@code host} (this process's own address, default 127.0.0.1), {@code secret},
 * {@code runMs} (default 2000), {@code incs} (default 3), {@code lockTimeoutMs} (default 1000), {@code holdMs} (time
 * in the first {@code holds} critical sections before the write, renewing every {@code renewMs}; default 0),
 * {@code holds} (default 1), {@code renewMs} (default 50), {@code pauseMs} (between rounds, default 2),
 * {@code retryMs} (the fabric's retry timeout, default 300), {@code connectMs} (its connect timeout, default 2000),
 * {@code opTimeoutMs} (the endpoint's operation timeout, default 1000), {@code lock} (false: increments only),
 * {@code lockKind} ({@code lease}, the default, or {@code ticket}: the {@link TicketLock}, with no register),
 * {@code relookup} (true: on a remote access error look the
 * objects up again and start a new epoch with new history files).
 */
public final class FaultClient {
    private final Map<String, String> args;
    private final int id;
    private final String prefix;
    private final SocketFabric fabric;
    private final Node me;
    private final Endpoint ep;
    private final long holdNs;
    private final int holds;
    private final long renewNs;
    private int epoch;
    private Recorders rec;
    private RemoteCounter counter;
    private LeaseLock lease;
    private FencedRegister register;
    private RemoteLock ticket;
    private int sections;
    private int seq;
    private long acked;
    private long info;

    /** The three histories of one epoch (home incarnation), each its own file. */
    private static final class Recorders {
        final HistoryRecorder counter;
        final HistoryRecorder lock;
        final HistoryRecorder register;
        final HistoryRecorder.Client counterProc;
        final HistoryRecorder.Client lockProc;
        final HistoryRecorder.Client expiryProc;
        final HistoryRecorder.Client registerProc;

        Recorders(String prefix, int epoch) {
            counter = recorder(prefix, epoch, "counter");
            lock = recorder(prefix, epoch, "lock");
            register = recorder(prefix, epoch, "register");
            counterProc = counter.client();
            lockProc = lock.client();
            expiryProc = lock.client();
            registerProc = register.client();
        }

        private static HistoryRecorder recorder(String prefix, int epoch, String what) {
            return HistoryRecorder.builder().writeTo(Path.of(file(prefix, epoch, what))).flushEveryEvent().build();
        }

        void close() {
            counter.close();
            lock.close();
            register.close();
        }
    }

    /**
     * @param prefix the {@code history} argument
     * @param epoch the home incarnation, from 0
     * @param what {@code counter}, {@code lock} or {@code register}
     * @return the history file of that object in that epoch
     */
    public static String file(String prefix, int epoch, String what) {
        return prefix + ".e" + epoch + "." + what + ".jsonl";
    }

    private FaultClient(Map<String, String> args) {
        this.args = args;
        this.id = Integer.parseInt(args.getOrDefault("id", "1"));
        this.prefix = ChildArgs.required(args, "history");
        this.holdNs = ms(args, "holdMs", 0);
        this.holds = Integer.parseInt(args.getOrDefault("holds", "1"));
        this.renewNs = ms(args, "renewMs", 50);
        SocketContext ctx = new SocketContext().host(args.getOrDefault("host", "127.0.0.1")).port(0)
            .secret(args.get("secret")).retryTimeoutNs(ms(args, "retryMs", 300))
            .connectTimeoutNs(ms(args, "connectMs", 2000));
        fabric = SocketFabric.open(ctx);
        me = fabric.addNode("client" + id);
        connect(ChildArgs.required(args, "home"));
        ep = Endpoint.open(me, new Endpoint.Context().operationTimeoutNs(ms(args, "opTimeoutMs", 1000)));
        rec = new Recorders(prefix, 0);
        attach();
    }

    /** The first connection, retried for 10 s: the home may still be warming up (or its network slow). */
    private void connect(String home) {
        ChildArgs.connect(fabric, home, 10_000_000_000L, e -> say("CONNECT_RETRY " + e.getMessage()));
    }

    private static long ms(Map<String, String> a, String key, long dflt) {
        return ChildArgs.msAsNanos(a, key, dflt);
    }

    private void attach() {
        RemoteAddress c = fabric.lookup(FaultHome.COUNTER);
        RemoteAddress l = fabric.lookup(FaultHome.LEASE);
        RemoteAddress r = fabric.lookup(FaultHome.REGISTER);
        counter = RemoteCounter.attach(ep, c);
        lease = LeaseLock.attach(ep, l);
        register = FencedRegister.attach(ep, r);
        if (args.getOrDefault("lockKind", "lease").equals("ticket")) {
            ticket = TicketLock.attach(ep, fabric.lookup(FaultHome.TICKET));
        }
    }

    private static boolean unknown(RuntimeException e) {
        return e instanceof VerbsTimeoutException
            || e instanceof RemoteAccessException && ((RemoteAccessException) e).isIndeterminate();
    }

    private static String status(RuntimeException e) {
        return e instanceof RemoteAccessException ? ((RemoteAccessException) e).status().name()
            : e.getClass().getSimpleName();
    }

    private void error(String op, RuntimeException e) {
        say("ERROR " + op + " " + status(e));
        if (e instanceof RemoteAccessException && ((RemoteAccessException) e).status() == WcStatus.REM_ACCESS_ERR
            && Boolean.parseBoolean(args.getOrDefault("relookup", "false"))) {
            relookup();
        }
    }

    /** A remote access error: the home is a new incarnation. Look the objects up again, in a new epoch. */
    private void relookup() {
        say("EPOCH " + epoch + " acked " + acked + " info " + info);
        rec.close();
        epoch++;
        acked = 0;
        info = 0;
        rec = new Recorders(prefix, epoch);
        try {
            attach();
            say("RELOOKUP " + epoch);
        } catch (RuntimeException e) {
            say("RELOOKUP_FAILED " + epoch + " " + e); // the objects keep their old addresses; retried on next error
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private void increment() {
        // Invoked before the FETCH_ADD is posted (R2: it cannot take effect earlier), completed after its completion,
        // which comes only once it has taken effect (R11); a retry-exceeded error leaves it indeterminate (R20): info.
        HistoryRecorder.Invocation inv = rec.counterProc.invoke("add", null, 1L);
        try {
            counter.incrementAndGet();
            inv.ok(1L);
            acked++;
        } catch (RuntimeException e) {
            if (unknown(e)) {
                inv.info();
                info++;
            } else {
                inv.fail();
            }
            error("add", e);
        }
    }

    /**
     * A critical section under the ticket lock, which has no lease and no token: a killed holder stalls it until an
     * operator resets it. A lock attempt that timed out keeps its drawn ticket (the handle stays in line), and the
     * lock is this handle's only once a later attempt returns: so a time-out with nothing in flight is {@code fail}.
     */
    private void ticketSection(long deadlineNs) {
        long left = deadlineNs - System.nanoTime();
        if (left <= 0) {
            return;
        }
        long timeoutNs = Math.min(ms(args, "lockTimeoutMs", 1000), left);
        HistoryRecorder.Invocation acq = rec.lockProc.invoke("acquire", null, null);
        LockResult r;
        try {
            r = ticket.lock(timeoutNs, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            if (unknown(e)) {
                acq.info();
            } else {
                acq.fail();
            }
            error("acquire", e);
            return;
        }
        if (!r.acquired()) {
            if (ep.unsettled().isEmpty()) {
                acq.fail();
            } else {
                acq.info();
            }
            say("WAITING " + r);
            return;
        }
        acq.ok(null);
        sections++;
        say("IN_CS 0 " + r + " " + System.nanoTime());
        if (sections <= holds && holdNs > 0) {
            sleepNs(holdNs);
        }
        HistoryRecorder.Invocation rel = rec.lockProc.invoke("release", null, null);
        try {
            ticket.unlock();
            rel.ok(null);
        } catch (RuntimeException e) {
            if (unknown(e)) {
                rel.info();
            } else {
                rel.fail();
            }
            error("release", e);
        }
    }

    private void section(long deadlineNs) {
        if (ticket != null) {
            ticketSection(deadlineNs);
            return;
        }
        long left = deadlineNs - System.nanoTime();
        if (left <= 0) {
            return;
        }
        long timeoutNs = Math.min(ms(args, "lockTimeoutMs", 1000), left);
        HistoryRecorder.Invocation acq = rec.lockProc.invoke("acquire", null, null);
        LockResult r;
        try {
            r = lease.lock(timeoutNs, TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            if (unknown(e)) {
                acq.info();
                strayExpiry();
            } else {
                acq.fail();
            }
            error("acquire", e);
            return;
        }
        if (!r.acquired()) {
            if (ep.unsettled().isEmpty()) {
                acq.fail(); // nothing in flight: the lock was not taken
            } else {
                acq.info(); // a late CAS may still take it
                strayExpiry();
            }
            return;
        }
        acq.ok(null);
        HistoryRecorder.Invocation expiry = rec.expiryProc.invoke("release", null, null);
        long token = lease.fencingToken();
        sections++;
        try {
            register.fence(token);
        } catch (RuntimeException e) {
            error("fence", e);
        }
        say("IN_CS " + token + " " + r + " " + System.nanoTime());
        if (sections <= holds && holdNs > 0) {
            hold(token);
        }
        // The write does not ask whether the lease is still valid, as a holder paused between that check and its
        // write would not know: the register's fencing alone must refuse it if the lock was taken over.
        int value = id * 1_000_000 + (++seq);
        HistoryRecorder.Invocation w = rec.registerProc.invoke("write", null, (long) value);
        try {
            FencedRegister.WriteResult wr = register.write(token, value);
            if (wr == FencedRegister.WriteResult.WRITTEN) {
                w.ok((long) value);
                say("WROTE " + token + " " + value);
            } else {
                w.fail(); // refused: a newer token has written
                say("REFUSED " + token + " " + value);
            }
        } catch (RuntimeException e) {
            if (unknown(e)) {
                w.info();
            } else {
                w.fail();
            }
            error("write", e);
        }
        HistoryRecorder.Invocation rd = rec.registerProc.invoke("read", null, null);
        try {
            rd.ok((long) register.read());
        } catch (RuntimeException e) {
            rd.fail();
            error("read", e);
        }
        HistoryRecorder.Invocation rel = rec.lockProc.invoke("release", null, null);
        try {
            lease.unlock();
            rel.ok(null);
            expiry.fail(); // released by its holder: the lease did not expire
        } catch (IllegalStateException e) {
            rel.fail(); // taken over: the releasing CAS wrote nothing
            expiry.info(); // the lease expired at some time after the acquisition
            say("LOST " + token);
        } catch (RuntimeException e) {
            if (unknown(e)) {
                rel.info();
            } else {
                rel.fail();
            }
            expiry.info();
            error("release", e);
        }
    }

    /** An acquisition of unknown outcome may have landed: then its lease expires some time later. */
    private void strayExpiry() {
        rec.expiryProc.invoke("release", null, null).info();
    }

    private void hold(long token) {
        long end = System.nanoTime() + holdNs;
        boolean lost = false;
        while (System.nanoTime() < end) {
            sleepNs(Math.min(renewNs, Math.max(0, end - System.nanoTime())));
            if (lost) {
                continue;
            }
            try {
                if (!lease.renew()) {
                    lost = true;
                    say("LOST " + token);
                }
            } catch (RuntimeException e) {
                say("ERROR renew " + status(e));
                if (e instanceof IllegalStateException) {
                    lost = true;
                }
            }
        }
    }

    private static void sleepNs(long ns) {
        try {
            TimeUnit.NANOSECONDS.sleep(ns);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long runNs = ms(args, "runMs", 2000);
        int incs = Integer.parseInt(args.getOrDefault("incs", "3"));
        long pauseNs = ms(args, "pauseMs", 2);
        boolean lock = Boolean.parseBoolean(args.getOrDefault("lock", "true"));
        long deadline = System.nanoTime() + runNs;
        say("READY");
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < incs && System.nanoTime() < deadline; i++) {
                increment();
            }
            if (lock) {
                section(deadline);
            }
            sleepNs(pauseNs);
        }
        say("EPOCH " + epoch + " acked " + acked + " info " + info);
        rec.close();
    }

    /**
     * @param argv {@code key=value} settings (see the class comment)
     */
    public static void main(String[] argv) {
        Map<String, String> a = ChildArgs.parse(argv);
        long limitMs = Long.parseLong(a.getOrDefault("runMs", "2000")) + 15_000;
        Thread watchdog = new Thread(() -> {
            sleepNs(limitMs * 1_000_000L);
            System.out.println("HUNG: still running " + limitMs + " ms after the start");
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }, "fault-client-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            new FaultClient(a).run();
        } catch (RuntimeException e) {
            e.printStackTrace();
            System.out.flush();
            Runtime.getRuntime().halt(2);
        }
        say("DONE");
        // Halt, not exit: nothing (no fabric close waiting on a dead peer) may delay the end of a finished client.
        Runtime.getRuntime().halt(0);
    }
}
