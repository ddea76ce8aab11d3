package dev.remora.objects;

/**
 * Layout of a {@link RemoteCounter} in its home node's registered memory.
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |                  value: int64, native byte order              |  offset 0
 *  +---------------------------------------------------------------+
 *   one 8-byte word, 8-byte aligned (remote atomics need it: R17)
 * </pre>
 *
 * The region needs {@code REMOTE_ATOMIC} (increments), {@code REMOTE_READ} ({@code get}) and {@code LOCAL_WRITE}.
 */
public final class RemoteCounterDescriptor {
    /** Offset of the value word. */
    public static final int VALUE_OFFSET = 0;
    /** Bytes a counter occupies. */
    public static final int LENGTH = 8;
    /** Required alignment of the value word. */
    public static final int ALIGNMENT = 8;

    private RemoteCounterDescriptor() {
    }
}
