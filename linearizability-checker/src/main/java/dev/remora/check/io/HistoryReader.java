package dev.remora.check.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.remora.check.Event;
import dev.remora.check.EventType;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.Keyword;
import dev.remora.check.MalformedHistoryException;
import dev.remora.check.Values;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads histories in any {@link HistoryFormat}, detecting the format when none is given.
 * Every error names the file, the line and what was expected.
 */
public final class HistoryReader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HistoryReader() {
    }

    /**
     * Reads a history file.
     *
     * @param file   the file
     * @param format the format, or {@code null} to detect it
     * @return the history
     * @throws IOException               when the file cannot be read
     * @throws MalformedHistoryException when it is not a valid history
     */
    public static History read(Path file, HistoryFormat format) throws IOException, MalformedHistoryException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        return read(file.toString(), text, format);
    }

    /**
     * Reads a history from text.
     *
     * @param source name for messages
     * @param text   the text
     * @param format the format, or {@code null} to detect it
     * @return the history
     * @throws MalformedHistoryException when it is not a valid history
     */
    public static History read(String source, String text, HistoryFormat format) throws MalformedHistoryException {
        HistoryFormat f = format != null ? format : HistoryFormat.detect(text);
        if (f == null) {
            throw new MalformedHistoryException(source, 1, "cannot detect the history format; expected a"
                    + " Knossos EDN vector, Jepsen log lines, key-value EDN maps or JSON Lines (or give --format)");
        }
        List<Event> events;
        switch (f) {
            case KNOSSOS_EDN: events = readKnossos(source, text); break;
            case JEPSEN_LOG: events = readJepsenLog(source, text); break;
            case KV_LOG: events = readKvLog(source, text); break;
            case JSONL: events = readJsonLines(source, text); break;
            default: throw new IllegalStateException(f.toString());
        }
        return History.fromEvents(source, f, events);
    }

    static List<Event> readKnossos(String source, String text) throws MalformedHistoryException {
        EdnParser p = new EdnParser(source, text, 1);
        char close = p.openTopLevel();
        List<Event> out = new ArrayList<>();
        while (!p.tryClose(close)) {
            int line = p.line();
            Object v = p.read();
            out.add(toEvent(source, line, v, ednFields()));
        }
        if (p.skipSpace()) {
            throw p.error("unexpected text after the closing '" + close + "'; expected end of file");
        }
        return out;
    }

    static List<Event> readKvLog(String source, String text) throws MalformedHistoryException {
        List<Event> out = new ArrayList<>();
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith(";")) {
                continue;
            }
            EdnParser p = new EdnParser(source, t, lineNo);
            Object v = p.read();
            if (p.skipSpace()) {
                throw p.error("unexpected text after the event map; expected one map per line");
            }
            out.add(toEvent(source, lineNo, v, ednFields()));
        }
        return out;
    }

    static List<Event> readJepsenLog(String source, String text) throws MalformedHistoryException {
        List<Event> out = new ArrayList<>();
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            int dash = line.indexOf(" - ");
            if (dash < 0 || !line.substring(0, dash).contains("jepsen.util")) {
                continue; // other loggers' lines carry no events
            }
            String rest = line.substring(dash + 3).strip();
            String[] parts = rest.split("\\s+", 4);
            if (parts.length < 3) {
                throw new MalformedHistoryException(source, lineNo, "expected 'PROCESS :type :f value' after"
                        + " 'jepsen.util - ', found '" + rest + "'");
            }
            Object process = new EdnParser(source, parts[0], lineNo).read();
            if (!(process instanceof Long || process instanceof Keyword)) {
                throw new MalformedHistoryException(source, lineNo, "process '" + parts[0]
                        + "' is not an integer or keyword; expected a process id");
            }
            EventType type = parts[1].startsWith(":") ? EventType.parse(parts[1]) : null;
            if (type == null) {
                throw new MalformedHistoryException(source, lineNo, "type '" + parts[1]
                        + "'; expected :invoke, :ok, :fail or :info");
            }
            if (!parts[2].startsWith(":") || parts[2].length() < 2) {
                throw new MalformedHistoryException(source, lineNo, "function '" + parts[2]
                        + "'; expected a keyword such as :read");
            }
            Object value = null;
            if (parts.length == 4 && !parts[3].isBlank()) {
                EdnParser vp = new EdnParser(source, parts[3], lineNo);
                value = vp.read();
                if (vp.skipSpace()) {
                    throw vp.error("unexpected text after the value '" + parts[3] + "'; expected one EDN value");
                }
            }
            out.add(new Event(process, type, parts[2].substring(1), null, value, Event.NO_TIME, lineNo));
        }
        return out;
    }

    static List<Event> readJsonLines(String source, String text) throws MalformedHistoryException {
        List<Event> out = new ArrayList<>();
        int lineNo = 0;
        int start = 0;
        int n = text.length();
        while (start < n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            lineNo++;
            String line = text.substring(start, end);
            start = end + 1;
            if (line.isBlank()) {
                continue;
            }
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                int col = e.getLocation() == null ? 0 : e.getLocation().getColumnNr();
                throw new MalformedHistoryException(source, lineNo, "invalid JSON at column " + col + ": "
                        + e.getOriginalMessage().split("\n")[0] + "; expected one JSON object per line");
            }
            if (node == null || !node.isObject()) {
                throw new MalformedHistoryException(source, lineNo, "expected a JSON object, found "
                        + (node == null ? "nothing" : node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT)));
            }
            out.add(toEvent(source, lineNo, fromJson(node), jsonFields()));
        }
        return out;
    }

    private static Object fromJson(JsonNode n) {
        if (n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isIntegralNumber()) {
            return Values.normalize(n.bigIntegerValue());
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>(n.size());
            for (JsonNode e : n) {
                l.add(fromJson(e));
            }
            return l;
        }
        Map<Object, Object> m = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), fromJson(e.getValue()));
        }
        return m;
    }

    private static Object[] ednFields() {
        return new Object[] {new Keyword("process"), new Keyword("type"), new Keyword("f"),
            new Keyword("value"), new Keyword("key"), new Keyword("time")};
    }

    private static Object[] jsonFields() {
        return new Object[] {"process", "type", "f", "value", "key", "time"};
    }

    private static Event toEvent(String source, int line, Object v, Object[] fields) throws MalformedHistoryException {
        if (!(v instanceof Map)) {
            throw new MalformedHistoryException(source, line, "expected an event map {:process .., :type .., :f ..},"
                    + " found " + Values.show(v));
        }
        Map<?, ?> m = (Map<?, ?>) v;
        Object process = m.get(fields[0]);
        if (!(process instanceof Long || process instanceof String || process instanceof Keyword)) {
            throw new MalformedHistoryException(source, line, "field " + fields[0] + " is "
                    + (m.containsKey(fields[0]) ? Values.show(process) : "missing")
                    + "; expected an integer, string or keyword process id");
        }
        Object typeV = m.get(fields[1]);
        EventType type = typeV instanceof Keyword ? EventType.parse(((Keyword) typeV).name())
                : typeV instanceof String ? EventType.parse((String) typeV) : null;
        if (type == null) {
            throw new MalformedHistoryException(source, line, "field " + fields[1] + " is "
                    + (m.containsKey(fields[1]) ? Values.show(typeV) : "missing")
                    + "; expected invoke, ok, fail or info");
        }
        Object fV = m.get(fields[2]);
        String f = fV instanceof Keyword ? ((Keyword) fV).name() : fV instanceof String ? (String) fV : null;
        if (f == null || f.isEmpty()) {
            throw new MalformedHistoryException(source, line, "field " + fields[2] + " is "
                    + (m.containsKey(fields[2]) ? Values.show(fV) : "missing")
                    + "; expected the operation's name, such as read");
        }
        Object timeV = m.get(fields[5]);
        long time = Event.NO_TIME;
        if (timeV != null) {
            if (!(timeV instanceof Long)) {
                throw new MalformedHistoryException(source, line, "field " + fields[5] + " is "
                        + Values.show(timeV) + "; expected an integer time in nanoseconds");
            }
            time = (Long) timeV;
        }
        return new Event(process, type, f, m.get(fields[4]), m.get(fields[3]), time, line);
    }
}
