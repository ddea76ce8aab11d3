package dev.remora.verbs.det;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A small concurrent program for the deterministic machine, in the shape of the TLA+ litmus interpreter
 * ({@code spec/rdma/RDMA.tla}): memory words with home nodes and initial values, registers, threads on nodes running
 * straight-line {@link Op}s, and statically described work requests ({@link Wr}). Build one with {@link Builder}.
 *
 * @param nodes the number of nodes (0..nodes-1)
 * @param wordNames a name per word, for outcomes
 * @param wordNodes each word's home node
 * @param initial each word's initial value
 * @param registerNames a name per register (registers start at 0)
 * @param threadNodes each thread's node
 * @param threadOps each thread's operations
 * @param wrs the work requests, numbered in thread order then program order
 */
public record DetProgram(int nodes, List<String> wordNames, int[] wordNodes, long[] initial, List<String> registerNames,
                         int[] threadNodes, List<List<Op>> threadOps, List<Wr> wrs) {

    /** A thread operation. */
    public sealed interface Op {
    }

    /**
     * {@code x := v}: a TSO store (R1).
     *
     * @param word the word
     * @param value the value
     */
    public record Store(int word, long value) implements Op {
    }

    /**
     * {@code a := x}: a load, from the thread's store buffer if it holds a store to the word.
     *
     * @param register the register
     * @param word the word
     */
    public record Load(int register, int word) implements Op {
    }

    /** {@code mfence}: waits for an empty store buffer. */
    public record MFence() implements Op {
    }

    /**
     * {@code lfaa(x,v[,a])}: a locked CPU add; needs an empty store buffer.
     *
     * @param word the word
     * @param addend the addend
     * @param register the register receiving the old value, or -1
     */
    public record LockedAdd(int word, long addend, int register) implements Op {
    }

    /**
     * A locked CPU compare-and-set; needs an empty store buffer. Not atomic against remote atomics under HCA (R14).
     * The old value is the step's result.
     *
     * @param word the word
     * @param expected the expected value
     * @param desired the new value
     */
    public record LockedCas(int word, long expected, long desired) implements Op {
    }

    /**
     * Posts several work requests with one doorbell; each enters the store buffer in order (R2).
     *
     * @param wrs indices into the machine's work requests
     */
    public record PostAll(int[] wrs) implements Op {
        /** Copies. */
        public PostAll {
            wrs = wrs.clone();
        }
    }

    /**
     * An operation defined outside the machine (for example polling a completion queue of the deterministic fabric):
     * one step of its thread, enabled when {@link #enabled} says so.
     */
    public non-sealed interface External extends Op {
        /**
         * @param machine the current state
         * @return whether the step may happen now
         */
        boolean enabled(DetMachine machine);

        /**
         * Performs the step.
         *
         * @param machine the current state
         * @return the step's result, handed to the thread
         */
        long apply(DetMachine machine);
    }

    /**
     * Posts work request {@code wr}: its doorbell enters the store buffer (R2).
     *
     * @param wr the index into {@link #wrs()}
     */
    public record Post(int wr) implements Op {
    }

    /**
     * {@code poll(n)}: waits for the oldest unretired work request of this thread to node {@code n} and retires it.
     *
     * @param node the node
     */
    public record Poll(int node) implements Op {
    }

    /**
     * {@code wait(d)}: waits for every issued work request of this thread tagged {@code d} and retires them.
     *
     * @param tag the tag number
     */
    public record Wait(int tag) implements Op {
    }

    /** Work request kinds. */
    public enum Kind {
        /** RDMA WRITE. */
        PUT,
        /** RDMA READ. */
        GET,
        /** compare-and-swap. */
        CAS,
        /** fetch-and-add. */
        FAA
    }

    /**
     * A static work request description, as {@code WrDesc} in {@code Verbs.tla}.
     *
     * @param kind the kind
     * @param thread the issuing thread; the queue pair is (thread, node)
     * @param node the target node
     * @param dst remote words of a put, local words of a get, the remote word of an atomic
     * @param src local words of a put, remote words of a get, empty for an atomic
     * @param cmp the compare value of a CAS
     * @param val the swap value of a CAS, the addend of a FAA
     * @param res the local result word of an atomic, else -1
     * @param fence IBV_SEND_FENCE
     * @param inline IBV_SEND_INLINE
     * @param tag the wait tag, or -1
     * @param qp the queue pair; requests of one queue pair are ordered by R6–R13
     */
    public record Wr(Kind kind, int thread, int node, int[] dst, int[] src, long cmp, long val, int res, boolean fence,
                     boolean inline, int tag, int qp) {

        /**
         * A request on the queue pair (thread, node), as litmus tests define queue pairs.
         *
         * @param kind the kind
         * @param thread the issuing thread
         * @param node the target node
         * @param dst destination words
         * @param src source words
         * @param cmp compare value
         * @param val swap value or addend
         * @param res result word or -1
         * @param fence IBV_SEND_FENCE
         * @param inline IBV_SEND_INLINE
         * @param tag wait tag or -1
         */
        public Wr(Kind kind, int thread, int node, int[] dst, int[] src, long cmp, long val, int res, boolean fence,
                  boolean inline, int tag) {
            this(kind, thread, node, dst, src, cmp, val, res, fence, inline, tag, thread << 16 | node);
        }

        /** Validates. */
        public Wr {
            Objects.requireNonNull(kind, "kind");
            dst = dst.clone();
            src = src.clone();
            if (dst.length == 0 || dst.length > 64) {
                throw new IllegalArgumentException("a work request moves 1..64 words, not " + dst.length);
            }
            if ((kind == Kind.PUT || kind == Kind.GET) && src.length != dst.length) {
                throw new IllegalArgumentException("source and destination differ in length");
            }
            if ((kind == Kind.CAS || kind == Kind.FAA) && (dst.length != 1 || res < 0)) {
                throw new IllegalArgumentException("an atomic needs one remote word and a result word");
            }
        }

        boolean isAtomic() {
            return kind == Kind.CAS || kind == Kind.FAA;
        }

        @Override
        public String toString() {
            return kind + "(T" + thread + "->N" + node + ", dst=" + Arrays.toString(dst) + ", src="
                + Arrays.toString(src) + (fence ? ", FENCE" : "") + (inline ? ", INLINE" : "") + ")";
        }
    }

    /** Validates and copies. */
    public DetProgram {
        wordNames = List.copyOf(wordNames);
        wordNodes = wordNodes.clone();
        initial = initial.clone();
        registerNames = List.copyOf(registerNames);
        threadNodes = threadNodes.clone();
        List<List<Op>> ops = new ArrayList<>();
        for (List<Op> t : threadOps) {
            ops.add(List.copyOf(t));
        }
        threadOps = List.copyOf(ops);
        wrs = List.copyOf(wrs);
        if (wordNames.size() != wordNodes.length || wordNodes.length != initial.length) {
            throw new IllegalArgumentException("word tables differ in length");
        }
        if (threadNodes.length != threadOps.size()) {
            throw new IllegalArgumentException("thread tables differ in length");
        }
    }

    /** @return the number of threads */
    public int threads() {
        return threadNodes.length;
    }

    /** Builds a program. */
    public static final class Builder {
        private int nodes;
        private final List<String> wordNames = new ArrayList<>();
        private final List<Integer> wordNodes = new ArrayList<>();
        private final List<Long> initial = new ArrayList<>();
        private final List<String> registers = new ArrayList<>();
        private final List<Integer> threadNodes = new ArrayList<>();
        private final List<List<Op>> threadOps = new ArrayList<>();
        private final List<Wr> wrs = new ArrayList<>();

        /** Creates an empty builder. */
        public Builder() {
        }

        /**
         * Adds a word.
         *
         * @param name its name in outcomes
         * @param node its home node
         * @param value its initial value
         * @return the word's index
         */
        public int word(String name, int node, long value) {
            nodes = Math.max(nodes, node + 1);
            wordNames.add(name);
            wordNodes.add(node);
            initial.add(value);
            return wordNames.size() - 1;
        }

        /**
         * Adds a register.
         *
         * @param name its name in outcomes
         * @return its index
         */
        public int register(String name) {
            registers.add(name);
            return registers.size() - 1;
        }

        /**
         * Adds a thread.
         *
         * @param node the node it runs on
         * @return its index
         */
        public int thread(int node) {
            nodes = Math.max(nodes, node + 1);
            threadNodes.add(node);
            threadOps.add(new ArrayList<>());
            return threadNodes.size() - 1;
        }

        /**
         * Appends an operation to a thread.
         *
         * @param thread the thread
         * @param op the operation
         * @return this
         */
        public Builder op(int thread, Op op) {
            threadOps.get(thread).add(op);
            return this;
        }

        /**
         * Declares a work request and appends its {@link Post} to its thread.
         *
         * @param wr the request
         * @return its index
         */
        public int post(Wr wr) {
            nodes = Math.max(nodes, wr.node() + 1);
            wrs.add(wr);
            int k = wrs.size() - 1;
            threadOps.get(wr.thread()).add(new Post(k));
            return k;
        }

        /** @return the program */
        public DetProgram build() {
            return new DetProgram(nodes, wordNames, wordNodes.stream().mapToInt(Integer::intValue).toArray(),
                initial.stream().mapToLong(Long::longValue).toArray(), registers,
                threadNodes.stream().mapToInt(Integer::intValue).toArray(), threadOps, wrs);
        }
    }
}
