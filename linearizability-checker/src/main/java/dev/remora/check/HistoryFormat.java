package dev.remora.check;

import java.util.Locale;

/**
 * The history formats the checker reads, and what {@code :fail} means in each.
 *
 * <table>
 *   <caption>Formats</caption>
 *   <tr><th>name</th><th>shape</th><th>{@code :fail} means</th></tr>
 *   <tr><td>{@code knossos-edn}</td><td>one EDN vector or list of event maps</td>
 *       <td>did not happen</td></tr>
 *   <tr><td>{@code jepsen-log}</td><td>{@code INFO jepsen.util - P :type :f value} lines</td>
 *       <td>{@code :cas}: happened and returned false; with {@code :timed-out}: indeterminate;
 *       otherwise did not happen</td></tr>
 *   <tr><td>{@code kv-log}</td><td>one EDN map a line, with {@code :key}</td>
 *       <td>did not happen</td></tr>
 *   <tr><td>{@code jsonl}</td><td>Remora's JSON Lines, see {@code docs/history-format.md}</td>
 *       <td>did not happen</td></tr>
 * </table>
 */
public enum HistoryFormat {
    /** Knossos EDN: a vector of maps. */
    KNOSSOS_EDN("knossos-edn"),
    /** Jepsen's text log, as in Porcupine's etcd test data. */
    JEPSEN_LOG("jepsen-log"),
    /** A key-value log: one EDN map per line. */
    KV_LOG("kv-log"),
    /** Remora's JSON Lines format. */
    JSONL("jsonl");

    private final String cliName;

    HistoryFormat(String cliName) {
        this.cliName = cliName;
    }

    /** @return the name used on the command line */
    public String cliName() {
        return cliName;
    }

    /**
     * Looks a format up by its command-line name.
     *
     * @param name such as {@code knossos-edn}; {@code edn}, {@code jepsen}, {@code kv} and
     *             {@code json} are accepted too
     * @return the format, or {@code null} when unknown
     */
    public static HistoryFormat byName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (HistoryFormat f : values()) {
            if (f.cliName.equals(n)) {
                return f;
            }
        }
        switch (n) {
            case "edn": case "knossos": return KNOSSOS_EDN;
            case "jepsen": case "log": return JEPSEN_LOG;
            case "kv": return KV_LOG;
            case "json": case "json-lines": return JSONL;
            default: return null;
        }
    }

    /**
     * Guesses the format from the start of a file.
     *
     * @param text the file's text (only its first non-blank, non-comment line is looked at)
     * @return the format, or {@code null} when none fits
     */
    public static HistoryFormat detect(CharSequence text) {
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == ',') {
                i++;
            } else if (c == ';' || c == '#' && i + 1 < n && text.charAt(i + 1) == '!') {
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
            } else {
                break;
            }
        }
        if (i >= n) {
            return null;
        }
        char c = text.charAt(i);
        if (c == '[' || c == '(') {
            return KNOSSOS_EDN;
        }
        if (c == '{') {
            int j = i + 1;
            while (j < n && Character.isWhitespace(text.charAt(j))) {
                j++;
            }
            if (j < n && text.charAt(j) == '"') {
                return JSONL;
            }
            if (j < n && text.charAt(j) == ':') {
                return KV_LOG;
            }
            return j < n && text.charAt(j) == '}' ? JSONL : null;
        }
        int end = i;
        while (end < n && text.charAt(end) != '\n') {
            end++;
        }
        String line = text.subSequence(i, end).toString();
        if (line.matches(".*\\s-\\s+\\S+\\s+:(invoke|ok|fail|info)\\s+.*")) {
            return JEPSEN_LOG;
        }
        return null;
    }
}
