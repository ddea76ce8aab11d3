package dev.remora.locks.faults;

import dev.remora.locks.FencedRegister;
import dev.remora.locks.LeaseLock;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildArgs;

import java.util.Map;

/**
 * The home process of the fault tests, run as a child JVM: a socket fabric with one node holding a
 * {@link RemoteCounter} ({@value #COUNTER}), a {@link LeaseLock} ({@value #LEASE}) with its {@link FencedRegister}
 * ({@value #REGISTER}) and a {@link TicketLock} ({@value #TICKET}), each published under its name. Prints
 * {@code HOME <address>} when they are published and lives until it is killed.
 *
 * <p>Arguments, {@code key=value}: {@code host} (default 127.0.0.1), {@code port} (default 0: any), {@code secret}
 * (none unless given; a non-loopback host needs one), {@code leaseMs} (default 300), {@code marginMs} (default 100),
 * {@code retryMs} (the fabric's retry timeout, default 300).
 */
public final class FaultHome {
    /** Published name of the counter word. */
    public static final String COUNTER = "counter";
    /** Published name of the lease lock. */
    public static final String LEASE = "lease";
    /** Published name of the fenced register. */
    public static final String REGISTER = "register";
    /** Published name of the ticket lock. */
    public static final String TICKET = "ticket";

    private FaultHome() {
    }

    /**
     * @param args {@code key=value} settings (see the class comment)
     * @throws InterruptedException never in practice: the process is killed
     */
    public static void main(String[] args) throws InterruptedException {
        Map<String, String> a = ChildArgs.parse(args);
        SocketContext ctx = new SocketContext().host(a.getOrDefault("host", "127.0.0.1"))
            .port(Integer.parseInt(a.getOrDefault("port", "0")))
            .secret(a.get("secret"))
            .retryTimeoutNs(Long.parseLong(a.getOrDefault("retryMs", "300")) * 1_000_000L);
        SocketFabric fabric = SocketFabric.open(ctx);
        Node home = fabric.addNode("home");
        long leaseNs = Long.parseLong(a.getOrDefault("leaseMs", "300")) * 1_000_000L;
        long marginNs = Long.parseLong(a.getOrDefault("marginMs", "100")) * 1_000_000L;
        fabric.publish(COUNTER, RemoteCounter.create(home));
        fabric.publish(LEASE, LeaseLock.create(home, leaseNs, marginNs).address());
        fabric.publish(REGISTER, FencedRegister.create(home).address());
        fabric.publish(TICKET, TicketLock.create(home).address());
        System.out.println("HOME " + home.address());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000); // serves until killed: the fabric's service thread answers the verbs
        }
    }
}
