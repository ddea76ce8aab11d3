package dev.remora.verbs.det.machine;

import dev.remora.verbs.WcStatus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A small concurrent program for the deterministic machine, in the shape of the TLA+ litmus interpreter
 * ({@code spec/rdma/RDMA.tla}): memory words with home nodes and initial values, registers, threads on nodes running
 * straight-line {@link Op}s, statically described work requests ({@link Wr}) and the faults that may happen
 * ({@link Fault}). Build one with {@link Builder}.
 *
 * @param nodes the number of nodes (0..nodes-1)
 * @param wordNames a name per word, for outcomes
 * @param wordNodes each word's home node
 * @param initial each word's initial value
 * @param registerNames a name per register (registers start at 0)
 * @param threadNodes each thread's node
 * @param threadOps each thread's operations
 * @param wrs the work requests, numbered in thread order then program order
 * @param faults the faults that may happen, each at most once, at any step ({@code Faults} in Verbs.tla)
 */
public record DetProgram(int nodes, List<String> wordNames, int[] wordNodes, long[] initial, List<String> registerNames,
                         int[] threadNodes, List<List<Op>> threadOps, List<Wr> wrs, List<Fault> faults) {

    /** A thread operation. */
    public sealed interface Op {
    }

    /** Every byte of a word: the mask of a whole-word store. */
    public static final long WHOLE_WORD = -1L;

    /**
     * {@code x := v}: a TSO store (R1) of the bytes of {@code word} selected by {@code mask} (x86 stores are atomic at
     * their width; the litmus model stores whole words).
     *
     * @param word the word
     * @param value the value, in place within the word
     * @param mask the bytes stored, {@link #WHOLE_WORD} for all
     */
    public record Store(int word, long value, long mask) implements Op {
        /**
         * A whole-word store.
         *
         * @param word the word
         * @param value the value
         */
        public Store(int word, long value) {
            this(word, value, WHOLE_WORD);
        }
    }

    /**
     * {@code a := x}: a load, forwarded from the thread's store buffer where it holds stores to the word.
     *
     * @param register the register, or -1 (the result goes to the thread only)
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

        @Override
        public String toString() {
            return "PostAll" + Arrays.toString(wrs);
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
     * {@code poll(n)} or {@code s := poll(n)}: waits for the oldest unretired work request of this thread to node
     * {@code n} to complete and retires it; with a register, stores the completion's status code in it (the codes of
     * {@code StatusCode} in RDMA.tla, see {@link DetMachine#statusCode}).
     *
     * @param node the node
     * @param register the register receiving the status code, or -1
     */
    public record Poll(int node, int register) implements Op {
        /**
         * A poll that keeps no status.
         *
         * @param node the node
         */
        public Poll(int node) {
            this(node, -1);
        }
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
     * @param refusal the status the NIC refuses the request with ({@code Wr[k].fail}: REM_ACCESS_ERR, REM_INV_REQ_ERR
     *     or LOC_PROT_ERR), or null for a valid request
     */
    public record Wr(Kind kind, int thread, int node, int[] dst, int[] src, long cmp, long val, int res, boolean fence,
                     boolean inline, int tag, int qp, WcStatus refusal) {

        /**
         * A valid request on the queue pair (thread, node), as litmus tests define queue pairs.
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
            this(kind, thread, node, dst, src, cmp, val, res, fence, inline, tag, litmusQp(thread, node), null);
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
            if (refusal != null && refusal != WcStatus.REM_ACCESS_ERR && refusal != WcStatus.REM_INV_REQ_ERR
                && refusal != WcStatus.LOC_PROT_ERR) {
                throw new IllegalArgumentException("a request is refused with REM_ACCESS_ERR, REM_INV_REQ_ERR or "
                    + "LOC_PROT_ERR, not " + refusal);
            }
        }

        /**
         * The same request refused with a status.
         *
         * @param status REM_ACCESS_ERR, REM_INV_REQ_ERR or LOC_PROT_ERR
         * @return the refused request
         */
        public Wr refused(WcStatus status) {
            return new Wr(kind, thread, node, dst, src, cmp, val, res, fence, inline, tag, qp, status);
        }

        /** @return whether this is a CAS or a FAA */
        public boolean isAtomic() {
            return kind == Kind.CAS || kind == Kind.FAA;
        }

        /** @return the number of words it moves (1 for an atomic) */
        public int words() {
            return dst.length;
        }

        @Override
        public String toString() {
            return kind + "(T" + thread + "->N" + node + ", dst=" + Arrays.toString(dst) + ", src="
                + Arrays.toString(src) + (fence ? ", FENCE" : "") + (inline ? ", INLINE" : "")
                + (refusal == null ? "" : ", refused " + refusal) + ")";
        }
    }

    /**
     * The queue pair number litmus programs use for (thread, node).
     *
     * @param thread a thread
     * @param node a target node
     * @return the queue pair's number
     */
    public static int litmusQp(int thread, int node) {
        return thread << 16 | node;
    }

    /** Kinds of {@link Fault}. */
    public enum FaultKind {
        /** Node {@code a} crashes: its CPUs and NIC stop, its store buffers are lost, its memory stays. */
        CRASH,
        /** The link between nodes {@code a} and {@code b} is cut, both ways. */
        CUT,
        /** Queue pair {@code a} goes to ERROR. */
        QP_ERROR
    }

    /**
     * A fault, as {@code FaultDesc} in Verbs.tla.
     *
     * @param kind what fails
     * @param a the crashed node, one end of the cut link, or the failed queue pair's number
     * @param b the other end of the cut link, else 0
     */
    public record Fault(FaultKind kind, int a, int b) {
        /** Normalises a link's ends (the link is the same both ways). */
        public Fault {
            Objects.requireNonNull(kind, "kind");
            if (kind == FaultKind.CUT) {
                if (a == b) {
                    throw new IllegalArgumentException("a link joins two different nodes: " + a);
                }
                int lo = Math.min(a, b);
                b = Math.max(a, b);
                a = lo;
            } else {
                b = 0;
            }
        }

        @Override
        public String toString() {
            return switch (kind) {
                case CRASH -> "crash(N" + a + ")";
                case CUT -> "cut(N" + a + ",N" + b + ")";
                case QP_ERROR -> "qperror(QP" + a + ")";
            };
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
        faults = List.copyOf(faults);
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
        private final List<Fault> faults = new ArrayList<>();

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

        /**
         * Declares a fault that may happen at any step, or not at all.
         *
         * @param fault the fault
         * @return this
         */
        public Builder fault(Fault fault) {
            if (faults.contains(fault)) {
                throw new IllegalArgumentException("fault " + fault + " declared twice");
            }
            faults.add(fault);
            return this;
        }

        /** @return the program */
        public DetProgram build() {
            return new DetProgram(nodes, wordNames, wordNodes.stream().mapToInt(Integer::intValue).toArray(),
                initial.stream().mapToLong(Long::longValue).toArray(), registers,
                threadNodes.stream().mapToInt(Integer::intValue).toArray(), threadOps, wrs, faults);
        }
    }
}
