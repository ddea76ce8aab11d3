package dev.remora.check.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.remora.check.Event;
import dev.remora.check.EventType;
import dev.remora.check.History;
import dev.remora.check.HistoryFormat;
import dev.remora.check.Keyword;
import dev.remora.check.MalformedHistoryException;
import dev.remora.check.Values;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads histories in any {@link HistoryFormat}, detecting the format when none is given.
 * Every error names the file, the line and what was expected.
 */
public final class HistoryReader {
    /** Loaded on first use only: Jackson's start-up costs are not paid for EDN or log files. */
    private static final class Json {
        static final JsonFactory FACTORY = new JsonFactory();
    }
    private static final Pattern SPACES = Pattern.compile("\\s+");

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
        HistoryFormat f = format;
        if (f == null) {
            f = HistoryFormat.detect(head(file));
        }
        if (f == HistoryFormat.JSONL) {
            // Streamed: a history of millions of events is never held as one string.
            try (InputStream in = Files.newInputStream(file)) {
                List<Event> events;
                try {
                    events = readJsonLines(file.toString(), Json.FACTORY.createParser(in));
                } catch (JsonProcessingException e) {
                    throw new MalformedHistoryException(file.toString(), 1, "invalid JSON: " + e.getOriginalMessage());
                }
                return History.fromEvents(file.toString(), f, events);
            }
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        return read(file.toString(), text, f);
    }

    /**
     * Reads a history from a stream, such as standard input. JSON Lines are streamed; other
     * formats are read whole.
     *
     * @param source name for messages
     * @param in     the stream; not closed
     * @param format the format, or {@code null} to detect it from the first 64 KiB
     * @return the history
     * @throws IOException               when the stream cannot be read
     * @throws MalformedHistoryException when it is not a valid history
     */
    public static History read(String source, InputStream in, HistoryFormat format)
            throws IOException, MalformedHistoryException {
        java.io.BufferedInputStream b = new java.io.BufferedInputStream(in, 1 << 16);
        HistoryFormat f = format;
        if (f == null) {
            b.mark(1 << 16);
            byte[] head = b.readNBytes(1 << 16);
            b.reset();
            f = HistoryFormat.detect(new String(head, StandardCharsets.UTF_8));
        }
        if (f == HistoryFormat.JSONL) {
            List<Event> events;
            try {
                events = readJsonLines(source, Json.FACTORY.createParser(
                        new java.io.InputStreamReader(b, StandardCharsets.UTF_8)));
            } catch (JsonProcessingException e) {
                throw new MalformedHistoryException(source, 1, "invalid JSON: " + e.getOriginalMessage());
            }
            return History.fromEvents(source, f, events);
        }
        return read(source, new String(b.readAllBytes(), StandardCharsets.UTF_8), f);
    }

    /**
     * Tells whether the first bytes of a file are not text: a NUL byte, or bytes that are not
     * UTF-8 (a sequence cut at the end of {@code head} is allowed).
     *
     * @param head the first bytes
     * @param n    how many of them were read
     * @return why it is not text, such as {@code "byte 0x8b at offset 1 is not UTF-8"}, or
     *         {@code null} when it looks like text
     */
    public static String notText(byte[] head, int n) {
        int i = 0;
        while (i < n) {
            int c = head[i] & 0xff;
            if (c == 0) {
                return "a NUL byte at offset " + i;
            }
            int more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 1 : (c & 0xf0) == 0xe0 ? 2
                    : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 3 : -1;
            if (more < 0) {
                return String.format("byte 0x%02x at offset %d is not UTF-8", c, i);
            }
            for (int k = 1; k <= more; k++) {
                if (i + k >= n) {
                    return null; // cut at the end of the sniffed block
                }
                if ((head[i + k] & 0xc0) != 0x80) {
                    return String.format("byte 0x%02x at offset %d is not UTF-8", head[i + k] & 0xff, i + k);
                }
            }
            i += more + 1;
        }
        return null;
    }

    private static String head(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = in.readNBytes(1 << 16);
            return new String(b, StandardCharsets.UTF_8);
        }
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
                    + " Knossos EDN vector, Jepsen log lines, key-value EDN maps or JSON Lines (or name the format)");
        }
        List<Event> events;
        switch (f) {
            case KNOSSOS_EDN: events = readKnossos(source, text); break;
            case JEPSEN_LOG: events = readJepsenLog(source, text); break;
            case KV_LOG: events = readKvLog(source, text); break;
            case JSONL: events = readJsonLines(source, new StringReader(text)); break;
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
            String[] parts = SPACES.split(rest, 4);
            if (parts.length < 3) {
                throw new MalformedHistoryException(source, lineNo, "expected 'PROCESS :type :f value' after"
                        + " 'jepsen.util - ', found '" + rest + "'");
            }
            Object process = parts[0].chars().allMatch(Character::isDigit) && parts[0].length() < 18
                    ? (Object) Long.parseLong(parts[0]) : new EdnParser(source, parts[0], lineNo).read();
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

    static List<Event> readJsonLines(String source, Reader reader) throws MalformedHistoryException {
        try {
            return readJsonLines(source, Json.FACTORY.createParser(reader));
        } catch (IOException e) {
            throw new MalformedHistoryException(source, 0, "cannot read: " + e.getMessage());
        }
    }

    private static List<Event> readJsonLines(String source, JsonParser parser) throws MalformedHistoryException {
        List<Event> out = new ArrayList<>();
        Object[] fields = jsonFields();
        try (JsonParser p = parser) {
            int lastLine = 0;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                int line = p.currentTokenLocation().getLineNr();
                if (t != JsonToken.START_OBJECT) {
                    throw new MalformedHistoryException(source, line, "expected a JSON object, found "
                            + p.getText());
                }
                if (line == lastLine) {
                    throw new MalformedHistoryException(source, line, "a second JSON object on the same line;"
                            + " expected one JSON object per line");
                }
                lastLine = line;
                Map<Object, Object> m = new HashMap<>(16);
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    switch (name) {
                        case "process": case "type": case "f": case "value": case "key": case "time":
                            m.put(name, jsonValue(p));
                            break;
                        default:
                            p.skipChildren();
                    }
                }
                out.add(toEvent(source, line, m, fields));
            }
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            int col = e.getLocation() == null ? 0 : e.getLocation().getColumnNr();
            throw new MalformedHistoryException(source, line, "invalid JSON at column " + col + ": "
                    + e.getOriginalMessage().split("\n")[0] + "; expected one JSON object per line");
        } catch (IOException e) {
            throw new MalformedHistoryException(source, 0, "cannot read: " + e.getMessage());
        }
        return out;
    }

    private static Object jsonValue(JsonParser p) throws IOException {
        switch (p.currentToken()) {
            case VALUE_NULL: return null;
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            case VALUE_NUMBER_INT:
                return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? Values.normalize(p.getBigIntegerValue()) : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT: return p.getDoubleValue();
            case VALUE_STRING: return p.getText();
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(jsonValue(p));
                }
                return l;
            }
            case START_OBJECT: {
                Map<Object, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    m.put(name, jsonValue(p));
                }
                return m;
            }
            default:
                return p.getText();
        }
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
