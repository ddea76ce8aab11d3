package dev.remora.spec.litmus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Parses litmus files (format: {@code spec/litmus/README.md}) into {@link LitmusTest} values,
 * and checks the static rules: every location declared once on one node, CPU operations only
 * on local words, verbs only to remote nodes with remote/local operands on the right sides,
 * registers owned by one thread, every {@code poll}/{@code wait} having something to retire,
 * and a final predicate over declared names only.
 *
 * <p>Every error is a {@link LitmusSyntaxException} naming the file, the line and what was
 * expected. The parser is stateless and thread-safe.
 */
public final class LitmusParser {

    /** Creates a parser. */
    public LitmusParser() {
        // stateless
    }

    /**
     * Parses a litmus file.
     *
     * @param file the file
     * @return the test
     * @throws IOException if the file cannot be read
     * @throws LitmusSyntaxException if the file is malformed
     */
    public LitmusTest parse(final Path file) throws IOException {
        return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * Parses litmus text.
     *
     * @param source a name for error messages, usually the file name
     * @param text   the file's contents
     * @return the test
     * @throws LitmusSyntaxException if the text is malformed
     */
    public LitmusTest parse(final String source, final String text) {
        return new FileParser(source, text).parse();
    }

    /** A raw thread line, resolved once every location is known. */
    private record RawThread(String name, String node, String body, int line) {
    }

    /** Parsing state of one file. */
    private static final class FileParser {
        private final String source;
        private final String[] lines;
        private String id;
        private final StringBuilder doc = new StringBuilder();
        private final Map<String, Location> locations = new LinkedHashMap<>();
        private final List<RawThread> rawThreads = new ArrayList<>();
        private final List<Fault> faults = new ArrayList<>();
        private final List<Integer> faultLines = new ArrayList<>();
        private String finalText;
        private int finalLine;
        private final List<Expectation> whens = new ArrayList<>();
        private Expectation base;

        FileParser(final String source, final String text) {
            this.source = source;
            this.lines = text.split("\r?\n", -1);
        }

        LitmusSyntaxException error(final int line, final String detail) {
            return new LitmusSyntaxException(source, line, detail);
        }

        LitmusTest parse() {
            for (int i = 0; i < lines.length; i++) {
                final int lineNo = i + 1;
                String line = lines[i];
                final int hash = line.indexOf('#');
                if (hash >= 0) {
                    line = line.substring(0, hash);
                }
                line = line.strip();
                if (line.isEmpty()) {
                    continue;
                }
                final String keyword = line.split("\\s+", 2)[0];
                final String rest = line.substring(keyword.length()).strip();
                if (id == null && !keyword.equals("test")) {
                    throw error(lineNo, "expected 'test <ID>' as the first line, found '" + keyword + "'");
                }
                switch (keyword) {
                    case "test" -> parseTest(rest, lineNo);
                    case "doc" -> doc.append(doc.length() == 0 ? "" : " ").append(rest);
                    case "init" -> parseInit(rest, lineNo);
                    case "final" -> {
                        if (finalText != null) {
                            throw error(lineNo, "expected one 'final' line, found a second");
                        }
                        if (rest.isEmpty()) {
                            throw error(lineNo, "expected a predicate after 'final'");
                        }
                        finalText = rest;
                        finalLine = lineNo;
                    }
                    case "expect" -> {
                        if (base != null) {
                            throw error(lineNo, "expected one unconditional 'expect' line, found a second");
                        }
                        base = new Expectation(Map.of(), verdict(rest, lineNo), lineNo);
                    }
                    case "when" -> parseWhen(rest, lineNo);
                    case "fault" -> parseFault(rest, lineNo);
                    default -> parseThreadHeader(line, lineNo);
                }
            }
            final int end = lines.length;
            if (id == null) {
                throw error(1, "expected 'test <ID>'; the file is empty");
            }
            if (locations.isEmpty()) {
                throw error(end, "expected an 'init' line declaring at least one location");
            }
            if (rawThreads.isEmpty()) {
                throw error(end, "expected at least one thread line 'T1@N1: op; op; ...'");
            }
            if (finalText == null) {
                throw error(end, "expected a 'final <predicate>' line");
            }
            if (base == null) {
                throw error(end, "expected an 'expect allowed' or 'expect forbidden' line");
            }
            final Map<String, String> registerOwner = new HashMap<>();
            final List<ThreadProgram> threads = new ArrayList<>();
            for (final RawThread raw : rawThreads) {
                threads.add(new ThreadBody(this, raw, registerOwner).parse());
            }
            checkFaults(threads);
            final Expr predicate = new ExprParser(this, finalText, finalLine).parseAll();
            for (final String name : predicate.names()) {
                if (!locations.containsKey(name) && !registerOwner.containsKey(name)) {
                    throw error(finalLine, "expected a declared location or a register read by a thread, found '"
                        + name + "'");
                }
            }
            final List<Expectation> expectations = new ArrayList<>();
            expectations.add(base);
            expectations.addAll(whens);
            return new LitmusTest(id, doc.toString(), List.copyOf(locations.values()), threads, faults, predicate,
                expectations, source);
        }

        void parseTest(final String rest, final int lineNo) {
            if (id != null) {
                throw error(lineNo, "expected one 'test' line, found a second");
            }
            if (!rest.matches("[A-Za-z0-9_.-]+")) {
                throw error(lineNo, "expected a test id of letters, digits, '_', '.', '-' after 'test', found '"
                    + rest + "'");
            }
            id = rest;
        }

        Verdict verdict(final String text, final int lineNo) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "allowed" -> Verdict.ALLOWED;
                case "forbidden" -> Verdict.FORBIDDEN;
                default -> throw error(lineNo, "expected 'allowed' or 'forbidden', found '" + text + "'");
            };
        }

