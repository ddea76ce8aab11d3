package dev.remora.locks;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.Node;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * A 32-bit register guarded by fencing tokens: a write carries the writer's token (from {@link LeaseLock}) and lands
 * only if no write with a newer token has landed, so a holder whose lease was taken over cannot overwrite its
 * successor's data.
 *
 * <pre>
 *   63                              32 31                               0
 *  +----------------------------------+----------------------------------+
 *  |  token of the last write         |  value                           |  offset 0
 *  +----------------------------------+----------------------------------+
 *   changed only by remote CAS (R14: no CPU writes, no remote WRITEs)
 * </pre>
 *
 * <p>{@link #write} costs a READ and a CAS (2 round trips) uncontended, a CAS more per concurrent change; {@link #read}
 * one READ. Tokens must fit in 32 bits.
 */
public final class FencedRegister {
    /** Outcome of a fenced write. */
    public enum WriteResult {
        /** The value landed. */
        WRITTEN,
        /** A write with a newer token has landed: this writer is stale and must stop. */
        STALE_TOKEN
    }

    private final Endpoint endpoint;
    private final RemoteAddress word;

    private FencedRegister(Endpoint endpoint, RemoteAddress word) {
        this.endpoint = endpoint;
        this.word = word;
    }

    /**
     * Allocates a register holding 0 with token 0.
     *
     * @param home its node
     * @return its memory: {@link LockHome#address()} is the register's address
     */
    public static LockHome create(Node home) {
        return new LockHome(home.allocate(8, Access.ALL), 0);
    }

    /**
     * A handle for the thread owning {@code endpoint}.
     *
     * @param endpoint the thread's endpoint
     * @param word the register
     * @return the handle
     */
    public static FencedRegister attach(Endpoint endpoint, RemoteAddress word) {
        return new FencedRegister(Objects.requireNonNull(endpoint, "endpoint"), AbstractRemoteLock.aligned(word, "register"));
    }

    /**
     * Writes {@code value} with {@code token}, unless a newer token has written.
     *
     * @param token the writer's fencing token, 1..2^32-1
     * @param value the value
     * @return {@link WriteResult#WRITTEN} or {@link WriteResult#STALE_TOKEN}
     */
    public WriteResult write(long token, int value) {
        if (token <= 0 || token > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("a fencing token must be in 1..2^32-1: " + token);
        }
        long current = endpoint.readLong(word);
        while (true) {
            long storedToken = current >>> 32;
            if (storedToken > token) {
                return WriteResult.STALE_TOKEN;
            }
            long desired = token << 32 | (value & 0xFFFF_FFFFL);
            long witnessed = endpoint.cas(word, current, desired);
            if (witnessed == current) {
                return WriteResult.WRITTEN;
            }
            current = witnessed; // someone wrote in between: re-check its token
        }
    }

    /**
     * Raises the register's token to {@code token} without changing its value, so that from now on writes with older
     * tokens are refused. A new lease holder calls this on every register it will use before trusting them: without
     * it, a stale holder's write still lands until the new holder's first write.
     *
     * @param token the caller's fencing token
     * @return {@link WriteResult#WRITTEN} if the register now carries {@code token}, {@link WriteResult#STALE_TOKEN} if
     *     a newer token already has
     */
    public WriteResult fence(long token) {
        if (token <= 0 || token > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("a fencing token must be in 1..2^32-1: " + token);
        }
        long current = endpoint.readLong(word);
        while (true) {
            long storedToken = current >>> 32;
            if (storedToken > token) {
                return WriteResult.STALE_TOKEN;
            }
            if (storedToken == token) {
                return WriteResult.WRITTEN;
            }
            long witnessed = endpoint.cas(word, current, token << 32 | (current & 0xFFFF_FFFFL));
            if (witnessed == current) {
                return WriteResult.WRITTEN;
            }
            current = witnessed;
        }
    }

    /** @return the value */
    public int read() {
        return (int) endpoint.readLong(word);
    }

    /** @return the token of the last write */
    public long lastToken() {
        return endpoint.readLong(word) >>> 32;
    }
}
