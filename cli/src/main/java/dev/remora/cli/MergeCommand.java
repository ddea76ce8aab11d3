package dev.remora.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code remora merge}: merges JSON Lines histories recorded by processes of one host (each by its own
 * {@code HistoryRecorder} with the default clock, {@link System#nanoTime}) into one history in real-time order, for
 * {@code remora check}. See docs/operations.md.
 */
@Command(name = "merge", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Merges JSON Lines histories recorded by several processes of one host into one, by time (each "
        + "file keeps its order; at equal times invocations go first), renumbering the processes per file.")
public final class MergeCommand implements Callable<Integer> {
    @Option(names = {"-o", "--out"}, required = true, paramLabel = "FILE", description = "The merged history.")
    Path out;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Histories, one per process, JSON Lines with "
        + "integer times from one clock.")
    List<Path> files;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    /** Creates the command (called by picocli). */
    public MergeCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter w = spec.commandLine().getOut();
        try {
            long n = merge(files, out);
            w.println(out + ": " + n + " events from " + files.size() + " files");
            w.flush();
            return 0;
        } catch (IOException | RuntimeException e) {
            spec.commandLine().getErr().println("remora merge: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 65;
        }
    }

    /**
     * Merges JSON Lines histories of processes on one host into one, by time: each file is in real-time order already
     * and the times are one host's monotonic clock, so merging keeps every file's order; at equal times the invocation
     * goes first, so tied operations of two processes overlap. Process ids become {@code file * 1,000,000 + id} (files
     * numbered from 1; {@code "file:id"} for an id that is not an integer below a million), and each event gets a
     * {@code source} field, the number of its file.
     *
     * @param files the histories, each from one process, in real-time order each
     * @param merged where to write the merged history
     * @return the number of events written
     * @throws IOException if a file cannot be read or written, or an event has no process or integer time
     */
    static long merge(List<Path> files, Path merged) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<List<ObjectNode>> events = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            List<ObjectNode> list = new ArrayList<>();
            int number = 0;
            for (String line : Files.readAllLines(files.get(i), StandardCharsets.UTF_8)) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node = json.readTree(line);
                if (!(node instanceof ObjectNode e)) {
                    throw new IOException(files.get(i) + " line " + number + ": not a JSON object: " + line);
                }
                JsonNode p = e.get("process");
                JsonNode t = e.get("time");
                if (p == null || t == null || !t.canConvertToLong()) {
                    throw new IOException(files.get(i) + " line " + number + ": an event needs a process "
                        + "and an integer time to be merged: " + line);
                }
                if (p.canConvertToLong() && p.asLong() >= 0 && p.asLong() < 1_000_000) {
                    e.put("process", (i + 1) * 1_000_000L + p.asLong());
                } else {
                    e.put("process", (i + 1) + ":" + p.asText());
                }
                e.put("source", i + 1);
                list.add(e);
            }
            events.add(list);
        }
        Comparator<ObjectNode> order = Comparator.<ObjectNode>comparingLong(e -> e.get("time").asLong())
            .thenComparingInt(e -> "invoke".equals(e.get("type").asText()) ? 0 : 1);
        int[] next = new int[events.size()];
        long written = 0;
        try (BufferedWriter w = Files.newBufferedWriter(merged, StandardCharsets.UTF_8)) {
            while (true) {
                int best = -1;
                for (int i = 0; i < events.size(); i++) {
                    if (next[i] < events.get(i).size() && (best < 0
                        || order.compare(events.get(i).get(next[i]), events.get(best).get(next[best])) < 0)) {
                        best = i;
                    }
                }
                if (best < 0) {
                    return written;
                }
                w.write(json.writeValueAsString(events.get(best).get(next[best]++)));
                w.write('\n');
                written++;
            }
        }
    }
}
