package dev.remora.objects;

import dev.remora.objects.ModelChains.Opened;
import dev.remora.objects.ModelChains.Step;
import dev.remora.objects.ModelChains.Value;
import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.sim.SimFabric;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.state.ActionChain;

import java.util.Arrays;
import java.util.HashSet;

import static dev.remora.objects.ModelChains.action;
import static dev.remora.objects.ModelChains.assertNamedError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Model-based tests of the four registers: random chains of operations from three clients on two nodes (the register
 * on a third), each applied to the register on the fast software fabric and to a sequential model (a {@code long}, a
 * {@code long} and each handle's last-seen value, a {@code byte[]} and the tags used so far), whose answers must
 * agree; after every step an invariant reads the register's words raw. Bad input is a step too: it must fail with the
 * named error and change nothing. Chains per property: {@link ModelChains#CHAINS}; at most {@value #LENGTH} steps.
 */
@AddLifecycleHook(ModelChains.class)
class RegistersModelTest {
    static final int LENGTH = 30;
    private static final int CLIENTS = 3;
    private static final long LEASE_NS = 100_000L;

    private final Opened opened = new Opened();

    private static Arbitrary<Integer> client() {
        return Arbitraries.integers().between(0, CLIENTS - 1);
    }

    private static Arbitrary<Integer> misalignment() {
        return Arbitraries.integers().between(1, 7);
    }

    private static VerbsStatistics cost(Endpoint ep, VerbsStatistics before) {
        return ep.statistics().minus(before);
    }

    // ------------------------------------------------------------------ RemoteRegister: a long

    /** A {@link RemoteRegister} with a handle per client; the model is one long. */
    final class Plain {
        final RemoteAddress word;
        final Endpoint[] clients;
        final RemoteRegister[] handles = new RemoteRegister[CLIENTS];
        long model;

        Plain() {
            Fabric fabric = opened.add(SimFabric.open());
            word = RemoteRegister.create(fabric.addNode("home"));
            clients = ModelChains.clients(fabric, opened, CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                handles[i] = RemoteRegister.attach(clients[i], word);
            }
        }

        /** A set is visible to every node when it returns: a client on each node reads the model's value. */
        void invariant() {
            for (int i = 0; i < 2; i++) {
                assertEquals(model, handles[i].get(), "client c" + i + " reads");
            }
        }
    }

    record WordGet(int c) implements Step<Plain> {
        @Override
        public void apply(Plain s) {
            assertEquals(s.model, s.handles[c].get(), this::toString);
        }

        @Override
        public String toString() {
            return "get(c" + c + ")";
        }
    }

    record WordSet(int c, long value) implements Step<Plain> {
        @Override
        public void apply(Plain s) {
            VerbsStatistics before = s.clients[c].statistics();
            s.handles[c].set(value);
            s.model = value;
            VerbsStatistics used = cost(s.clients[c], before);
            assertEquals(1, used.writes(), this + ": WRITEs");
            assertEquals(1, used.reads(), this + ": READs (the flush)");
            assertEquals(2, used.roundTrips(), this + ": round trips");
        }

        @Override
        public String toString() {
            return "set(c" + c + ", " + value + ")";
        }
    }

    record WordMisaligned(int c, int offset) implements Step<Plain> {
        @Override
        public void apply(Plain s) {
            assertNamedError(IllegalArgumentException.class, "must be 8-byte aligned",
                () -> RemoteRegister.attach(s.clients[c], s.word.plus(offset)), this::toString);
        }

        @Override
        public String toString() {
            return "attach(c" + c + ", word + " + offset + ") fails";
        }
    }

    @Provide
    Arbitrary<ActionChain<Plain>> plainChains() {
        return ActionChain.<Plain>startWith(Plain::new)
            .withAction(3, action(client().map(WordGet::new)))
            .withAction(3, action(Combinators.combine(client(), Arbitraries.longs()).as(WordSet::new)))
            .withAction(1, action(Combinators.combine(client(), misalignment()).as(WordMisaligned::new)))
            .withMaxTransformations(LENGTH);
    }

    @Property
    void remoteRegisterBehavesAsALong(@ForAll("plainChains") ActionChain<Plain> chain) {
        ModelChains.run(chain.withInvariant("every client reads the model", Plain::invariant), opened);
    }

    // ------------------------------------------------------------------ CasRegister: a long and each handle's guess

    /** A {@link CasRegister} with a handle per client; the model is the value and the value each handle saw last. */
    final class Cas {
        final RemoteAddress word;
        final Endpoint[] clients;
        final Endpoint observer;
        final CasRegister[] handles = new CasRegister[CLIENTS];
        final long[] lastSeen = new long[CLIENTS];
        long model;

        Cas() {
            Fabric fabric = opened.add(SimFabric.open());
            word = CasRegister.create(fabric.addNode("home"));
            clients = ModelChains.clients(fabric, opened, CLIENTS);
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            for (int i = 0; i < CLIENTS; i++) {
                handles[i] = CasRegister.attach(clients[i], word);
            }
        }

        /** The word holds the model's value (read raw, so that no handle's guess changes). */
        void invariant() {
            assertEquals(model, observer.readLong(word), "the register's word");
        }
    }

    record CasGet(int c) implements Step<Cas> {
        @Override
        public void apply(Cas s) {
            assertEquals(s.model, s.handles[c].get(), this::toString);
            s.lastSeen[c] = s.model;
        }

        @Override
        public String toString() {
            return "get(c" + c + ")";
        }
    }

    record CasCompareAndSet(int c, boolean current, long expected, long desired) implements Step<Cas> {
        @Override
        public void apply(Cas s) {
            long exp = current ? s.model : expected;
            boolean swaps = exp == s.model;
            VerbsStatistics before = s.clients[c].statistics();
            assertEquals(swaps, s.handles[c].compareAndSet(exp, desired), this::toString);
            assertEquals(1, cost(s.clients[c], before).compareAndSwaps(), this + ": CAS");
            s.lastSeen[c] = swaps ? desired : s.model;
            if (swaps) {
                s.model = desired;
            }
        }

        @Override
        public String toString() {
            return "compareAndSet(c" + c + ", " + (current ? "current" : Long.toString(expected)) + ", " + desired
                + ")";
        }
    }

    record CasGetAndSet(int c, long desired) implements Step<Cas> {
        @Override
        public void apply(Cas s) {
            // One CAS when the handle's guess (the value it saw last) is right, else a second with the value the first
            // returned: nobody else changes the word in between.
            int attempts = s.lastSeen[c] == s.model ? 1 : 2;
            VerbsStatistics before = s.clients[c].statistics();
            assertEquals(s.model, s.handles[c].getAndSet(desired), this::toString);
            VerbsStatistics used = cost(s.clients[c], before);
            assertEquals(attempts, used.compareAndSwaps(), this + ": CAS (the handle saw " + s.lastSeen[c] + ")");
            assertEquals(attempts, used.roundTrips(), this + ": round trips");
            s.model = desired;
            s.lastSeen[c] = desired;
        }

        @Override
        public String toString() {
            return "getAndSet(c" + c + ", " + desired + ")";
        }
    }

    record CasMisaligned(int c, int offset) implements Step<Cas> {
        @Override
        public void apply(Cas s) {
            assertNamedError(IllegalArgumentException.class, "must be 8-byte aligned",
                () -> CasRegister.attach(s.clients[c], s.word.plus(offset)), this::toString);
        }

        @Override
        public String toString() {
            return "attach(c" + c + ", word + " + offset + ") fails";
        }
    }

    @Provide
    Arbitrary<ActionChain<Cas>> casChains() {
        Arbitrary<Long> small = Arbitraries.longs().between(-2, 3);
        return ActionChain.<Cas>startWith(Cas::new)
            .withAction(2, action(client().map(CasGet::new)))
            .withAction(3, action(Combinators.combine(client(), Arbitraries.of(true, false), small,
                Arbitraries.longs()).as(CasCompareAndSet::new)))
            .withAction(3, action(Combinators.combine(client(), small).as(CasGetAndSet::new)))
            .withAction(1, action(Combinators.combine(client(), misalignment()).as(CasMisaligned::new)))
            .withMaxTransformations(LENGTH);
    }

    @Property
    void casRegisterBehavesAsALong(@ForAll("casChains") ActionChain<Cas> chain) {
        ModelChains.run(chain.withInvariant("the word holds the model", Cas::invariant), opened);
    }

    // ------------------------------------------------------------------ versioned registers: a byte[] and its tags

    /**
     * The size of the versioned register of the current chain: a parameter of the property, read by the chain's
     * initial state (a chain drawn inside a flatMap over the size would not shrink).
     */
    private int maxLength;

    private static Arbitrary<Integer> badMaxLengths() {
        return Arbitraries.oneOf(Arbitraries.integers().between(-3, -1), Arbitraries.just(Integer.MIN_VALUE),
            Arbitraries.integers().between(VersionedRegisterDescriptor.MAX_LENGTH_LIMIT + 1,
                VersionedRegisterDescriptor.MAX_LENGTH_LIMIT + 3));
    }

    /** What both versioned registers' states share: the home, the clients, an observer, the raw words. */
    abstract class Versioned {
        final int maxLength;
        final Node home;
        final RemoteAddress base;
        final Endpoint[] clients;
        final Endpoint observer;
        final MemoryRegion raw;
        final long[] words;
        byte[] model = new byte[0];

        Versioned(int maxLength, boolean multiWriter) {
            this.maxLength = maxLength;
            Fabric fabric = opened.add(SimFabric.open());
            home = fabric.addNode("home");
            base = multiWriter ? MultiWriterVersionedRegister.create(home, maxLength)
                : SingleWriterVersionedRegister.create(home, maxLength);
            clients = ModelChains.clients(fabric, opened, CLIENTS);
            observer = opened.add(Endpoint.open(fabric.addNode("observer")));
            words = new long[VersionedRegisterDescriptor.dataWords(maxLength)];
            raw = opened.add(observer.node().allocate(8L * words.length, Access.LOCAL_WRITE));
        }

        Opened opened() {
            return opened;
        }

        /** @return the data words, read raw in one READ */
        long[] readWords() {
            observer.read(base.plus(VersionedRegisterDescriptor.HEADER_OFFSET), raw, 0, 8 * words.length);
            for (int w = 0; w < words.length; w++) {
                words[w] = raw.getLong(8L * w);
            }
            return words;
        }

        @Override
        public String toString() {
            return "register of maxLength " + maxLength;
        }
    }

    /**
     * A {@link SingleWriterVersionedRegister} with a reader handle per client and one writer handle, which the
     * writer's role moves to between sets: a new handle on the new writer's client, as the class requires; the model
     * is the value, whether the writer handle has written (its first set learns the last tag), and the tags used.
     */
    final class Single extends Versioned {
        final SingleWriterVersionedRegister[] handles = new SingleWriterVersionedRegister[CLIENTS];
        final java.util.Set<Integer> tags = new HashSet<>();
        SingleWriterVersionedRegister writerHandle;
        int writer;
        boolean writerHasWritten;
        long writes;
        long checkedWrites;
        int lastTag;

        Single(int maxLength) {
            super(maxLength, false);
            for (int i = 0; i < CLIENTS; i++) {
                handles[i] = opened.add(SingleWriterVersionedRegister.attach(clients[i], base, maxLength));
            }
            writerHandle = opened.add(SingleWriterVersionedRegister.attach(clients[0], base, maxLength));
            tags.add(0);
        }

        /** The words are one write's (one tag), hold the model's value, and each write used a tag of its own. */
        void invariant() {
            long[] w = readWords();
            byte[] value = VersionedRegisterDescriptor.decode(w, maxLength);
            assertNotNull(value, () -> this + ": the words carry more than one tag: " + Arrays.toString(w));
            assertArrayEquals(model, value, () -> this + ": the words hold");
            int tag = VersionedRegisterDescriptor.tagOf(w[0]);
            if (writes != checkedWrites) {
                assertTrue(tags.add(tag), () -> this + ": a write used tag " + tag + ", the tag of an earlier write"
                    + " (tags used: " + tags + "): a reader could take words of both writes for one value");
                checkedWrites = writes;
            } else {
                assertEquals(lastTag, tag, () -> this + ": the tag changed without a write");
            }
            lastTag = tag;
        }
    }

    record SwGet(int c) implements Step<Single> {
        @Override
        public void apply(Single s) {
            assertArrayEquals(s.model, s.handles[c].get(), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "get(c" + c + ")";
        }
    }

    record SwSet(Value v) implements Step<Single> {
        @Override
        public void apply(Single s) {
            byte[] value = v.bytes(s.maxLength);
            int c = s.writer;
            boolean first = !s.writerHasWritten;
            VerbsStatistics before = s.clients[c].statistics();
            s.writerHandle.set(value);
            VerbsStatistics used = cost(s.clients[c], before);
            s.model = value.clone();
            s.writes++;
            s.writerHasWritten = true;
            // A handle's first set READs the words once to learn the last tag; every set is one WRITE and a flush READ.
            assertEquals(1, used.writes(), () -> s + ": " + this + ": WRITEs");
            assertEquals(first ? 2 : 1, used.reads(), () -> s + ": " + this + ": READs");
            assertEquals(first ? 3 : 2, used.roundTrips(), () -> s + ": " + this + ": round trips");
        }

        @Override
        public String toString() {
            return "set(" + v + ") by the writer";
        }
    }

    record SwHandOver(int c) implements Step<Single> {
        @Override
        public void apply(Single s) {
            s.writerHandle = s.opened().add(SingleWriterVersionedRegister.attach(s.clients[c], s.base,
                s.maxLength));
            s.writer = c;
            s.writerHasWritten = false;
        }

        @Override
        public String toString() {
            return "writer's role to a new handle on c" + c;
        }
    }

    record SwTooLong(int extra) implements Step<Single> {
        @Override
        public void apply(Single s) {
            byte[] value = new byte[s.maxLength + extra];
            assertNamedError(IllegalArgumentException.class, "the register holds at most " + s.maxLength,
                () -> s.writerHandle.set(value), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "set(maxLength + " + extra + " bytes) by the writer fails";
        }
    }

    record SwBadMaxLength(int c, int maxLength) implements Step<Single> {
        @Override
        public void apply(Single s) {
            assertNamedError(IllegalArgumentException.class, "maxLength must be in 0..",
                () -> SingleWriterVersionedRegister.create(s.home, maxLength), this::toString);
            assertNamedError(IllegalArgumentException.class, "maxLength must be in 0..",
                () -> SingleWriterVersionedRegister.attach(s.clients[c], s.base, maxLength), this::toString);
        }

        @Override
        public String toString() {
            return "create and attach(c" + c + ") with maxLength " + maxLength + " fail";
        }
    }

    @Provide
    Arbitrary<ActionChain<Single>> singleChains() {
        return ActionChain.<Single>startWith(() -> new Single(maxLength))
            .withAction(3, action(client().map(SwGet::new)))
            .withAction(3, action(ModelChains.values().map(SwSet::new)))
            .withAction(1, action(client().map(SwHandOver::new)))
            .withAction(1, action(Arbitraries.integers().between(1, 9).map(SwTooLong::new)))
            .withAction(1, action(Combinators.combine(client(), badMaxLengths()).as(SwBadMaxLength::new)))
            .withMaxTransformations(LENGTH);
    }

    @Provide
    Arbitrary<Integer> maxLengths() {
        // Not shrunk: the chain's values were drawn for this size.
        return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.of(0, 1, 3, 4, 5, 8, 13, 64)),
            Tuple.of(1, Arbitraries.just(VersionedRegisterDescriptor.MAX_LENGTH_LIMIT))).dontShrink();
    }

    @Property
    void singleWriterVersionedRegisterBehavesAsAByteArray(@ForAll("maxLengths") int maxLength,
                                                          @ForAll("singleChains") ActionChain<Single> chain) {
        this.maxLength = maxLength;
        ModelChains.run(chain.withInvariant("one write's words, the model's value, a fresh tag per write",
            Single::invariant), opened);
    }

    /**
     * The control of the hand-over rule (a writer's role goes to a new handle each time): a handle that gave the role
     * away and sets again reuses the tag of the write made in between, which its counter never saw, so a reader
     * concurrent with that set could take words of both writes for one value. The chains hand the role over to a new
     * handle; found by a chain that handed it back to the old one.
     */
    @Example
    void anOldWriterHandleThatSetsAgainReusesTheTagOfTheWriteInBetween() {
        try {
            Single s = new Single(8);
            SingleWriterVersionedRegister first = s.writerHandle;
            first.set(new byte[] {1});
            SingleWriterVersionedRegister second = opened.add(SingleWriterVersionedRegister.attach(s.clients[1], s.base,
                8));
            second.set(new byte[] {2, 2});
            int secondTag = VersionedRegisterDescriptor.tagOf(s.readWords()[0]);
            first.set(new byte[] {3, 3, 3});
            assertEquals(secondTag, VersionedRegisterDescriptor.tagOf(s.readWords()[0]),
                "the old handle's set carries the tag of the write it did not see");
        } finally {
            opened.closeAll();
        }
    }

    /**
     * A {@link MultiWriterVersionedRegister} with a handle per client (lease {@value #LEASE_NS} ns) and writers that
     * crash holding the control word; the model is the control word, the value and its tag (or that the words are
     * mixed, after a crash in mid-WRITE), and each handle's guess of the control word.
     */
    final class Multi extends Versioned {
        final RemoteAddress control;
        final MultiWriterVersionedRegister[] handles = new MultiWriterVersionedRegister[CLIENTS];
        final long[] lastControl = new long[CLIENTS];
        long controlWord;
        int tag;
        boolean torn;

        Multi(int maxLength) {
            super(maxLength, true);
            control = base.plus(VersionedRegisterDescriptor.CONTROL_OFFSET);
            for (int i = 0; i < CLIENTS; i++) {
                handles[i] = opened.add(MultiWriterVersionedRegister.attach(clients[i], base, maxLength, LEASE_NS));
            }
        }

        /** The control word is the model's; unless a crash left them mixed, the words are the model's value's. */
        void invariant() {
            assertEquals(controlWord, observer.readLong(control), () -> this + ": the control word");
            long[] w = readWords();
            byte[] value = VersionedRegisterDescriptor.decode(w, maxLength);
            if (torn) {
                assertNull(value, () -> this + ": words of two writes expected: " + Arrays.toString(w));
                return;
            }
            assertNotNull(value, () -> this + ": the words carry more than one tag: " + Arrays.toString(w));
            assertArrayEquals(model, value, () -> this + ": the words hold");
            assertEquals(tag, VersionedRegisterDescriptor.tagOf(w[0]), () -> this + ": the words' tag");
        }
    }

    record MwGet(int c) implements Step<Multi> {
        @Override
        public void apply(Multi s) {
            if (s.torn) {
                assertNamedError(RegisterContendedException.class, "reads in a row saw words of more than one write",
                    () -> s.handles[c].get(), () -> s + ": " + this);
            } else {
                assertArrayEquals(s.model, s.handles[c].get(), () -> s + ": " + this);
            }
        }

        @Override
        public String toString() {
            return "get(c" + c + ")";
        }
    }

    record MwSet(int c, Value v) implements Step<Multi> {
        @Override
        public void apply(Multi s) {
            byte[] value = v.bytes(s.maxLength);
            VerbsStatistics before = s.clients[c].statistics();
            s.handles[c].set(value);
            VerbsStatistics used = cost(s.clients[c], before);
            long cas;
            if ((s.controlWord & 1) == 1) {
                // A crashed writer holds the word: a CAS with the handle's (even) guess fails, the handle waits a
                // lease, takes the write over (odd v to v + 2) and releases (v + 2 to v + 3).
                cas = 3;
                s.tag = (int) (s.controlWord + 2);
                s.controlWord += 3;
            } else {
                // The take succeeds at once when the handle's guess is the word, else at the second CAS; then the
                // release.
                cas = (s.lastControl[c] == s.controlWord ? 1 : 2) + 1;
                s.tag = (int) (s.controlWord + 1);
                s.controlWord += 2;
            }
            assertEquals(cas, used.compareAndSwaps(), () -> s + ": " + this + ": CAS (the handle guessed "
                + s.lastControl[c] + ")");
            assertEquals(1, used.writes(), () -> s + ": " + this + ": WRITEs");
            s.lastControl[c] = s.controlWord;
            s.model = value.clone();
            s.torn = false;
        }

        @Override
        public String toString() {
            return "set(c" + c + ", " + v + ")";
        }
    }

    /**
     * A writer on client {@code c} takes the control word (CAS even to odd; or, when a crashed writer holds it, takes it
     * over after the lease: odd {@code v} to {@code v + 2}), WRITEs the first {@code words} data words of its value
     * tagged with the odd value, and stops for good.
     */
    record MwCrash(int c, int words, Value v) implements Step<Multi> {
        @Override
        public void apply(Multi s) {
            byte[] value = v.bytes(s.maxLength);
            Endpoint ep = s.clients[c];
            long held = s.controlWord;
            long next = (held & 1) == 0 ? held + 1 : held + 2;
            assertEquals(held, ep.cas(s.control, held, next), () -> s + ": " + this + ": taking the word");
            // words < 0: all of them; else at most all but one.
            int n = words < 0 ? s.words.length : Math.min(words, s.words.length - 1);
            if (n > 0) {
                long[] encoded = new long[s.words.length];
                VersionedRegisterDescriptor.encode(value, (int) next, encoded);
                try (MemoryRegion buffer = ep.node().allocate(8L * n, Access.LOCAL_WRITE)) {
                    for (int w = 0; w < n; w++) {
                        buffer.putLong(8L * w, encoded[w]);
                    }
                    ep.write(s.base.plus(VersionedRegisterDescriptor.HEADER_OFFSET), buffer, 0, 8 * n);
                }
                if (n == s.words.length) {
                    s.model = value.clone();
                    s.tag = (int) next;
                    s.torn = false;
                } else {
                    s.torn = true;
                }
            }
            s.controlWord = next;
        }

        @Override
        public String toString() {
            return "crash(c" + c + " holding the control word, after WRITEing " + (words < 0 ? "all"
                : words == 0 ? "none" : "at most " + words) + " of the data words of " + v + ")";
        }
    }

    record MwTooLong(int c, int extra) implements Step<Multi> {
        @Override
        public void apply(Multi s) {
            byte[] value = new byte[s.maxLength + extra];
            assertNamedError(IllegalArgumentException.class, "the register holds at most " + s.maxLength,
                () -> s.handles[c].set(value), () -> s + ": " + this);
        }

        @Override
        public String toString() {
            return "set(c" + c + ", maxLength + " + extra + " bytes) fails";
        }
    }

    record MwBadArguments(int c, int maxLength, long leaseNs) implements Step<Multi> {
        @Override
        public void apply(Multi s) {
            assertNamedError(IllegalArgumentException.class, "maxLength must be in 0..",
                () -> MultiWriterVersionedRegister.create(s.home, maxLength), this::toString);
            assertNamedError(IllegalArgumentException.class, "maxLength must be in 0..",
                () -> MultiWriterVersionedRegister.attach(s.clients[c], s.base, maxLength), this::toString);
            assertNamedError(IllegalArgumentException.class, "leaseNs must be positive",
                () -> MultiWriterVersionedRegister.attach(s.clients[c], s.base, s.maxLength, leaseNs),
                this::toString);
        }

        @Override
        public String toString() {
            return "create and attach(c" + c + ") with maxLength " + maxLength + ", attach with lease " + leaseNs
                + " fail";
        }
    }

    /**
     * Where a writer crashes: before its WRITE (0) or after all of it (-1), mostly; in the middle (mixed words, and
     * reads that give up after 64 torn snapshots until the next write) a fifth of the time.
     */
    private static Arbitrary<Integer> crashWords() {
        return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(0)), Tuple.of(2, Arbitraries.just(-1)),
            Tuple.of(1, Arbitraries.integers().between(1, 20)));
    }

    @Provide
    Arbitrary<ActionChain<Multi>> multiChains() {
        return ActionChain.<Multi>startWith(() -> new Multi(maxLength))
            .withAction(3, action(client().map(MwGet::new)))
            .withAction(6, action(Combinators.combine(client(), ModelChains.values()).as(MwSet::new)))
            .withAction(1, action(Combinators.combine(client(), crashWords(), ModelChains.values())
                .as(MwCrash::new)))
            .withAction(1, action(Combinators.combine(client(), Arbitraries.integers().between(1, 9))
                .as(MwTooLong::new)))
            .withAction(1, action(Combinators.combine(client(), badMaxLengths(),
                Arbitraries.longs().between(Long.MIN_VALUE, 0)).as(MwBadArguments::new)))
            .withMaxTransformations(LENGTH);
    }

    @Property
    void multiWriterVersionedRegisterBehavesAsAByteArray(@ForAll("maxLengths") int maxLength,
                                                         @ForAll("multiChains") ActionChain<Multi> chain) {
        this.maxLength = maxLength;
        ModelChains.run(chain.withInvariant("the model's control word, value and tag", Multi::invariant), opened);
    }
}
