package dev.remora.objects;

/**
 * A register operation gave up after its bound on attempts: a versioned register's read that found every snapshot
 * torn by concurrent writes, or a {@link CasRegister#getAndSet} whose every CAS lost. The operation had no effect;
 * retry it later.
 */
public class RegisterContendedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int attempts;

    /**
     * @param message what gave up
     * @param attempts how many attempts it made
     */
    public RegisterContendedException(String message, int attempts) {
        super(message);
        this.attempts = attempts;
    }

    /** @return how many attempts the operation made */
    public int attempts() {
        return attempts;
    }
}
