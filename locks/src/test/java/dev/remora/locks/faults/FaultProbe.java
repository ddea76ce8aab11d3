package dev.remora.locks.faults;

import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.socket.SocketContext;
import dev.remora.verbs.socket.SocketFabric;
import dev.remora.verbs.testing.ChildArgs;

import java.util.Map;

/**
 * Reads a {@link FaultHome}'s counter and register word from a child JVM (for a home in a network namespace that the
 * test JVM cannot reach) and prints {@code READ <counter> <register token> <register value>}.
 *
 * <p>Arguments, {@code key=value}: {@code home} (host:port), {@code host} (this process's own address, default
 * 127.0.0.1), {@code secret}.
 */
public final class FaultProbe {
    private FaultProbe() {
    }

    /**
     * @param args {@code key=value} settings (see the class comment)
     */
    public static void main(String[] args) {
        Map<String, String> a = ChildArgs.parse(args);
        FaultCluster.Reading r = read(a.get("home"), a.getOrDefault("host", "127.0.0.1"), a.get("secret"));
        System.out.println("READ " + r.counter() + " " + r.registerToken() + " " + r.registerValue());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * Reads the counter and the register over a socket fabric of this process.
     *
     * @param home the home's address
     * @param host this process's own address
     * @param secret the cluster secret, or null
     * @return what it read
     */
    static FaultCluster.Reading read(String home, String host, String secret) {
        try (SocketFabric f = SocketFabric.open(new SocketContext().host(host).port(0).secret(secret)
            .retryTimeoutNs(2_000_000_000L).connectTimeoutNs(5_000_000_000L))) {
            Node me = f.addNode("probe");
            f.connect(home);
            try (Endpoint ep = Endpoint.open(me, new Endpoint.Context().operationTimeoutNs(5_000_000_000L))) {
                long c = ep.readLong(f.lookup(FaultHome.COUNTER));
                long w = ep.readLong(f.lookup(FaultHome.REGISTER));
                return new FaultCluster.Reading(c, w >>> 32, (int) w);
            }
        }
    }
}