        void parseWhen(final String rest, final int lineNo) {
            final int at = rest.indexOf(" expect ");
            if (at < 0) {
                throw error(lineNo, "expected 'when KNOB=VALUE[, KNOB=VALUE] expect allowed|forbidden'");
            }
            final Map<Knob, String> conditions = new EnumMap<>(Knob.class);
            for (final String cond : rest.substring(0, at).split(",")) {
                final String[] kv = cond.strip().split("=", -1);
                if (kv.length != 2) {
                    throw error(lineNo, "expected KNOB=VALUE in 'when', found '" + cond.strip() + "'");
                }
                final Knob knob;
                try {
                    knob = Knob.valueOf(kv[0].strip());
                } catch (IllegalArgumentException e) {
                    throw error(lineNo, "expected a knob name (one of " + List.of(Knob.values()) + "), found '"
                        + kv[0].strip() + "'");
                }
                try {
                    if (conditions.put(knob, knob.requireValue(kv[1].strip())) != null) {
                        throw error(lineNo, "expected each knob at most once in 'when', found " + knob + " twice");
                    }
                } catch (IllegalArgumentException e) {
                    throw error(lineNo, "expected a value of " + e.getMessage());
                }
            }
            whens.add(new Expectation(conditions, verdict(rest.substring(at + " expect ".length()).strip(),
                lineNo), lineNo));
        }

        void parseFault(final String rest, final int lineNo) {
            final Cursor c = new Cursor(this, rest, lineNo);
            final String kind = c.ident("a fault: crash(N), cut(N1,N2) or qperror(T,N)");
            if (!List.of("crash", "cut", "qperror").contains(kind)) {
                throw error(lineNo, "expected a fault crash(N), cut(N1,N2) or qperror(T,N), found '" + kind + "'");
            }
            c.expect('(');
            final String a = c.ident("a node or thread name in the fault");
            String b = "";
            if (!kind.equals("crash")) {
                c.expect(',');
                b = c.ident("a node name in the fault");
            }
            c.expect(')');
            c.expectEnd("the end of the 'fault' line (one fault per line)");
            final Fault fault = switch (kind) {
                case "crash" -> new Fault(Fault.Kind.CRASH, a, "");
                case "cut" -> {
                    if (a.equals(b)) {
                        throw error(lineNo, "expected a link between two different nodes, found cut(" + a + "," + b
                            + ")");
                    }
                    yield new Fault(Fault.Kind.CUT, a, b);
                }
                case "qperror" -> new Fault(Fault.Kind.QPERROR, a, b);
                default -> throw error(lineNo, "expected a fault crash(N), cut(N1,N2) or qperror(T,N), found '"
                    + kind + "'");
            };
            if (faults.contains(fault)) {
                throw error(lineNo, "expected each fault once, found " + fault.text() + " again");
            }
            faults.add(fault);
            faultLines.add(lineNo);
        }

