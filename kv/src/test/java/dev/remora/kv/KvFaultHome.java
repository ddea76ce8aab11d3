package dev.remora.kv;

import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildArgs;

import java.util.Map;

/**
 * The home process of the kv fault test ({@link KvProcessFaultTest}), run as a child JVM: a socket fabric with
 * one node whose memory holds a {@link CuckooMap} table, published as {@value #TABLE}. Its CPU writes the header and
 * then only the fabric's service thread runs, answering the clients' one-sided verbs. Prints {@code HOME <address>}
 * once the table is published and lives until it is killed.
 *
 * <p>Arguments, {@code key=value}: {@code rows} (default 8), {@code slots} (1), {@code clients} (64), {@code leaseMs}
 * (500), {@code marginMs} (250), {@code retryMs} (the fabric's retry timeout, 300), {@code port} (0: any).
 */
public final class KvFaultHome {
    /** Published name of the table. */
    public static final String TABLE = "kv";

    private KvFaultHome() {
    }

    /**
     * The table's shape from the arguments (the test reads the same arguments to check the table's memory).
     *
     * @param a the arguments
     * @return the shape
     */
    static CuckooMap.Params params(Map<String, String> a) {
        return new CuckooMap.Params().rows(Integer.parseInt(a.getOrDefault("rows", "8")))
            .slotsPerRow(Integer.parseInt(a.getOrDefault("slots", "1")))
            .clients(Integer.parseInt(a.getOrDefault("clients", "64")))
            .lease(Long.parseLong(a.getOrDefault("leaseMs", "500")) * 1_000_000L,
                Long.parseLong(a.getOrDefault("marginMs", "250")) * 1_000_000L);
    }

    /**
     * @param args {@code key=value} settings (see the class comment)
     * @throws InterruptedException never in practice: the process is killed
     */
    public static void main(String[] args) throws InterruptedException {
        Map<String, String> a = ChildArgs.parse(args);
        SocketFabric fabric = SocketFabric.open(new SocketContext().host("127.0.0.1")
            .port(Integer.parseInt(a.getOrDefault("port", "0")))
            .retryTimeoutNs(Long.parseLong(a.getOrDefault("retryMs", "300")) * 1_000_000L));
        Node home = fabric.addNode("home");
        fabric.publish(TABLE, CuckooMap.allocate(home, params(a)));
        System.out.println("HOME " + home.address());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000); // serves until killed: the fabric's service thread answers the verbs
        }
    }
}
