package dev.remora.check.io;

import dev.remora.check.Keyword;
import dev.remora.check.MalformedHistoryException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small EDN reader that tracks lines, so that every syntax error names its line and what
 * was expected. Reads nil, booleans, integers (with optional {@code N}), floats, strings,
 * characters, keywords, symbols (as {@link String}s), lists and vectors (as {@link List}),
 * maps ({@link Map}, insertion ordered), sets, {@code ;} comments, {@code #_} discards and
 * tagged literals (the tag is dropped).
 */
public final class EdnParser {
    private final String source;
    private final String text;
    private int pos;
    private int line = 1;
    private int topLine = 1;

    /**
     * Creates a parser.
     *
     * @param source    file name for messages
     * @param text      the text
     * @param firstLine the line number of the text's first line
     */
    public EdnParser(String source, String text, int firstLine) {
        this.source = source;
        this.text = text;
        this.line = firstLine;
    }

    /** @return the line at the current position */
    public int line() {
        return line;
    }

    /**
     * Skips whitespace, commas and comments.
     *
     * @return whether any input is left
     * @throws MalformedHistoryException on a bad discard form
     */
    public boolean skipSpace() throws MalformedHistoryException {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '\n') {
                line++;
                pos++;
            } else if (Character.isWhitespace(c) || c == ',') {
                pos++;
            } else if (c == ';') {
                while (pos < text.length() && text.charAt(pos) != '\n') {
                    pos++;
                }
            } else if (c == '#' && pos + 1 < text.length() && text.charAt(pos + 1) == '_') {
                pos += 2;
                read();
            } else {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads the opening of a top-level list or vector.
     *
     * @return the matching closing character
     * @throws MalformedHistoryException when the input does not start with one
     */
    public char openTopLevel() throws MalformedHistoryException {
        if (!skipSpace()) {
            throw error("empty file; expected a vector [...] of event maps");
        }
        char c = text.charAt(pos);
        if (c != '[' && c != '(') {
            throw error("expected a vector [...] or list (...) of event maps, found " + describeHere());
        }
        pos++;
        topLine = line;
        return c == '[' ? ']' : ')';
    }

    /**
     * Tests for a closing character, consuming it.
     *
     * @param close the character
     * @return whether it was next
     * @throws MalformedHistoryException at end of input
     */
    public boolean tryClose(char close) throws MalformedHistoryException {
        if (!skipSpace()) {
            throw new MalformedHistoryException(source, topLine, "unterminated collection opened here;"
                    + " expected '" + close + "' before the end of the file");
        }
        if (text.charAt(pos) == close) {
            pos++;
            return true;
        }
        return false;
    }

    /**
     * Reads one value.
     *
     * @return the value
     * @throws MalformedHistoryException on a syntax error
     */
    public Object read() throws MalformedHistoryException {
        if (!skipSpace()) {
            throw error("unexpected end of file; expected a value");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '[':
                pos++;
                return readSeq(']');
            case '(':
                pos++;
                return readSeq(')');
            case '{':
                pos++;
                return readMap();
            case '"':
                return readString();
            case ':':
                pos++;
                return new Keyword(readToken("a keyword name"));
            case '\\':
                pos++;
                return readToken("a character");
            case '#':
                if (pos + 1 < text.length() && text.charAt(pos + 1) == '{') {
                    pos += 2;
                    Set<Object> s = new HashSet<>(readSeq('}'));
                    return Collections.unmodifiableSet(s);
                }
                pos++;
                readToken("a tag");
                return read();
            case ']': case ')': case '}':
                throw error("unexpected '" + c + "'; expected a value");
            default:
                return atom(readToken("a value"));
        }
    }

    private List<Object> readSeq(char close) throws MalformedHistoryException {
        int start = line;
        List<Object> out = new ArrayList<>();
        while (true) {
            if (!skipSpace()) {
                throw new MalformedHistoryException(source, start, "unterminated collection opened here;"
                        + " expected '" + close + "'");
            }
            if (text.charAt(pos) == close) {
                pos++;
                return out;
            }
            out.add(read());
        }
    }

    private Map<Object, Object> readMap() throws MalformedHistoryException {
        int start = line;
        Map<Object, Object> out = new LinkedHashMap<>();
        while (true) {
            if (!skipSpace()) {
                throw new MalformedHistoryException(source, start, "unterminated map opened here; expected '}'");
            }
            if (text.charAt(pos) == '}') {
                pos++;
                return out;
            }
            Object k = read();
            if (!skipSpace() || text.charAt(pos) == '}') {
                throw error("map key " + dev.remora.check.Values.show(k) + " has no value; expected a value");
            }
            out.put(k, read());
        }
    }

    private String readString() throws MalformedHistoryException {
        int start = line;
        pos++;
        StringBuilder sb = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\n') {
                line++;
            }
            if (c == '\\' && pos < text.length()) {
                char e = text.charAt(pos++);
                switch (e) {
                    case 'n': sb.append('\n'); break;
                    case 't': sb.append('\t'); break;
                    case 'r': sb.append('\r'); break;
                    case 'u':
                        if (pos + 4 > text.length()) {
                            throw error("bad \\u escape; expected four hex digits");
                        }
                        try {
                            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape; expected four hex digits");
                        }
                        pos += 4;
                        break;
                    default: sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
        throw new MalformedHistoryException(source, start, "unterminated string; expected '\"'");
    }

    private String readToken(String what) throws MalformedHistoryException {
        int start = pos;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isWhitespace(c) || c == ',' || "()[]{}\";".indexOf(c) >= 0) {
                break;
            }
            pos++;
        }
        if (start == pos) {
            throw error("expected " + what + ", found " + describeHere());
        }
        return text.substring(start, pos);
    }

    private Object atom(String t) throws MalformedHistoryException {
        switch (t) {
            case "nil": return null;
            case "true": return Boolean.TRUE;
            case "false": return Boolean.FALSE;
            default: break;
        }
        char c = t.charAt(0);
        if (Character.isDigit(c) || (c == '-' || c == '+') && t.length() > 1 && Character.isDigit(t.charAt(1))) {
            try {
                if (t.length() < 18 && t.indexOf('.') < 0 && t.indexOf('e') < 0 && t.indexOf('E') < 0
                        && Character.isDigit(t.charAt(t.length() - 1))) {
                    return Long.parseLong(t);
                }
                String s = t.endsWith("N") ? t.substring(0, t.length() - 1) : t;
                if (s.indexOf('.') < 0 && s.indexOf('e') < 0 && s.indexOf('E') < 0 && !s.endsWith("M")) {
                    return dev.remora.check.Values.normalize(new java.math.BigInteger(s.startsWith("+") ? s.substring(1) : s));
                }
                return Double.parseDouble(s.endsWith("M") ? s.substring(0, s.length() - 1) : s);
            } catch (NumberFormatException e) {
                throw error("bad number '" + t + "'; expected digits");
            }
        }
        return t;
    }

    private String describeHere() {
        if (pos >= text.length()) {
            return "end of file";
        }
        int end = Math.min(text.length(), pos + 12);
        int nl = text.indexOf('\n', pos);
        if (nl >= 0 && nl < end) {
            end = nl;
        }
        return "'" + text.substring(pos, end) + "'";
    }

    /**
     * Makes an error at the current line.
     *
     * @param detail what was wrong and what was expected
     * @return the exception
     */
    public MalformedHistoryException error(String detail) {
        return new MalformedHistoryException(source, line, detail);
    }
}
