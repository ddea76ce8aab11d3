package dev.remora.objects;

import dev.remora.verbs.Access;
import dev.remora.verbs.Endpoint;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.RemoteAddress;

import java.util.Objects;

/**
 * What both versioned registers share: the handle's local buffer, the one-READ snapshot with its tag check and
 * bounded retry, and the one-WRITE publication of a tagged value. Layout: {@link VersionedRegisterDescriptor}.
 */
final class VersionedAccess {
    /** Reads a versioned register makes before giving up with {@link RegisterContendedException}. */
    static final int MAX_READ_ATTEMPTS = 64;

    final Endpoint endpoint;
    final RemoteAddress base;
    final RemoteAddress data;
    final int maxLength;
    private final int bytes;
    private final long[] words;
    private final MemoryRegion buffer;

    VersionedAccess(Endpoint endpoint, RemoteAddress base, int maxLength) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.base = Objects.requireNonNull(base, "base");
        VersionedRegisterDescriptor.checkMaxLength(maxLength);
        if (!base.isWordAligned()) {
            throw new IllegalArgumentException("a versioned register must be 8-byte aligned: " + base);
        }
        this.maxLength = maxLength;
        this.data = base.plus(VersionedRegisterDescriptor.HEADER_OFFSET);
        this.words = new long[VersionedRegisterDescriptor.dataWords(maxLength)];
        this.bytes = 8 * words.length;
        this.buffer = endpoint.node().allocate(bytes, Access.LOCAL_WRITE);
    }

    /**
     * One READ of every data word into {@link #words} (not a snapshot: R18).
     *
     * @return the words as read
     */
    long[] readWords() {
        endpoint.read(data, buffer, 0, bytes);
        for (int w = 0; w < words.length; w++) {
            words[w] = buffer.getLong(8L * w);
        }
        return words;
    }

    /**
     * Reads until one READ returns words of one write, backing off between attempts.
     *
     * @param what the register, for the message
     * @return the value
     * @throws RegisterContendedException after {@link #MAX_READ_ATTEMPTS} torn snapshots
     */
    byte[] read(String what) {
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
            byte[] value = VersionedRegisterDescriptor.decode(readWords(), maxLength);
            if (value != null) {
                return value;
            }
            pause(attempt);
        }
        throw new RegisterContendedException(what + " at " + base + ": " + MAX_READ_ATTEMPTS
            + " reads in a row saw words of more than one write", MAX_READ_ATTEMPTS);
    }

    /**
     * One WRITE of {@code value}'s words, all tagged {@code tag}. It has only been acknowledged when this returns (R11):
     * the caller makes it visible.
     */
    void writeWords(byte[] value, int tag) {
        VersionedRegisterDescriptor.encode(value, tag, words);
        for (int w = 0; w < words.length; w++) {
            buffer.putLong(8L * w, words[w]);
        }
        // The WRITE reads its source before it completes (R3), and the blocking helper waits for the completion, so
        // the buffer is free again when it returns.
        endpoint.write(data, buffer, 0, bytes);
    }

    byte[] checkValue(byte[] value) {
        Objects.requireNonNull(value, "value");
        if (value.length > maxLength) {
            throw new IllegalArgumentException("value of " + value.length + " bytes, the register holds at most "
                + maxLength);
        }
        return value;
    }

    /** Frees the local buffer. Idempotent. */
    void close() {
        if (buffer.isRegistered()) {
            buffer.deregister();
        }
    }

    /** Bounded exponential back-off: spins and yields, never sleeps or reads a clock (the same on every fabric). */
    static void pause(int attempt) {
        int spins = 1 << Math.min(attempt, 10);
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
        Thread.yield();
    }
}