        /** A queue-pair fault names a thread and a node it posts to. */
        void checkFaults(final List<ThreadProgram> threads) {
            for (int i = 0; i < faults.size(); i++) {
                final Fault f = faults.get(i);
                if (f.kind() != Fault.Kind.QPERROR) {
                    continue;
                }
                final ThreadProgram t = threads.stream().filter(p -> p.name().equals(f.a())).findFirst()
                    .orElseThrow(() -> error(faultLines.get(faults.indexOf(f)), "expected a thread name in "
                        + f.text() + ", found '" + f.a() + "'"));
                final boolean posts = t.ops().stream().anyMatch(o -> o instanceof Op.Verb v && v.node().equals(f.b()));
                if (!posts) {
                    throw error(faultLines.get(i), "expected " + f.text() + " to name a queue pair the test uses, but "
                        + t.name() + " posts nothing to " + f.b());
                }
            }
        }

        void parseInit(final String rest, final int lineNo) {
            final Cursor c = new Cursor(this, rest, lineNo);
            do {
                final List<String> names = c.words("a location name such as x or b[0..1]");
                c.expect('@');
                final String node = c.ident("a node name after '@'");
                c.expect('=');
                final long value = c.number("an initial value");
                for (final String name : names) {
                    if (locations.put(name, new Location(name, node, value)) != null) {
                        throw error(lineNo, "expected each location declared once, found '" + name + "' again");
                    }
                }
            } while (c.accept(','));
            c.expectEnd("',' or the end of the 'init' line");
        }

        void parseThreadHeader(final String line, final int lineNo) {
            final int colon = line.indexOf(':');
            final int at = line.indexOf('@');
            if (colon < 0 || at < 0 || at > colon || line.startsWith(":=", colon)) {
                throw error(lineNo, "expected a line starting with test, doc, init, final, expect, when "
                    + "or a thread header 'T1@N1:', found '" + line + "'");
            }
            final String name = line.substring(0, at).strip();
            final String node = line.substring(at + 1, colon).strip();
            if (!name.matches("[A-Za-z_]\\w*") || !node.matches("[A-Za-z_]\\w*")) {
                throw error(lineNo, "expected a thread header 'NAME@NODE:', found '" + line.substring(0, colon + 1)
                    + "'");
            }
            for (final RawThread t : rawThreads) {
                if (t.name().equals(name)) {
                    throw error(lineNo, "expected each thread declared once, found '" + name + "' again");
                }
            }
            rawThreads.add(new RawThread(name, node, line.substring(colon + 1), lineNo));
        }

