package dev.remora.objects;

/**
 * Layout of a {@link RemoteRegister} and of a {@link CasRegister} in their home node's registered memory: the two
 * share it, and differ only in the verbs that change the word (WRITE for the one, CAS for the other, never both on
 * one word: R14).
 *
 * <pre>
 *   0                                                             63
 *  +---------------------------------------------------------------+
 *  |                  value: int64, native byte order              |  offset 0
 *  +---------------------------------------------------------------+
 *   one 8-byte word, 8-byte aligned (a word never tears: R18; CAS needs the alignment: R17)
 * </pre>
 *
 * A {@link RemoteRegister}'s region needs {@code REMOTE_WRITE} and {@code REMOTE_READ}; a {@link CasRegister}'s needs
 * {@code REMOTE_ATOMIC} and {@code REMOTE_READ}; both need {@code LOCAL_WRITE}.
 */
public final class RemoteRegisterDescriptor {
    /** Offset of the value word. */
    public static final int VALUE_OFFSET = 0;
    /** Bytes a register occupies. */
    public static final int LENGTH = 8;
    /** Required alignment of the value word. */
    public static final int ALIGNMENT = 8;

    private RemoteRegisterDescriptor() {
    }
}
