package dev.remora.stress;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs jcstress ({@code org.openjdk.jcstress.Main}) with its console output (a banner of about a hundred lines, then
 * its progress) written to a file, and one line on standard output every 30 s while it runs: the last of jcstress's
 * own {@code (Results: ...)} lines, so that the build's log says how far the run is without carrying the banner.
 *
 * <p>Usage: {@code JcstressLauncher OUTPUT_FILE JCSTRESS_ARGS...}. jcstress's exit is this program's: it exits 1 when
 * a test fails, which the build checks in the file afterwards.
 */
public final class JcstressLauncher {
    /** How often a progress line is printed. */
    static final long PROGRESS_NS = TimeUnit.SECONDS.toNanos(30);
    private static final String RESULTS = "(Results:";

    private JcstressLauncher() {
    }

    /**
     * @param args the output file, then jcstress's arguments
     * @throws Exception whatever jcstress throws (its report of failed tests among it)
     */
    public static void main(String... args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: JcstressLauncher OUTPUT_FILE JCSTRESS_ARGS...");
            System.exit(64);
        }
        PrintStream console = System.out;
        PrintStream consoleErr = System.err;
        try (LastResults file = new LastResults(new FileOutputStream(args[0]));
             PrintStream out = new PrintStream(file, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            System.setErr(out);
            long start = System.nanoTime();
            Thread progress = new Thread(() -> {
                try {
                    while (true) {
                        TimeUnit.NANOSECONDS.sleep(PROGRESS_NS);
                        String last = file.last();
                        console.printf(Locale.ROOT, "[jcstress] after %d s: %s%n",
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                            last == null ? "probing the JVM" : last);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "jcstress-progress");
            progress.setDaemon(true);
            progress.start();
            try {
                org.openjdk.jcstress.Main.main(Arrays.copyOfRange(args, 1, args.length));
            } catch (Exception | Error e) {
                e.printStackTrace(out); // jcstress's "TEST FAILURES" report, into the file the build checks
                throw e;
            } finally {
                progress.interrupt();
                System.setOut(console);
                System.setErr(consoleErr);
            }
        }
    }

    /** The file's stream, keeping the last complete line that starts with {@code (Results:}. */
    static final class LastResults extends OutputStream {
        private final OutputStream file;
        private final StringBuilder line = new StringBuilder();
        private volatile String last;

        LastResults(OutputStream file) {
            this.file = file;
        }

        /** @return the last results line seen, or null */
        String last() {
            return last;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            file.write(b);
            see(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            file.write(b, off, len);
            for (int i = off; i < off + len; i++) {
                see(b[i]);
            }
        }

        private void see(int b) {
            if (b == '\n') {
                if (line.indexOf(RESULTS) == 0) {
                    last = line.toString().trim();
                }
                line.setLength(0);
            } else if (line.length() < 200) {
                line.append((char) (b & 0xFF));
            }
        }

        @Override
        public synchronized void flush() throws IOException {
            file.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            file.close();
        }
    }
}
