package dev.remora.verbs.socket;

import dev.remora.verbs.WcStatus;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The socket fabric's wire format. Every frame is length-prefixed and versioned; integers are big-endian (the
 * network order); the bytes of READ, WRITE and SEND payloads are copied as they are, so memory keeps the host's byte
 * order.
 *
 * <pre>
 *  0        4        5        6
 * +--------+--------+--------+--------------------------------+
 * | length | version|  type  |  body (length - 2 bytes)       |
 * +--------+--------+--------+--------------------------------+
 *   length: bytes after the length field, 2 .. MAX_FRAME
 *
 * CHALLENGE  server to client, first:  incarnation:8 nodeId:4 secretRequired:1 nonce:16 nameLen:2 name
 * HELLO      client to server, second: nodeId:4 purpose:1 bindQpn:4 nonce:16 macLen:1 mac nameLen:2 name
 * WELCOME    server to client, third:  qpn:4 incarnation:8 macLen:1 mac
 * REJECT     either way, then close:   reasonLen:2 reason
 * REQUEST    seq:4 op:1, then by op:
 *              READ   rkey:4 addr:8 length:4
 *              WRITE  rkey:4 addr:8 total:4 offset:4 chunk:4 bytes     (one frame per chunk of at most CHUNK bytes)
 *              CAS    rkey:4 addr:8 compare:8 swap:8
 *              FAA    rkey:4 addr:8 add:8
 *              SEND   total:4 offset:4 chunk:4 bytes
 * RESPONSE   seq:4 status:1 value:8                     (one per request, in request order)
 * READ_DATA  seq:4 offset:4 chunk:4 bytes               (a READ's data, chunk by chunk, before its RESPONSE)
 * LOOKUP     id:4 nameLen:2 name
 * FOUND      id:4 found:1 nodeId:4 rkey:4 addr:8
 * </pre>
 *
 * A connection is one queue pair's: both ends' requests and responses share it, each direction in order. The
 * decoder checks every frame's length against its type exactly, so a frame is either understood whole or the
 * connection is closed with the reason.
 */
final class Wire {
    static final byte VERSION = 1;
    /** The most payload bytes in one WRITE, SEND or READ_DATA frame; longer transfers are split. */
    static final int CHUNK = 64 * 1024;
    /** The longest frame body, header included. */
    static final int MAX_FRAME = CHUNK + 64;
    /** Bytes of the length field. */
    static final int LENGTH_BYTES = 4;
    static final int NONCE_BYTES = 16;
    static final int MAC_BYTES = 32;
    static final int MAX_NAME_BYTES = 1024;

    static final byte CHALLENGE = 1;
    static final byte HELLO = 2;
    static final byte WELCOME = 3;
    static final byte REJECT = 4;
    static final byte REQUEST = 10;
    static final byte RESPONSE = 11;
    static final byte READ_DATA = 12;
    static final byte LOOKUP = 20;
    static final byte FOUND = 21;

    static final byte OP_READ = 1;
    static final byte OP_WRITE = 2;
    static final byte OP_CAS = 3;
    static final byte OP_FAA = 4;
    static final byte OP_SEND = 5;

    /** HELLO purposes. */
    static final byte PURPOSE_QP = 1;
    static final byte PURPOSE_CONTROL = 2;

    /** Fixed body sizes (after version and type). */
    static final int REQ_HEAD = 4 + 1;
    static final int READ_BODY = REQ_HEAD + 4 + 8 + 4;
    static final int WRITE_HEAD = REQ_HEAD + 4 + 8 + 4 + 4 + 4;
    static final int CAS_BODY = REQ_HEAD + 4 + 8 + 8 + 8;
    static final int FAA_BODY = REQ_HEAD + 4 + 8 + 8;
    static final int SEND_HEAD = REQ_HEAD + 4 + 4 + 4;
    static final int RESPONSE_BODY = 4 + 1 + 8;
    static final int READ_DATA_HEAD = 4 + 4 + 4;
    static final int FOUND_BODY = 4 + 1 + 4 + 4 + 8;

    private static final WcStatus[] STATUSES = WcStatus.values();

    private Wire() {
    }

    /** @return the wire code of a status (its position in {@link WcStatus}, which only ever grows at the end) */
    static byte code(WcStatus s) {
        return (byte) s.ordinal();
    }

    /**
     * @param code a wire code
     * @return the status
     * @throws MalformedFrameException for an unknown code
     */
    static WcStatus status(int code) throws MalformedFrameException {
        if (code < 0 || code >= STATUSES.length) {
            throw new MalformedFrameException("unknown completion status code " + code);
        }
        return STATUSES[code];
    }

    /**
     * Starts a frame: reserves the length field and writes version and type. Finish it with {@link #end}.
     *
     * @param out the buffer
     * @param type the frame type
     * @return the position of the length field
     */
    static int begin(ByteBuffer out, byte type) {
        int start = out.position();
        out.putInt(0).put(VERSION).put(type);
        return start;
    }

    /** Writes the frame's length field. */
    static void end(ByteBuffer out, int start) {
        out.putInt(start, out.position() - start - LENGTH_BYTES);
    }

    static void putName(ByteBuffer out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.putShort((short) b.length).put(b);
    }

    static String getName(ByteBuffer in, String what) throws MalformedFrameException {
        need(in, 2, what + " length");
        int n = in.getShort() & 0xFFFF;
        if (n > MAX_NAME_BYTES) {
            throw new MalformedFrameException(what + " of " + n + " bytes (at most " + MAX_NAME_BYTES + ")");
        }
        need(in, n, what);
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static void need(ByteBuffer in, int n, String what) throws MalformedFrameException {
        if (in.remaining() < n) {
            throw new MalformedFrameException("frame too short for its " + what + " (" + in.remaining() + " of " + n
                + " bytes left)");
        }
    }

    static void exact(ByteBuffer body, int expected, String what) throws MalformedFrameException {
        if (body.remaining() != expected) {
            throw new MalformedFrameException(what + " frame body of " + body.remaining() + " bytes, expected "
                + expected);
        }
    }

    static void done(ByteBuffer body, String what) throws MalformedFrameException {
        if (body.hasRemaining()) {
            throw new MalformedFrameException(what + " frame has " + body.remaining() + " bytes after its end");
        }
    }

    /** @return a printable name of a frame type, for messages */
    static String typeName(int type) {
        return switch (type) {
            case CHALLENGE -> "CHALLENGE";
            case HELLO -> "HELLO";
            case WELCOME -> "WELCOME";
            case REJECT -> "REJECT";
            case REQUEST -> "REQUEST";
            case RESPONSE -> "RESPONSE";
            case READ_DATA -> "READ_DATA";
            case LOOKUP -> "LOOKUP";
            case FOUND -> "FOUND";
            default -> "type " + type;
        };
    }
}
