package dev.remora.spec.litmus;

import java.util.List;
import java.util.Optional;

/**
 * One operation of a litmus thread: a CPU access to the thread's own node, or a verb posted to
 * the queue pair from the thread to a remote node, or a completion operation. Every variant is
 * an immutable record; see {@code spec/litmus/README.md} for the concrete syntax.
 */
public sealed interface Op {

    /**
     * {@code x := v}: a CPU store of a constant into a local location (enters the TSO store buffer).
     *
     * @param location the local location written
     * @param value    the value stored
     */
    record CpuWrite(String location, long value) implements Op {
    }

    /**
     * {@code a := x}: a CPU load of a local location into a thread register (store-buffer forwarding).
     *
     * @param register the register written
     * @param location the local location read
     */
    record CpuRead(String register, String location) implements Op {
    }

    /** {@code mfence}: waits until the thread's store buffer is empty. */
    record MFence() implements Op {
    }

    /**
     * {@code lfaa(x,v)} or {@code lfaa(x,v,a)}: a CPU locked fetch-and-add on a local location;
     * drains the store buffer first; the old value optionally goes to a register.
     *
     * @param location the local location
     * @param addend   the value added
     * @param register the register receiving the old value, if any
     */
    record LocalFaa(String location, long addend, Optional<String> register) implements Op {
    }

    /**
     * {@code poll(n)} or {@code s := poll(n)}: waits for and retires the oldest outstanding completion of a WR to
     * node {@code n}; with a register, stores the completion's {@link Status#code()} in it.
     *
     * @param node     the target node whose completions are polled
     * @param register the register receiving the status code, if any
     */
    record Poll(String node, Optional<String> register) implements Op {
    }

    /**
     * {@code wait(d)}: waits for every earlier WR of this thread tagged {@code d} to complete and
     * retires them (RDMA^WAIT).
     *
     * @param tag the tag
     */
    record Wait(String tag) implements Op {
    }

    /**
     * A work request posted on the queue pair from the issuing thread to {@link #node()}.
     */
    sealed interface Verb extends Op {
        /**
         * The target node; the queue pair is (issuing thread, target node).
         *
         * @return the node
         */
        String node();

        /**
         * {@code !F}: {@code IBV_SEND_FENCE}, wait for earlier reads and atomics on the QP.
         *
         * @return whether the fence flag is set
         */
        boolean fence();

        /**
         * The {@code @tag} used by {@code wait}, if any.
         *
         * @return the tag
         */
        Optional<String> tag();

        /**
         * {@code !K}, {@code !A} or {@code !L}: the status the NIC refuses this request with
         * ({@link Status#REM_ACCESS_ERR} for a bad rkey, {@link Status#REM_INV_REQ_ERR} for a misaligned atomic,
         * {@link Status#LOC_PROT_ERR} for a bad local key), if any.
         *
         * @return the refusal
         */
        Optional<Status> refusal();
    }

    /**
     * {@code put(n,dst,src)}: RDMA WRITE of local words {@code src} to remote words {@code dst}.
     * A multi-word put ({@code put(N2,b[0..1],s[0..1])}) has lists longer than one.
     *
     * @param node   target node
     * @param dst    remote destination words, in address order
     * @param src    local source words, same length as {@code dst}
     * @param fence  {@code !F}
     * @param inline {@code !I}: the source is copied at post time
     * @param refusal {@code !K}/{@code !L}: the status the request is refused with
     * @param tag    wait tag
     */
    record Put(String node, List<String> dst, List<String> src, boolean fence, boolean inline,
               Optional<Status> refusal, Optional<String> tag) implements Verb {
        /**
         * Copies the lists.
         *
         * @param node   target node
         * @param dst    remote words
         * @param src    local words
         * @param fence  fence flag
         * @param inline inline flag
         * @param refusal refusal status
         * @param tag    wait tag
         */
        public Put {
            dst = List.copyOf(dst);
            src = List.copyOf(src);
        }
    }

    /**
     * {@code get(n,dst,src)}: RDMA READ of remote words {@code src} into local words {@code dst}.
     *
     * @param node  target node
     * @param dst   local destination words
     * @param src   remote source words, same length
     * @param fence {@code !F}
     * @param refusal {@code !K}/{@code !L}: the status the request is refused with
     * @param tag   wait tag
     */
    record Get(String node, List<String> dst, List<String> src, boolean fence,
               Optional<Status> refusal, Optional<String> tag) implements Verb {
        /**
         * Copies the lists.
         *
         * @param node  target node
         * @param dst   local words
         * @param src   remote words
         * @param fence fence flag
         * @param refusal refusal status
         * @param tag   wait tag
         */
        public Get {
            dst = List.copyOf(dst);
            src = List.copyOf(src);
        }
    }

    /**
     * {@code cas(n,dst,exp,new,res)}: remote compare-and-swap; the old value lands in local {@code res}.
     *
     * @param node     target node
     * @param dst      remote word
     * @param expected compare value
     * @param desired  swap value
     * @param result   local word receiving the old value
     * @param fence    {@code !F}
     * @param refusal  {@code !K}/{@code !A}/{@code !L}: the status the request is refused with
     * @param tag      wait tag
     */
    record Cas(String node, String dst, long expected, long desired, String result, boolean fence,
               Optional<Status> refusal, Optional<String> tag) implements Verb {
    }

    /**
     * {@code faa(n,dst,add,res)}: remote fetch-and-add; the old value lands in local {@code res}.
     *
     * @param node   target node
     * @param dst    remote word
     * @param addend value added
     * @param result local word receiving the old value
     * @param fence  {@code !F}
     * @param refusal {@code !K}/{@code !A}/{@code !L}: the status the request is refused with
     * @param tag    wait tag
     */
    record Faa(String node, String dst, long addend, String result, boolean fence,
               Optional<Status> refusal, Optional<String> tag) implements Verb {
    }
}
