package dev.remora.cli;

import dev.remora.kv.CuckooMap;
import dev.remora.kv.CuckooTableDescriptor;
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
import java.util.Locale;
import java.util.Set;

/**
 * The named objects a {@code remora serve} node creates and publishes, from {@code --counter}, {@code --word},
 * {@code --lock KIND:NAME}, {@code --kv NAME} and {@code --config FILE}.
 *
 * <p>The config file is line-based: one object per line, fields separated by blanks, {@code #} starts a comment:
 * <pre>
 * counter hits          # a RemoteCounter word
 * word    data          # a plain 8-byte word (READ, WRITE, CAS, FETCH_ADD)
 * lock    ticket L1     # a lock: cas, ticket, mcs, lease or rw
 * kv      cache rows=65536 slots=4 key=16 value=32 clients=1024   # a CuckooMap; settings optional
 * </pre>
 * A {@code kv} line's settings not given take the {@code --kv-*} flags' values ({@link KvShape#DEFAULT} unless set).
 */
final class ServeObjects {
    /** What a spec makes. */
    enum Kind {
        COUNTER("counter"), WORD("word"), CAS("cas"), TICKET("ticket"), MCS("mcs"), LEASE("lease"), RW("rw"),
        KV("kv");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        boolean isLock() {
            return this != COUNTER && this != WORD && this != KV;
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

    /** The settings of a {@code kv} config line, in the order the messages list them. */
    static final String KV_SETTINGS = "rows, slots, key, value, clients";
    /** The syntax of a {@code kv} config line. */
    static final String KV_LINE = "kv NAME [rows=N] [slots=N] [key=N] [value=N] [clients=N]";
    /** The largest table a served node allocates: one registered region. */
    static final long KV_MAX_BYTES = Integer.MAX_VALUE - 8;

    /**
     * The shape of a served cuckoo table ({@link CuckooMap.Params}).
     *
     * @param rows rows, a power of two
     * @param slots slots per row
     * @param keyBytes key capacity in bytes
     * @param valueBytes value capacity in bytes
     * @param clients client ids (handles ever attached; never reused)
     */
    record KvShape(int rows, int slots, int keyBytes, int valueBytes, int clients) {
        /** 16,384 rows of 4 slots (65,536 pairs), 16-byte keys, 32-byte values, 1,024 client ids: about 8 MB. */
        static final KvShape DEFAULT = new KvShape(16_384, 4, 16, 32, 1024);

        CuckooMap.Params params() {
            return new CuckooMap.Params().rows(rows).slotsPerRow(slots).keyCapacity(keyBytes).valueCapacity(valueBytes)
                .clients(clients);
        }

        /** @return the table's bytes in the home's memory */
        long bytes() {
            return CuckooTableDescriptor.tableBytes(rows, slots, clients, keyBytes, valueBytes);
        }

        /**
         * @throws IllegalArgumentException naming the setting out of range, or the size over {@link #KV_MAX_BYTES}
         */
        void check() {
            params().conclude();
            if (bytes() > KV_MAX_BYTES) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "the table would need %,d bytes, more "
                    + "than one region's %,d", bytes(), KV_MAX_BYTES));
            }
        }

