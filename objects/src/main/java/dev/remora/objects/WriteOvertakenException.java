package dev.remora.objects;

/**
 * A {@link MultiWriterVersionedRegister#set} held the write permission for longer than the lease, another writer took
 * it over, and this writer's release found the control word changed. Its WRITE had been placed (the release CAS
 * executes after it: R7), so readers may have seen the value, and a later write may or may not have replaced it: the
 * outcome is unknown. Record the operation as {@code info}, never as failed.
 */
public class WriteOvertakenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what happened
     */
    public WriteOvertakenException(String message) {
        super(message);
    }
}
