package dev.remora.verbs.socket;

/** A peer sent bytes that are not a valid frame of the protocol in its current state; the connection is closed. */
final class MalformedFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(String reason) {
        super(reason, null, false, false);
    }
}
