package dev.remora.kv;

/**
 * {@link CuckooMap#get(byte[])} gave up: every snapshot of the key's two rows it read, up to
 * {@link CuckooMap#MAX_GET_ATTEMPTS}, was taken while a writer was inside one of them. Nothing changed; the call may
 * be repeated. {@link CuckooMap#lookup(byte[])} reports the same as {@link CuckooMap.Status#BUSY} instead.
 */
public final class CuckooMapBusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was read, and where
     */
    public CuckooMapBusyException(String message) {
        super(message);
    }
}
