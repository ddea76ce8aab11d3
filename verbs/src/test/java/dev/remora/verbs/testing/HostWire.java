package dev.remora.verbs.testing;

import dev.remora.verbs.Completion;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.Opcode;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WcStatus;
import dev.remora.verbs.WorkRequest;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The remote-control protocol between {@link HostedSocketFabric} (the test process) and {@link NodeHostMain} (the
 * child process that owns the nodes placed there): the command codes and the encodings of work requests,
 * completions and statistics. A request is its id, a command code and the command's arguments; the answer is the
 * same id, {@link #OK} and the results, or {@link #FAILED}, the class name and the message of the exception the
 * command threw in the child.
 */
final class HostWire {
    static final byte OK = 0;
    static final byte FAILED = 1;

    static final int OPEN_FABRIC = 1;
    static final int CLOSE_FABRIC = 2;
    static final int ADD_NODE = 3;
    static final int ALLOCATE = 4;
    static final int R_GET_LONG = 10;
    static final int R_PUT_LONG = 11;
    static final int R_GET_LONG_VOLATILE = 12;
    static final int R_PUT_LONG_VOLATILE = 13;
    static final int R_CAS = 14;
    static final int R_GET_AND_ADD = 15;
    static final int R_GET_INT = 16;
    static final int R_PUT_INT = 17;
    static final int R_GET_BYTES = 18;
    static final int R_PUT_BYTES = 19;
    static final int R_SET_MEMORY = 20;
    static final int R_DEREGISTER = 21;
    static final int R_IS_REGISTERED = 22;
    static final int CREATE_CQ = 30;
    static final int CQ_POLL = 31;
    static final int CQ_AWAIT = 32;
    static final int CQ_CLOSE = 33;
    static final int CREATE_QP = 40;
    static final int QP_STATE = 41;
    static final int QP_REMOTE_NODE = 42;
    static final int QP_POST_RECV = 43;
    static final int QP_POST = 44;
    static final int QP_STATISTICS = 45;
    static final int QP_CLOSE = 46;
    static final int CONNECT_NODE = 50;
    static final int CONNECT_QPS = 51;
    static final int NODE_FENCE = 60;
    static final int NODE_IS_CRASHED = 61;
    static final int CRASH = 62;
    static final int FABRIC_STATISTICS = 70;
    static final int PUBLISH = 71;
    static final int UNPUBLISH = 72;
    static final int LOOKUP = 73;
    static final int START_TASK = 80;
    static final int AWAIT_TASK = 81;

    /** The longest exception message shipped back (writeUTF takes at most 65535 bytes). */
    static final int MAX_MESSAGE_CHARS = 16_000;

    private HostWire() {
    }

    static void writeWorkRequest(DataOutputStream out, WorkRequest wr) throws IOException {
        if (wr == null) {
            out.writeBoolean(false);
            return;
        }
        out.writeBoolean(true);
        Opcode op = wr.opcode();
        out.writeInt(op == null ? -1 : op.ordinal());
        out.writeLong(wr.wrId());
        out.writeInt(wr.flags());
        out.writeLong(wr.localAddress());
        out.writeInt(wr.length());
        out.writeInt(wr.lkey());
        out.writeLong(wr.remoteAddress());
        out.writeInt(wr.rkey());
        out.writeLong(wr.compareAdd());
        out.writeLong(wr.swap());
    }

    /**
     * Rebuilds a work request field for field: the builder for its opcode (with a stand-in region, since only the
     * raw scatter/gather entry crossed the wire), then the raw local entry and remote address.
     */
    static WorkRequest readWorkRequest(DataInputStream in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        int op = in.readInt();
        long wrId = in.readLong();
        int flags = in.readInt();
        long localAddress = in.readLong();
        int length = in.readInt();
        int lkey = in.readInt();
        long remoteAddress = in.readLong();
        int rkey = in.readInt();
        long compareAdd = in.readLong();
        long swap = in.readLong();
        WorkRequest wr = new WorkRequest();
        if (op >= 0) {
            RemoteAddress remote = new RemoteAddress(0, rkey, remoteAddress);
            switch (Opcode.values()[op]) {
                case READ -> wr.read(StandIn.REGION, 0, length, remote);
                case WRITE -> wr.write(StandIn.REGION, 0, length, remote);
                case CAS -> wr.cas(StandIn.REGION, 0, remote, compareAdd, swap);
                case FETCH_ADD -> wr.faa(StandIn.REGION, 0, remote, compareAdd);
                case SEND -> wr.send(StandIn.REGION, 0, length);
                case RECV -> wr.recv(StandIn.REGION, 0, length);
                default -> throw new IllegalArgumentException("unknown opcode " + Opcode.values()[op]);
            }
            wr.localSge(localAddress, length, lkey).remote(remoteAddress, rkey);
        }
        return wr.wrId(wrId).flags(flags);
    }

    static void writeCompletion(DataOutputStream out, Completion c) throws IOException {
        out.writeLong(c.wrId());
        out.writeInt(c.status().ordinal());
        out.writeInt(c.opcode() == null ? -1 : c.opcode().ordinal());
        out.writeInt(c.byteLength());
        out.writeInt(c.qpNumber());
        out.writeInt(c.vendorError());
    }

    static void readCompletion(DataInputStream in, Completion into) throws IOException {
        long wrId = in.readLong();
        WcStatus status = WcStatus.values()[in.readInt()];
        int op = in.readInt();
        into.set(wrId, status, op < 0 ? null : Opcode.values()[op], in.readInt(), in.readInt(), in.readInt());
    }

    static void writeStatistics(DataOutputStream out, VerbsStatistics s) throws IOException {
        out.writeLong(s.reads());
        out.writeLong(s.writes());
        out.writeLong(s.compareAndSwaps());
        out.writeLong(s.fetchAndAdds());
        out.writeLong(s.sends());
        out.writeLong(s.receives());
        out.writeLong(s.bytes());
        out.writeLong(s.doorbells());
        out.writeLong(s.roundTrips());
        out.writeLong(s.errors());
    }

    static VerbsStatistics readStatistics(DataInputStream in) throws IOException {
        return new VerbsStatistics(in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(),
            in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong());
    }

    static String clip(String message) {
        if (message == null) {
            return "";
        }
        return message.length() <= MAX_MESSAGE_CHARS ? message : message.substring(0, MAX_MESSAGE_CHARS) + "...";
    }

    /**
     * The region the work request builders are given when a request is rebuilt from the wire: address 0 and key 0,
     * immediately replaced by the shipped scatter/gather entry. Nothing else is ever called on it.
     */
    private static final class StandIn implements MemoryRegion {
        static final StandIn REGION = new StandIn();

        @Override
        public Node node() {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public long address() {
            return 0;
        }

        @Override
        public long length() {
            return 0;
        }

        @Override
        public int lkey() {
            return 0;
        }

        @Override
        public int rkey() {
            return 0;
        }

        @Override
        public int access() {
            return 0;
        }

        @Override
        public boolean isRegistered() {
            return false;
        }

        @Override
        public void deregister() {
        }

        @Override
        public long getLong(long offset) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void putLong(long offset, long value) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public long getLongVolatile(long offset) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void putLongVolatile(long offset, long value) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public boolean compareAndSetLong(long offset, long expected, long desired) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public long getAndAddLong(long offset, long delta) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public int getInt(long offset) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void putInt(long offset, int value) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void getBytes(long offset, byte[] dst, int dstIndex, int length) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void putBytes(long offset, byte[] src, int srcIndex, int length) {
            throw new UnsupportedOperationException("stand-in region");
        }

        @Override
        public void setMemory(long offset, long length, byte value) {
            throw new UnsupportedOperationException("stand-in region");
        }
    }
}
