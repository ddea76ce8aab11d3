package dev.remora.cli;

import dev.remora.locks.CasSpinLock;
import dev.remora.locks.FencedRegister;
import dev.remora.locks.LeaseLock;
import dev.remora.locks.McsLock;
import dev.remora.locks.RemoteReadWriteLock;
import dev.remora.locks.TicketLock;
import dev.remora.objects.RemoteCounter;
import dev.remora.verbs.Access;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.Node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The named objects a {@code remora serve} node creates and publishes, from {@code --counter}, {@code --word},
 * {@code --lock KIND:NAME} and {@code --config FILE}.
 *
 * <p>The config file is line-based: one object per line, fields separated by blanks, {@code #} starts a comment:
 * <pre>
 * counter hits          # a RemoteCounter word
 * word    data          # a plain 8-byte word (READ, WRITE, CAS, FETCH_ADD)
 * lock    ticket L1     # a lock: cas, ticket, mcs, lease or rw
 * </pre>
 */
final class ServeObjects {
    /** What a spec makes. */
    enum Kind {
        COUNTER("counter"), WORD("word"), CAS("cas"), TICKET("ticket"), MCS("mcs"), LEASE("lease"), RW("rw");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        boolean isLock() {
            return this != COUNTER && this != WORD;
        }

        static Kind lock(String kind) {
            for (Kind k : values()) {
                if (k.isLock() && k.label.equals(kind)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** Lock kinds, in the order the messages list them. */
    static final String LOCK_KINDS = "cas, ticket, mcs, lease, rw";
    /** Suffix of the name under which a lease lock's fenced register is published. */
    static final String FENCE_SUFFIX = ".fence";

    /** One object to create. */
    record Spec(Kind kind, String name) {
        @Override
        public String toString() {
            return kind.label + ":" + name;
        }
    }

    /** Settings the lock kinds need on their home. */
    record LockSettings(int mcsCapacity, long leaseNs, long leaseMarginNs) {
    }

    /** A malformed line of a config file, or a bad flag value: the message names where and what. */
    static final class ConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        ConfigException(String message) {
            super(message);
        }
    }

    private final List<Spec> specs = new ArrayList<>();
    private final Set<String> names = new HashSet<>();

    List<Spec> specs() {
        return specs;
    }

    void add(Spec spec, String where) throws ConfigException {
        checkName(spec.name(), where);
        if (!names.add(spec.name()) || spec.kind() == Kind.LEASE && !names.add(spec.name() + FENCE_SUFFIX)) {
            throw new ConfigException(where + ": the name '" + spec.name() + "' is used twice");
        }
        specs.add(spec);
    }

    /**
     * Parses a {@code --lock} value.
     *
     * @param value {@code KIND:NAME}
     * @return the spec
     * @throws ConfigException naming the flag and the field at fault
     */
    static Spec parseLockFlag(String value) throws ConfigException {
        int colon = value.indexOf(':');
        if (colon < 0) {
            throw new ConfigException("--lock " + value + ": expected KIND:NAME with KIND one of " + LOCK_KINDS);
        }
        String kind = value.substring(0, colon);
        Kind k = Kind.lock(kind);
        if (k == null) {
            throw new ConfigException("--lock " + value + ": unknown lock kind '" + kind + "' (known: " + LOCK_KINDS
                + ")");
        }
        return new Spec(k, value.substring(colon + 1));
    }

    /**
     * Reads a config file into this set.
     *
     * @param file the file
     * @throws ConfigException for a malformed line: its number, the field's number and name, and what is wrong
     * @throws IOException if the file cannot be read
     */
    void readConfig(Path file) throws ConfigException, IOException {
        parseConfig(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    /**
     * Parses config lines.
     *
     * @param source the file's name, for messages
     * @param lines its lines
     * @throws ConfigException for a malformed line
     */
    void parseConfig(String source, List<String> lines) throws ConfigException {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (text.isEmpty()) {
                continue;
            }
            String[] f = text.split("\\s+");
            String at = source + " line " + (i + 1);
            switch (f[0]) {
                case "counter", "word" -> {
                    if (f.length < 2) {
                        throw new ConfigException(at + ": field 2 (name) is missing: expected '" + f[0] + " NAME'");
                    }
                    if (f.length > 2) {
                        throw new ConfigException(at + ": field 3 ('" + f[2] + "') is extra: expected '" + f[0]
                            + " NAME'");
                    }
                    add(new Spec(f[0].equals("counter") ? Kind.COUNTER : Kind.WORD, f[1]), at + ", field 2 (name)");
                }
                case "lock" -> {
                    if (f.length < 2) {
                        throw new ConfigException(at + ": field 2 (kind) is missing: expected 'lock KIND NAME' "
                            + "with KIND one of " + LOCK_KINDS);
                    }
                    Kind k = Kind.lock(f[1]);
                    if (k == null) {
                        throw new ConfigException(at + ": field 2 (kind): unknown lock kind '" + f[1] + "' (known: "
                            + LOCK_KINDS + ")");
                    }
                    if (f.length < 3) {
                        throw new ConfigException(at + ": field 3 (name) is missing: expected 'lock " + f[1]
                            + " NAME'");
                    }
                    if (f.length > 3) {
                        throw new ConfigException(at + ": field 4 ('" + f[3] + "') is extra: expected 'lock " + f[1]
                            + " NAME'");
                    }
                    add(new Spec(k, f[2]), at + ", field 3 (name)");
                }
                default -> throw new ConfigException(at + ": field 1 (object): unknown object '" + f[0]
                    + "' (known: counter, word, lock)");
            }
        }
    }

    private static void checkName(String name, String where) throws ConfigException {
        if (name.isEmpty() || name.length() > 200) {
            throw new ConfigException(where + ": a name has 1 to 200 characters, not " + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c) || Character.isWhitespace(c)) {
                throw new ConfigException(where + ": the name '" + name + "' has a blank or control character");
            }
        }
    }

    /**
     * Creates every object on {@code home} and publishes it under its name (a lease lock's fenced register under the
     * lock's name plus {@value #FENCE_SUFFIX}).
     *
     * @param fabric the fabric
     * @param home a local node
     * @param settings what the lock kinds need
     * @return what was published, for the listening line: {@code kind:name, ...}
     */
    String createAndPublish(Fabric fabric, Node home, LockSettings settings) {
        List<String> made = new ArrayList<>();
        for (Spec s : specs) {
            switch (s.kind()) {
                case COUNTER -> fabric.publish(s.name(), RemoteCounter.create(home));
                case WORD -> fabric.publish(s.name(), home.allocate(8, Access.ALL).remote(0));
                case CAS -> fabric.publish(s.name(), CasSpinLock.create(home).address());
                case TICKET -> fabric.publish(s.name(), TicketLock.create(home).address());
                case MCS -> fabric.publish(s.name(), McsLock.create(home, settings.mcsCapacity()).address());
                case RW -> fabric.publish(s.name(), RemoteReadWriteLock.create(home).address());
                case LEASE -> {
                    // LeaseLock.create stores the lease settings with a volatile store before returning, so they are
                    // in memory before the address is published (R1, R5).
                    fabric.publish(s.name(), LeaseLock.create(home, settings.leaseNs(), settings.leaseMarginNs())
                        .address());
                    fabric.publish(s.name() + FENCE_SUFFIX, FencedRegister.create(home).address());
                }
                default -> throw new AssertionError(s);
            }
            made.add(s.kind().isLock() ? "lock " + s
                : s.kind().label + " " + s.name());
            if (s.kind() == Kind.LEASE) {
                made.add("register " + s.name() + FENCE_SUFFIX);
            }
        }
        return made.isEmpty() ? "none" : String.join(", ", made);
    }
}
