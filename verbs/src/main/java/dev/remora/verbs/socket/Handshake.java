package dev.remora.verbs.socket;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The cluster secret's challenge and response: on connect the server sends a fresh nonce, the client answers with
 * {@code HMAC-SHA256(secret, "remora-hello" | serverNonce | clientNonce | clientNodeId | serverNodeId)}, and the server
 * proves it knows the secret too with {@code HMAC-SHA256(secret, "remora-welcome" | clientNonce | serverNonce)}. The
 * secret never crosses the wire, and a recorded exchange cannot be replayed (the nonces are fresh).
 */
final class Handshake {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] secret;

    /** @param secret the cluster secret, or null for none (loopback only) */
    Handshake(byte[] secret) {
        this.secret = secret == null ? null : secret.clone();
    }

    boolean hasSecret() {
        return secret != null;
    }

    static byte[] nonce() {
        byte[] n = new byte[Wire.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    byte[] hello(byte[] serverNonce, byte[] clientNonce, int clientNodeId, int serverNodeId) {
        return mac("remora-hello", serverNonce, clientNonce, ByteBuffer.allocate(8).putInt(clientNodeId)
            .putInt(serverNodeId).array());
    }

    byte[] welcome(byte[] clientNonce, byte[] serverNonce) {
        return mac("remora-welcome", clientNonce, serverNonce, new byte[0]);
    }

    /** Compares in constant time. */
    static boolean same(byte[] a, byte[] b) {
        return a != null && b != null && MessageDigest.isEqual(a, b);
    }

    private byte[] mac(String label, byte[] a, byte[] b, byte[] c) {
        if (secret == null) {
            return new byte[0];
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            mac.update(a);
            mac.update(b);
            mac.update(c);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }
}
