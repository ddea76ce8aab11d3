package dev.remora.verbs.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The child process of {@code ChildJvmTest}: prints {@code READY <pid>}, then answers each line of stdin with the line
 * uppercased; on {@code quit} it exits with status 3, on {@code hang} it sleeps until killed. With the argument
 * {@code throw} its {@code main} throws before printing anything.
 */
public final class EchoMain {
    private EchoMain() {
    }

    /**
     * @param args {@code throw} to fail at once
     * @throws Exception when asked to throw, or on an I/O error
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("throw")) {
            throw new IllegalStateException("EchoMain was asked to throw");
        }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line) {
                case "quit" -> {
                    System.out.println("BYE");
                    System.out.flush();
                    System.exit(3);
                }
                case "hang" -> {
                    System.out.println("HANGING");
                    System.out.flush();
                    Thread.sleep(Long.MAX_VALUE);
                }
                default -> {
                    System.out.println(line.toUpperCase(Locale.ROOT));
                    System.out.flush();
                }
            }
        }
        throw new IOException("stdin closed before quit");
    }
}
