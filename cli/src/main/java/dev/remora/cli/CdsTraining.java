package dev.remora.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The training run for the launcher's class-data-sharing archive: the {@code remora} script runs
 * it once per build of the jar under {@code -XX:ArchiveClassesAtExit}, so that the classes a
 * {@code remora check} loads (the plain-argument path, the four history readers, the register and
 * key-value models, the search and the explanation of a failure) are archived already parsed and
 * verified. It checks small histories of each format written to a temporary directory, with
 * standard output and error discarded, and always exits 0; the archive is an optimisation.
 */
public final class CdsTraining {
    private CdsTraining() {
    }

    /** Five clients on a register, one timed out, and a stale read at the end: not linearizable. */
    private static final String JEPSEN = String.join("\n",
            "INFO  jepsen.util - 0\t:invoke\t:write\t1",
            "INFO  jepsen.util - 1\t:invoke\t:cas\t[1 2]",
            "INFO  jepsen.util - 0\t:ok\t:write\t1",
            "INFO  jepsen.util - 2\t:invoke\t:write\t3",
            "INFO  jepsen.util - 1\t:ok\t:cas\t[1 2]",
            "INFO  jepsen.util - 3\t:invoke\t:cas\t[0 4]",
            "INFO  jepsen.util - 2\t:info\t:write\t:timed-out",
            "INFO  jepsen.util - 3\t:fail\t:cas\t[0 4]",
            "INFO  jepsen.util - 4\t:invoke\t:write\t0",
            "INFO  jepsen.util - 4\t:ok\t:write\t0",
            "INFO  jepsen.util - 0\t:invoke\t:read\tnil",
            "INFO  jepsen.util - 0\t:ok\t:read\t1", "");

    private static final String KV = String.join("\n",
            "{:process 0, :type :invoke, :f :append, :key \"0\", :value \"x 0 0 y\"}",
            "{:process 1, :type :invoke, :f :get, :key \"0\", :value nil}",
            "{:process 0, :type :ok, :f :append, :key \"0\", :value \"x 0 0 y\"}",
            "{:process 1, :type :ok, :f :get, :key \"0\", :value \"x 0 0 y\"}",
            "{:process 2, :type :invoke, :f :put, :key \"1\", :value \"x 2 0 y\"}",
            "{:process 2, :type :ok, :f :put, :key \"1\", :value \"x 2 0 y\"}", "");

    private static final String EDN = "[{:process 0, :type :invoke, :f :write, :value 1}\n"
            + " {:process 0, :type :ok, :f :write, :value 1}\n"
            + " {:process 1, :type :invoke, :f :read, :value nil}\n"
            + " {:process 1, :type :ok, :f :read, :value 1}]\n";

    private static final String JSONL = "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":1}\n"
            + "{\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":1}\n";

    /**
     * Entry point.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream devNull = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(devNull);
        System.setErr(devNull);
        Path dir = null;
        try {
            dir = Files.createTempDirectory("remora-cds");
            Path jepsen = Files.writeString(dir.resolve("a.log"), JEPSEN);
            Path kv = Files.writeString(dir.resolve("b.txt"), KV);
            Path edn = Files.writeString(dir.resolve("c.edn"), EDN);
            Path jsonl = Files.writeString(dir.resolve("d.jsonl"), JSONL);
            for (int i = 0; i < 3; i++) {
                RemoraMain.run(new String[] {"check", "--model", "cas-register", jepsen.toString(), edn.toString()});
                RemoraMain.run(new String[] {"check", "--model", "kv", kv.toString()});
                RemoraMain.run(new String[] {"check", "--model", "register", "--json", jsonl.toString()});
            }
            RemoraMain.run(new String[] {"check", "--version"}); // picocli's path, for --help, --version and errors
        } catch (IOException | RuntimeException e) {
            // no archive content is lost by stopping early
        } finally {
            System.setOut(out);
            System.setErr(err);
            if (dir != null) {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException e) {
                    // a temporary directory left behind
                }
            }
        }
    }
}
