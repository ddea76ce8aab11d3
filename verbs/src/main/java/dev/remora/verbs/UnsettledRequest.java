package dev.remora.verbs;

import java.util.Objects;

/**
 * A blocking helper's request whose wait ended before its completion arrived (a {@link VerbsTimeoutException}): it
 * may still be in flight, may already have taken effect, and may take effect later. The endpoint keeps its queue pair
 * and its own wait tag and scratch, so the completion, when it comes, is still collected: {@link #settle(long)} waits
 * for it and then says what happened, with the result word of a CAS, FETCH_ADD or one-word READ.
 *
 * <p>A protocol that must not orphan remote state (a lock that may have been acquired, a ticket that may have been
 * drawn) settles its request before it does anything else, instead of guessing.
 *
 * <p>Belongs to the endpoint that issued it and is used by the endpoint's thread, like the endpoint.
 */
public final class UnsettledRequest {
    /** What is known about the request. */
    public enum Outcome {
        /** No completion yet: it may be in flight, may have taken effect, may take effect later. */
        PENDING,
        /** Completed with SUCCESS: it took effect; {@link #value()} is its result word (CAS, FETCH_ADD, READ). */
        SUCCEEDED,
        /** Completed with an error that means it had no effect (a refusal: REM_ACCESS_ERR and the like). */
        REFUSED,
        /**
         * Completed with an error that leaves its effect unknown (RETRY_EXC_ERR, WR_FLUSH_ERR), or its queue pair was
         * destroyed before any completion came: it may have taken effect, and may still take effect later
         * (docs/memory-model.md §5). Learn the state from the remote memory, never from this outcome.
         */
        INDETERMINATE
    }

    private final Endpoint endpoint;
    private final Opcode opcode;
    private final RemoteAddress address;
    final QueuePair queuePair;
    final WaitTag tag;
    final MemoryRegion scratch;
    private Outcome outcome = Outcome.PENDING;
    private WcStatus status;
    private long value;

    UnsettledRequest(Endpoint endpoint, Opcode opcode, RemoteAddress address, QueuePair queuePair, WaitTag tag,
                     MemoryRegion scratch) {
        this.endpoint = endpoint;
        this.opcode = Objects.requireNonNull(opcode, "opcode");
        this.address = address;
        this.queuePair = queuePair;
        this.tag = tag;
        this.scratch = scratch;
    }

    /** @return the request's opcode */
    public Opcode opcode() {
        return opcode;
    }

    /** @return the remote address it targets */
    public RemoteAddress address() {
        return address;
    }

    /**
     * Waits for the request's completion.
     *
     * @param timeoutNs the most to wait, in nanoseconds of the fabric clock (0: only look)
     * @return whether the outcome is known now ({@link #outcome()} is not PENDING)
     */
    public boolean settle(long timeoutNs) {
        if (timeoutNs < 0) {
            throw new IllegalArgumentException("negative timeout " + timeoutNs);
        }
        if (outcome == Outcome.PENDING) {
            endpoint.settle(this, timeoutNs);
        }
        return outcome != Outcome.PENDING;
    }

    /** @return what is known now (without waiting) */
    public Outcome outcome() {
        return outcome;
    }

    /** @return whether the outcome is known */
    public boolean isSettled() {
        return outcome != Outcome.PENDING;
    }

    /** @return the completion's status, or null while pending or when no completion will come */
    public WcStatus status() {
        return status;
    }

    /**
     * @return the result word of a succeeded CAS or FETCH_ADD (the old value) or of a one-word READ
     * @throws IllegalStateException unless the request succeeded and has a result word
     */
    public long value() {
        if (outcome != Outcome.SUCCEEDED || opcode == Opcode.WRITE) {
            throw new IllegalStateException(this + " has no result word");
        }
        return value;
    }

    void settled(Outcome outcome, WcStatus status, long value) {
        this.outcome = outcome;
        this.status = status;
        this.value = value;
    }

    @Override
    public String toString() {
        return opcode + " to " + address + " (" + outcome + (status == null ? "" : ", " + status) + ")";
    }
}