        Location location(final String name, final int lineNo, final String role) {
            final Location l = locations.get(name);
            if (l == null) {
                throw error(lineNo, "expected a location declared in 'init' as " + role + ", found '" + name + "'");
            }
            return l;
        }
    }

    /** Parses and checks the body of one thread line. */
    private static final class ThreadBody {
        private final FileParser file;
        private final RawThread raw;
        private final Map<String, String> registerOwner;
        /** WRs not yet retired, oldest first: target node and tag. */
        private final Deque<String[]> outstanding = new ArrayDeque<>();

        ThreadBody(final FileParser file, final RawThread raw, final Map<String, String> registerOwner) {
            this.file = file;
            this.raw = raw;
            this.registerOwner = registerOwner;
        }

        ThreadProgram parse() {
            final List<Op> ops = new ArrayList<>();
            final String[] parts = raw.body().split(";", -1);
            for (int i = 0; i < parts.length; i++) {
                final String text = parts[i].strip();
                if (text.isEmpty()) {
                    if (i == parts.length - 1 && i > 0) {
                        break;
                    }
                    throw file.error(raw.line(), "expected an operation in thread " + raw.name()
                        + (i == 0 ? " after ':'" : " after ';'"));
                }
                ops.add(op(text));
            }
            return new ThreadProgram(raw.name(), raw.node(), ops);
        }

        private int line() {
            return raw.line();
        }

        private void local(final String name, final String role) {
            final Location l = file.location(name, line(), role);
            if (!l.node().equals(raw.node())) {
                throw file.error(line(), "expected " + role + " '" + name + "' local to " + raw.node()
                    + " (thread " + raw.name() + "), but it lives on " + l.node());
            }
        }

        private void remote(final String name, final String node, final String role) {
            final Location l = file.location(name, line(), role);
            if (!l.node().equals(node)) {
                throw file.error(line(), "expected " + role + " '" + name + "' to live on target node " + node
                    + ", but it lives on " + l.node());
            }
        }

        private void register(final String name) {
            if (file.locations.containsKey(name)) {
                throw file.error(line(), "expected a register name, found location '" + name
                    + "' (use 'x := 1' to store, 'a := x' to load)");
            }
            final String owner = registerOwner.putIfAbsent(name, raw.name());
            if (owner != null && !owner.equals(raw.name())) {
                throw file.error(line(), "expected register '" + name + "' to belong to one thread, but "
                    + owner + " uses it too");
            }
        }

        private Op op(final String text) {
            final Cursor c = new Cursor(file, text, line());
            final String head = c.peekIndexed()
                ? c.word("a location such as b[0] before ':='")
                : c.ident("an operation (x := v, a := x, mfence, lfaa, put, get, cas, faa, poll, wait)");
            if (c.accept(':')) {
                c.expect('=');
                if (c.peekNumber()) {
                    final long v = c.number("a value");
                    c.expectEnd("the end of the store '" + text + "'");
                    local(head, "the stored location");
                    return new Op.CpuWrite(head, v);
                }
                if (head.contains("[")) {
                    throw file.error(line(), "expected a value to store in '" + head + "', found " + c.found());
                }
                if (c.acceptKeyword("poll")) {
                    c.expect('(');
                    register(head);
                    final Op poll = poll(c, Optional.of(head));
                    c.expectEnd("the end of the poll '" + text + "'");
                    return poll;
                }
                final String loc = c.word("a location or value after ':='");
                c.expectEnd("the end of the load '" + text + "'");
                register(head);
                local(loc, "the loaded location");
                return new Op.CpuRead(head, loc);
            }
            if (head.contains("[")) {
                throw file.error(line(), "expected ':=' after location '" + head + "', found " + c.found());
            }
            boolean fence = false;
            boolean inline = false;
            Optional<Status> refusal = Optional.empty();
            while (c.accept('!')) {
                final String flag = c.ident("a flag F, I, K, A or L after '!'");
                final Optional<Status> refused = switch (flag) {
                    case "F" -> {
                        fence = true;
                        yield Optional.empty();
                    }
                    case "I" -> {
                        inline = true;
                        yield Optional.empty();
                    }
                    case "K" -> Optional.of(Status.REM_ACCESS_ERR);
                    case "A" -> Optional.of(Status.REM_INV_REQ_ERR);
                    case "L" -> Optional.of(Status.LOC_PROT_ERR);
                    default -> throw file.error(line(), "expected flag F (fence), I (inline), K (bad rkey), A "
                        + "(misaligned atomic) or L (bad lkey) after '!', found '" + flag + "'");
                };
                if (refused.isPresent()) {
                    if (refusal.isPresent()) {
                        throw file.error(line(), "expected at most one of !K, !A, !L on a verb");
                    }
                    refusal = refused;
                }
            }
            if (refusal.isPresent() && !List.of("put", "get", "cas", "faa").contains(head)) {
                throw file.error(line(), "expected !" + flagOf(refusal.get()) + " only on put, get, cas or faa, "
                    + "found it on " + head);
            }
            if (refusal.equals(Optional.of(Status.REM_INV_REQ_ERR)) && !List.of("cas", "faa").contains(head)) {
                throw file.error(line(), "expected !A (misaligned atomic) only on cas or faa, found it on " + head);
            }
            if (head.equals("mfence")) {
                c.expectEnd("nothing after 'mfence'");
                return new Op.MFence();
            }
            if (inline && !head.equals("put")) {
                throw file.error(line(), "expected !I only on put, found it on " + head);
            }
            if (fence && !List.of("put", "get", "cas", "faa").contains(head)) {
                throw file.error(line(), "expected !F only on put, get, cas or faa, found it on " + head);
            }
            c.expect('(');
            final Op op = switch (head) {
                case "put" -> put(c, fence, inline, refusal);
                case "get" -> get(c, fence, refusal);
                case "cas" -> cas(c, fence, refusal);
                case "faa" -> faa(c, fence, refusal);
                case "lfaa" -> lfaa(c);
                case "poll" -> poll(c, Optional.empty());
                case "wait" -> waitOp(c);
                default -> throw file.error(line(), "expected an operation (x := v, a := x, mfence, lfaa, put, "
                    + "get, cas, faa, poll, wait), found '" + head + "'");
            };
            c.expectEnd("the end of operation '" + text + "'");
            return op;
        }

        private static String flagOf(final Status refusal) {
            return switch (refusal) {
                case REM_ACCESS_ERR -> "K";
                case REM_INV_REQ_ERR -> "A";
                default -> "L";
            };
        }

        private Optional<String> tag(final Cursor c) {
            return c.accept('@') ? Optional.of(c.ident("a wait tag after '@'")) : Optional.empty();
        }

        private String target(final Cursor c) {
            final String node = c.ident("a target node");
            if (node.equals(raw.node())) {
                throw file.error(line(), "expected a verb to target a remote node, but " + raw.name()
                    + " runs on " + node);
            }
            c.expect(',');
            return node;
        }

        private void posted(final String node, final Optional<String> tag) {
            outstanding.addLast(new String[] {node, tag.orElse("")});
        }

        private Op put(final Cursor c, final boolean fence, final boolean inline, final Optional<Status> refusal) {
            final String node = target(c);
            final List<String> dst = c.words("the remote destination of put");
            c.expect(',');
            final List<String> src = c.words("the local source of put");
            c.expect(')');
            final Optional<String> tag = tag(c);
            if (dst.size() != src.size()) {
                throw file.error(line(), "expected put source and destination of equal length, found "
                    + src.size() + " and " + dst.size());
            }
            dst.forEach(d -> remote(d, node, "put destination"));
            src.forEach(s -> local(s, "put source"));
            posted(node, tag);
            return new Op.Put(node, dst, src, fence, inline, refusal, tag);
        }

        private Op get(final Cursor c, final boolean fence, final Optional<Status> refusal) {
            final String node = target(c);
            final List<String> dst = c.words("the local destination of get");
            c.expect(',');
            final List<String> src = c.words("the remote source of get");
            c.expect(')');
            final Optional<String> tag = tag(c);
            if (dst.size() != src.size()) {
                throw file.error(line(), "expected get source and destination of equal length, found "
                    + src.size() + " and " + dst.size());
            }
            dst.forEach(d -> local(d, "get destination"));
            src.forEach(s -> remote(s, node, "get source"));
            posted(node, tag);
            return new Op.Get(node, dst, src, fence, refusal, tag);
        }

        private Op cas(final Cursor c, final boolean fence, final Optional<Status> refusal) {
            final String node = target(c);
            final String dst = c.word("the remote word of cas");
            c.expect(',');
            final long expected = c.number("the expected value of cas");
            c.expect(',');
            final long desired = c.number("the new value of cas");
            c.expect(',');
            final String res = c.word("the local result word of cas");
            c.expect(')');
            final Optional<String> tag = tag(c);
            remote(dst, node, "cas target");
            local(res, "cas result");
            posted(node, tag);
            return new Op.Cas(node, dst, expected, desired, res, fence, refusal, tag);
        }

        private Op faa(final Cursor c, final boolean fence, final Optional<Status> refusal) {
            final String node = target(c);
            final String dst = c.word("the remote word of faa");
            c.expect(',');
            final long add = c.number("the addend of faa");
            c.expect(',');
            final String res = c.word("the local result word of faa");
            c.expect(')');
            final Optional<String> tag = tag(c);
            remote(dst, node, "faa target");
            local(res, "faa result");
            posted(node, tag);
            return new Op.Faa(node, dst, add, res, fence, refusal, tag);
        }

        private Op lfaa(final Cursor c) {
            final String loc = c.word("the local word of lfaa");
            c.expect(',');
            final long add = c.number("the addend of lfaa");
            Optional<String> reg = Optional.empty();
            if (c.accept(',')) {
                reg = Optional.of(c.ident("a register for the old value"));
            }
            c.expect(')');
            local(loc, "lfaa target");
            reg.ifPresent(this::register);
            return new Op.LocalFaa(loc, add, reg);
        }

        private Op poll(final Cursor c, final Optional<String> register) {
            final String node = c.ident("the node to poll");
            c.expect(')');
            for (final var it = outstanding.iterator(); it.hasNext();) {
                if (it.next()[0].equals(node)) {
                    it.remove();
                    return new Op.Poll(node, register);
                }
            }
            throw file.error(line(), "expected an outstanding work request to " + node + " for poll(" + node
                + ") to retire, but " + raw.name() + " has none");
        }

        private Op waitOp(final Cursor c) {
            final String tag = c.ident("the tag to wait for");
            c.expect(')');
            if (!outstanding.removeIf(w -> w[1].equals(tag))) {
                throw file.error(line(), "expected an earlier work request tagged @" + tag + " for wait(" + tag
                    + "), but " + raw.name() + " has none outstanding");
            }
            return new Op.Wait(tag);
        }
    }

    /** A character cursor over one line fragment. */
    private static final class Cursor {
        private final FileParser file;
        private final String text;
        private final int line;
        private int pos;

        Cursor(final FileParser file, final String text, final int line) {
            this.file = file;
            this.text = text;
            this.line = line;
        }

        private void skip() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        String found() {
            skip();
            return pos >= text.length() ? "the end of the line" : "'" + text.substring(pos) + "'";
        }

        /** Whether the text at the cursor is an identifier followed by '[' (an indexed location). */
        boolean peekIndexed() {
            skip();
            int i = pos;
            while (i < text.length() && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
                i++;
            }
            return i > pos && i < text.length() && text.charAt(i) == '[';
        }

        /** Consumes {@code word} if it is the next identifier and an opening parenthesis follows it. */
        boolean acceptKeyword(final String word) {
            skip();
            if (text.startsWith(word, pos)) {
                int i = pos + word.length();
                while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
                    i++;
                }
                if (i < text.length() && text.charAt(i) == '(') {
                    pos += word.length();
                    return true;
                }
            }
            return false;
        }

        boolean accept(final char ch) {
            skip();
            if (pos < text.length() && text.charAt(pos) == ch) {
                pos++;
                return true;
            }
            return false;
        }

        void expect(final char ch) {
            if (!accept(ch)) {
                throw file.error(line, "expected '" + ch + "', found " + found());
            }
        }

        void expectEnd(final String what) {
            skip();
            if (pos < text.length()) {
                throw file.error(line, "expected " + what + ", found " + found());
            }
        }

        String ident(final String what) {
            skip();
            final int start = pos;
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
                pos++;
            }
            if (start == pos || Character.isDigit(text.charAt(start))) {
                pos = start;
                throw file.error(line, "expected " + what + ", found " + found());
            }
            return text.substring(start, pos);
        }

        boolean peekNumber() {
            skip();
            return pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '-');
        }

        long number(final String what) {
            skip();
            final int start = pos;
            if (pos < text.length() && text.charAt(pos) == '-') {
                pos++;
            }
            while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                pos++;
            }
            try {
                return Long.parseLong(text.substring(start, pos));
            } catch (NumberFormatException e) {
                pos = start;
                throw file.error(line, "expected " + what + " (an integer), found " + found());
            }
        }

        /** One word: {@code x} or {@code b[3]}. */
        String word(final String what) {
            final List<String> words = words(what);
            if (words.size() != 1) {
                throw file.error(line, "expected " + what + " as a single word, found a range of " + words.size());
            }
            return words.get(0);
        }

        /** A word or a range: {@code x}, {@code b[3]} or {@code b[0..1]}. */
        List<String> words(final String what) {
            final String base = ident(what);
            if (!accept('[')) {
                return List.of(base);
            }
            final long from = number("an index in '" + base + "['");
            long to = from;
            if (accept('.')) {
                expect('.');
                to = number("the last index of the range");
            }
            expect(']');
            if (from < 0 || to < from) {
                throw file.error(line, "expected a non-empty index range, found [" + from + ".." + to + "]");
            }
            final List<String> out = new ArrayList<>();
            for (long i = from; i <= to; i++) {
                out.add(base + "[" + i + "]");
            }
            return out;
        }
    }

    /** Recursive-descent parser of final predicates. */
    private static final class ExprParser {
        private final FileParser file;
        private final int line;
        private final List<String> tokens = new ArrayList<>();
        private int pos;

        ExprParser(final FileParser file, final String text, final int line) {
            this.file = file;
            this.line = line;
            tokenize(text);
        }

        private void tokenize(final String text) {
            int i = 0;
            while (i < text.length()) {
                final char ch = text.charAt(i);
                if (Character.isWhitespace(ch)) {
                    i++;
                } else if (Character.isLetterOrDigit(ch) || ch == '_') {
                    int j = i;
                    while (j < text.length() && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '_')) {
                        j++;
                    }
                    if (j < text.length() && text.charAt(j) == '[' && !Character.isDigit(ch)) {
                        final int close = text.indexOf(']', j);
                        if (close < 0) {
                            throw file.error(line, "expected ']' in '" + text.substring(i) + "'");
                        }
                        j = close + 1;
                    }
                    tokens.add(text.substring(i, j));
                    i = j;
                } else {
                    final String two = i + 1 < text.length() ? text.substring(i, i + 2) : "";
                    if (List.of("/\\", "\\/", "&&", "||", "!=", "/=", "<=", ">=", "==").contains(two)) {
                        tokens.add(two);
                        i += 2;
                    } else if ("()=<>~!-∧∨¬≠".indexOf(ch) >= 0) {
                        tokens.add(String.valueOf(ch));
                        i++;
                    } else {
                        throw file.error(line, "expected a predicate over registers and locations, found '"
                            + ch + "' in '" + text + "'");
                    }
                }
            }
        }

        private String peek() {
            return pos < tokens.size() ? tokens.get(pos) : null;
        }

        private boolean accept(final String... options) {
            final String t = peek();
            if (t != null && List.of(options).contains(t)) {
                pos++;
                return true;
            }
            return false;
        }

        private String found() {
            return pos < tokens.size() ? "'" + tokens.get(pos) + "'" : "the end of the predicate";
        }

        Expr parseAll() {
            final Expr e = or();
            if (pos < tokens.size()) {
                throw file.error(line, "expected an operator or the end of the predicate, found " + found());
            }
            return e;
        }

        private Expr or() {
            Expr e = and();
            while (accept("\\/", "∨", "||", "or")) {
                e = new Expr.Or(e, and());
            }
            return e;
        }

        private Expr and() {
            Expr e = unary();
            while (accept("/\\", "∧", "&&", "and")) {
                e = new Expr.And(e, unary());
            }
            return e;
        }

        private Expr unary() {
            if (accept("~", "¬", "!", "not")) {
                return new Expr.Not(unary());
            }
            if (accept("(")) {
                final Expr e = or();
                if (!accept(")")) {
                    throw file.error(line, "expected ')', found " + found());
                }
                return e;
            }
            if (accept("true")) {
                return new Expr.Bool(true);
            }
            if (accept("false")) {
                return new Expr.Bool(false);
            }
            final Expr left = term();
            final Expr.CmpOp op;
            if (accept("=", "==")) {
                op = Expr.CmpOp.EQ;
            } else if (accept("!=", "/=", "≠")) {
                op = Expr.CmpOp.NE;
            } else if (accept("<=")) {
                op = Expr.CmpOp.LE;
            } else if (accept(">=")) {
                op = Expr.CmpOp.GE;
            } else if (accept("<")) {
                op = Expr.CmpOp.LT;
            } else if (accept(">")) {
                op = Expr.CmpOp.GT;
            } else {
                throw file.error(line, "expected a comparison (=, !=, <, <=, >, >=) after a value, found " + found());
            }
            return new Expr.Cmp(op, left, term());
        }

        private Expr term() {
            final boolean negative = accept("-");
            final String t = peek();
            if (t == null || !(Character.isLetterOrDigit(t.charAt(0)) || t.charAt(0) == '_')
                || List.of("and", "or", "not", "true", "false").contains(t)) {
                throw file.error(line, "expected a register, location or integer, found " + found());
            }
            pos++;
            if (Character.isDigit(t.charAt(0))) {
                try {
                    final long v = Long.parseLong(t);
                    return new Expr.Num(negative ? -v : v);
                } catch (NumberFormatException e) {
                    throw file.error(line, "expected an integer, found '" + t + "'");
                }
            }
            if (negative) {
                throw file.error(line, "expected an integer after '-', found '" + t + "'");
            }
            if (!file.locations.containsKey(t)) {
                for (final Status s : Status.values()) {
                    if (s.name().equals(t)) {
                        return new Expr.Num(s.code());
                    }
                }
            }
            return new Expr.Ref(t);
        }
    }
}
