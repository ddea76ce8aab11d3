package dev.remora.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code remora litmus --compare RESULT}: reads a result file of the conformance kit ({@link LitmusResult}) back and
 * states, per test, whether the provider stayed inside the model (no outcome the model forbids) and which weak
 * outcomes (allowed by the model, not by sequential consistency) it showed. Exit status: 0 inside the model, 1 an
 * outcome outside it, 65 a malformed file (its line and field named on standard error), 64 a missing file.
 */
final class LitmusCompare {
    private LitmusCompare() {
    }

    static int run(Path file, PrintWriter out, PrintWriter err) {
        if (!Files.isRegularFile(file)) {
            err.println(file + ": no such file");
            err.flush();
            return LitmusCommand.EXIT_USAGE;
        }
        LitmusResult.Read r;
        try {
            r = LitmusResult.read(file);
        } catch (LitmusResult.MalformedResultException e) {
            err.println(e.getMessage());
            err.flush();
            return LitmusCommand.EXIT_MALFORMED;
        } catch (IOException e) {
            err.println(file + ": cannot read: " + e.getMessage());
            err.flush();
            return LitmusCommand.EXIT_MALFORMED;
        }
        var h = r.header();
        out.printf(Locale.ROOT, "%s: fabric %s, device %s, firmware %s, host %s, JDK %s, %d runs a test, %s%n", file,
            r.fabric(), h.get("device").asText(), h.get("firmware").asText(), h.get("host").asText(),
            h.get("jdk").asText(), h.get("runs").asLong(), h.get("date").asText());
        List<String> outside = new ArrayList<>();
        List<String> weak = new ArrayList<>();
        int run = 0;
        int notRun = 0;
        for (LitmusResult.Test t : r.tests()) {
            if (t.skipped() != null) {
                notRun++;
                out.println(t.id() + ": not run (" + t.skipped() + ")");
                continue;
            }
            run++;
            List<String> forbidden = new ArrayList<>();
            List<String> shown = new ArrayList<>();
            List<String> unknown = new ArrayList<>();
            for (LitmusResult.Outcome o : t.outcomes()) {
                // A final outcome of a forbidden test is outside the model whatever the file's model field says.
                boolean outsideModel = o.model() == LitmusResult.Model.FORBIDDEN
                    || o.isFinal() && t.expected().equals("forbidden");
                String seen = o.values() + " " + o.count() + "/" + t.runs();
                if (outsideModel) {
                    forbidden.add(seen);
                } else if (o.model() == LitmusResult.Model.UNKNOWN) {
                    unknown.add(seen);
                } else if (Boolean.TRUE.equals(o.weak())) {
                    shown.add(seen);
                }
            }
            StringBuilder line = new StringBuilder(t.id() + " (" + t.file() + ", final " + t.finalPredicate()
                + " expected " + t.expected() + "): ");
            if (!forbidden.isEmpty()) {
                outside.add(t.id());
                line.append("OUTSIDE THE MODEL: forbidden outcome").append(forbidden.size() == 1 ? " " : "s ")
                    .append(String.join("; ", forbidden));
            } else {
                line.append("inside the model");
            }
            if (!shown.isEmpty()) {
                weak.add(t.id());
                line.append("; weak outcome").append(shown.size() == 1 ? "" : "s").append(" shown: ")
                    .append(String.join("; ", shown));
            } else {
                line.append("; no weak outcome shown");
            }
            if (!unknown.isEmpty()) {
                line.append("; undecided by the model's bounded search: ").append(String.join("; ", unknown));
            }
            out.println(line);
        }
        if (outside.isEmpty()) {
            out.println("inside the model: " + run + " of " + run + " tests run on " + r.fabric() + "; weak outcomes "
                + "shown in " + weak.size() + (weak.isEmpty() ? "" : " " + weak) + (notRun == 0 ? ""
                : "; " + notRun + " not run"));
        } else {
            out.println("OUTSIDE THE MODEL: " + outside.size() + " of " + run + " tests run on " + r.fabric() + " "
                + outside + "; weak outcomes shown in " + weak.size() + (notRun == 0 ? "" : "; " + notRun
                + " not run"));
        }
        out.flush();
        return outside.isEmpty() ? LitmusCommand.EXIT_AGREE : LitmusCommand.EXIT_DISAGREE;
    }
}