        /**
         * @param setting one of {@link #KV_SETTINGS}
         * @param value its value
         * @return this shape with the setting changed, or null for an unknown setting
         */
        KvShape with(String setting, int value) {
            return switch (setting) {
                case "rows" -> new KvShape(value, slots, keyBytes, valueBytes, clients);
                case "slots" -> new KvShape(rows, value, keyBytes, valueBytes, clients);
                case "key" -> new KvShape(rows, slots, value, valueBytes, clients);
                case "value" -> new KvShape(rows, slots, keyBytes, value, clients);
                case "clients" -> new KvShape(rows, slots, keyBytes, valueBytes, value);
                default -> null;
            };
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "rows=%d slots=%d key=%d value=%d clients=%d", rows, slots, keyBytes,
                valueBytes, clients);
        }
    }

    /**
     * One object to create.
     *
     * @param kind what it is
     * @param name the name it is published under
     * @param shape a cuckoo table's shape ({@link Kind#KV}), null for the other kinds
     */
    record Spec(Kind kind, String name, KvShape shape) {
        Spec(Kind kind, String name) {
            this(kind, name, null);
        }

        @Override
        public String toString() {
            return kind.label + ":" + name + (shape == null ? "" : "(" + shape + ")");
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
    private KvShape kvDefaults = KvShape.DEFAULT;

    List<Spec> specs() {
        return specs;
    }

    /**
     * Sets the shape of tables from {@code --kv} and of {@code kv} lines' settings not given; call before adding them.
     *
     * @param shape the {@code --kv-*} flags' values
     * @throws ConfigException naming the setting out of range
     */
    void kvDefaults(KvShape shape) throws ConfigException {
        try {
            shape.check();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--kv-rows, --kv-slots, --kv-key-bytes, --kv-value-bytes, --kv-clients: "
                + e.getMessage());
        }
        kvDefaults = shape;
    }

    /** @return the shape of a table whose settings are not given */
    KvShape kvDefaults() {
        return kvDefaults;
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
                case "kv" -> {
                    if (f.length < 2) {
                        throw new ConfigException(at + ": field 2 (name) is missing: expected '" + KV_LINE + "'");
                    }
                    add(new Spec(Kind.KV, f[1], kvShape(at, f)), at + ", field 2 (name)");
                }
                default -> throw new ConfigException(at + ": field 1 (object): unknown object '" + f[0]
                    + "' (known: counter, word, lock, kv)");
            }
        }
    }

    /**
     * The settings of a {@code kv} line (fields 3 on), each {@code SETTING=N}, over {@link #kvDefaults()}; each is
     * checked as it is applied, so an error names the field that made the shape invalid.
     */
    private KvShape kvShape(String at, String[] f) throws ConfigException {
        KvShape shape = kvDefaults;
        Set<String> given = new HashSet<>();
        for (int j = 2; j < f.length; j++) {
            String field = "field " + (j + 1) + " ('" + f[j] + "')";
            int eq = f[j].indexOf('=');
            if (eq <= 0) {
                throw new ConfigException(at + ": " + field + ": expected SETTING=N with SETTING one of "
                    + KV_SETTINGS);
            }
            String setting = f[j].substring(0, eq);
            String text = f[j].substring(eq + 1);
            if (shape.with(setting, 0) == null) {
                throw new ConfigException(at + ": " + field + ": unknown setting '" + setting + "' (known: "
                    + KV_SETTINGS + ")");
            }
            if (!given.add(setting)) {
                throw new ConfigException(at + ": " + field + ": " + setting + " is given twice");
            }
            int value;
            try {
                value = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new ConfigException(at + ": " + field + ": '" + text + "' is not a whole number");
            }
            shape = shape.with(setting, value);
            try {
                shape.check();
            } catch (IllegalArgumentException e) {
                throw new ConfigException(at + ": " + field + ": " + e.getMessage());
            }
        }
        return shape;
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
                case KV -> {
                    // CuckooMap.allocate writes the header's magic word last with a volatile store, so the whole
                    // header is in memory before the address is published (R1, R5).
                    try {
                        fabric.publish(s.name(), CuckooMap.allocate(home, s.shape().params()));
                    } catch (OutOfMemoryError e) {
                        throw new IllegalStateException(String.format(Locale.ROOT, "cannot allocate the %,d bytes "
                            + "of kv %s (%s): %s; raise -XX:MaxDirectMemorySize through REMORA_JAVA_OPTS",
                            s.shape().bytes(), s.name(), s.shape(), e.getMessage()), e);
                    }
                }
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
                : s.kind() == Kind.KV ? String.format(Locale.ROOT, "kv %s (%d rows x %d slots, keys <= %d B, values "
                    + "<= %d B, %d clients)", s.name(), s.shape().rows(), s.shape().slots(), s.shape().keyBytes(),
                    s.shape().valueBytes(), s.shape().clients())
                : s.kind().label + " " + s.name());
            if (s.kind() == Kind.LEASE) {
                made.add("register " + s.name() + FENCE_SUFFIX);
            }
        }
        return made.isEmpty() ? "none" : String.join(", ", made);
    }
}
