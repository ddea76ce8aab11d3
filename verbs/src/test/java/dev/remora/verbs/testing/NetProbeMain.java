package dev.remora.verbs.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A network probe for {@code NetNsTest}, run in a namespace by {@link ChildJvm} (there may be no {@code ping}).
 * <ul>
 *   <li>{@code server ADDRESS}: listens on TCP and UDP at the same free port of ADDRESS, prints
 *       {@code LISTENING <port>}, echoes every byte of every TCP connection (a thread each) and every datagram.</li>
 *   <li>{@code client}: reads commands from stdin, one line each, and prints one line of answer:
 *     <ul>
 *       <li>{@code connect HOST PORT TIMEOUT_MS}: {@code CONNECTED <µs>}, or
 *           {@code FAIL <exception> <ms> <message>};</li>
 *       <li>{@code rtt HOST PORT N}: connects, does N one-byte TCP round trips, {@code RTT <min µs> <median µs>},
 *           or {@code FAIL ...} (each read waits 3 s at most);</li>
 *       <li>{@code hold HOST PORT}: opens a connection and keeps it, {@code HELD};</li>
 *       <li>{@code held B TIMEOUT_MS}: sends the byte B (0 to 127) on the held connection and reads until B comes
 *           back (skipping older echoes that arrive late), {@code PONG <µs>}, or {@code FAIL ...} on timeout;</li>
 *       <li>{@code udp HOST PORT N}: sends N datagrams 0.1 ms apart, counts the echoes that come back within 1 s of
 *           the last send, {@code UDP <received>}.</li>
 *     </ul></li>
 * </ul>
 */
public final class NetProbeMain {
    private NetProbeMain() {
    }

    /**
     * @param args {@code server ADDRESS} or {@code client}
     * @throws Exception on an I/O error of the server
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("server")) {
            server(InetAddress.getByName(args[1]));
        } else if (args.length == 1 && args[0].equals("client")) {
            client();
        } else {
            throw new IllegalArgumentException("usage: server ADDRESS | client: " + Arrays.toString(args));
        }
    }

    private static void server(InetAddress address) throws IOException {
        ServerSocket tcp = new ServerSocket();
        tcp.bind(new InetSocketAddress(address, 0));
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(address, tcp.getLocalPort()));
        Thread udpEcho = new Thread(() -> {
            byte[] buf = new byte[64];
            try {
                while (true) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    udp.receive(p);
                    udp.send(new DatagramPacket(buf, p.getLength(), p.getSocketAddress()));
                }
            } catch (IOException e) {
                e.printStackTrace();
            }
        }, "udp-echo");
        udpEcho.setDaemon(true);
        udpEcho.start();
        System.out.println("LISTENING " + tcp.getLocalPort());
        System.out.flush();
        while (true) {
            Socket s = tcp.accept();
            Thread t = new Thread(() -> echo(s), "tcp-echo");
            t.setDaemon(true);
            t.start();
        }
    }

    private static void echo(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[256];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // the peer went away
        }
    }

    private static void client() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            String answer;
            long t0 = System.nanoTime();
            try {
                answer = switch (w[0]) {
                    case "connect" -> connect(w[1], Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                    case "rtt" -> rtt(w[1], Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                    case "udp" -> udp(w[1], Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                    case "hold" -> hold(w[1], Integer.parseInt(w[2]));
                    case "held" -> held(Integer.parseInt(w[1]), Integer.parseInt(w[2]));
                    default -> "FAIL unknown-command 0 " + line;
                };
            } catch (IOException e) {
                answer = "FAIL " + e.getClass().getName() + " " + (System.nanoTime() - t0) / 1_000_000 + " "
                    + e.getMessage();
            }
            System.out.println(answer);
            System.out.flush();
        }
    }

    private static Socket heldSocket;

    private static String hold(String host, int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(host, port), 3000);
        s.setTcpNoDelay(true);
        heldSocket = s;
        return "HELD";
    }

    private static String held(int b, int timeoutMs) throws IOException {
        if (heldSocket == null) {
            return "FAIL no-connection 0 hold first";
        }
        long t0 = System.nanoTime();
        heldSocket.setSoTimeout(timeoutMs);
        heldSocket.getOutputStream().write(b);
        heldSocket.getOutputStream().flush();
        while (true) {
            int got = heldSocket.getInputStream().read();
            if (got < 0) {
                throw new IOException("the held connection was closed by the peer");
            }
            if (got == b) {
                return "PONG " + (System.nanoTime() - t0) / 1000;
            }
        }
    }

    private static String connect(String host, int port, int timeoutMs) throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), timeoutMs);
            return "CONNECTED " + (System.nanoTime() - t0) / 1000;
        }
    }

    private static String rtt(String host, int port, int n) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 3000);
            s.setTcpNoDelay(true);
            s.setSoTimeout(3000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            long[] us = new long[n];
            for (int k = 0; k < n; k++) {
                long t0 = System.nanoTime();
                out.write(k & 0x7f);
                out.flush();
                if (in.read() != (k & 0x7f)) {
                    throw new IOException("echo of round trip " + k + " is wrong or missing");
                }
                us[k] = (System.nanoTime() - t0) / 1000;
            }
            Arrays.sort(us);
            return "RTT " + us[0] + " " + us[n / 2];
        }
    }

    private static String udp(String host, int port, int n) throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.setReceiveBufferSize(1 << 20);
            InetSocketAddress to = new InetSocketAddress(host, port);
            byte[] msg = new byte[8];
            for (int k = 0; k < n; k++) {
                s.send(new DatagramPacket(msg, msg.length, to));
                // Paced, so that no socket buffer overflows: only the fault under test loses datagrams.
                LockSupport.parkNanos(100_000);
            }
            long deadline = System.nanoTime() + 1_000_000_000L;
            int received = 0;
            byte[] buf = new byte[64];
            while (received < n) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                s.setSoTimeout((int) left);
                try {
                    s.receive(new DatagramPacket(buf, buf.length));
                    received++;
                } catch (SocketTimeoutException e) {
                    break;
                }
            }
            return "UDP " + received;
        }
    }
}
