package dev.remora.verbs.testing;

import dev.remora.verbs.Completion;
import dev.remora.verbs.CompletionQueue;
import dev.remora.verbs.Fabric;
import dev.remora.verbs.MemoryRegion;
import dev.remora.verbs.Node;
import dev.remora.verbs.QpState;
import dev.remora.verbs.QueuePair;
import dev.remora.verbs.RemoteAddress;
import dev.remora.verbs.VerbsStatistics;
import dev.remora.verbs.WorkRequest;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashMap;
import java.util.Map;

/**
 * The child process of {@link HostedSocketFabric}: it owns the nodes a test places in another OS process. It listens
 * for one remote-control connection on a loopback ephemeral port, prints {@code NODEHOST <port>}, and then executes
 * the commands of {@link HostWire} in order on one thread: open or close a fabric (of any provider), add nodes, allocate
 * regions and use their CPU accessors, create completion queues and queue pairs, post, poll, crash a node, publish,
 * and start a {@link ChildTask} on a thread of its own and wait for it.
 * Objects are named by handles (nodes by their ids); closing the fabric forgets them. It exits when the connection
 * ends, when no test process connects within a minute, or when the connection stays idle for ten minutes.
 */
public final class NodeHostMain {
    /** The longest a single await command blocks, so that other commands are not held up behind it. */
    static final long MAX_AWAIT_NS = 2_000_000L;
    /** How long the host waits for its test process to connect. */
    private static final int ACCEPT_TIMEOUT_MS = 60_000;
    /** A test process silent this long is gone or stuck: the host exits. */
    private static final int IDLE_TIMEOUT_MS = 600_000;

    private Fabric fabric;
    private final Map<Integer, Node> nodes = new HashMap<>();
    private final Map<Integer, Object> objects = new HashMap<>();
    private int nextHandle = 1;
    private Completion[] completions = new Completion[0];

    private NodeHostMain() {
    }

    /**
     * @param args none
     * @throws IOException if the control connection fails
     */
    public static void main(String[] args) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            System.out.println("NODEHOST " + server.getLocalPort());
            System.out.flush();
            server.setSoTimeout(ACCEPT_TIMEOUT_MS);
            try (Socket s = server.accept()) {
                s.setTcpNoDelay(true);
                s.setSoTimeout(IDLE_TIMEOUT_MS);
                new NodeHostMain().serve(new DataInputStream(new BufferedInputStream(s.getInputStream())),
                    new DataOutputStream(new BufferedOutputStream(s.getOutputStream())));
            }
        }
    }

    private void serve(DataInputStream in, DataOutputStream out) throws IOException {
        try {
            while (true) {
                int id;
                try {
                    id = in.readInt();
                } catch (EOFException e) {
                    return;
                }
                int command = in.readInt();
                byte[] answer;
                java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
                DataOutputStream results = new DataOutputStream(buffer);
                try {
                    // R2: the answer goes out after the command's effect on memory, so a CPU store the test makes on a
                    // child region is ordered before every request the test posts after the answer.
                    execute(command, in, results);
                    results.flush();
                    answer = buffer.toByteArray();
                    out.writeInt(id);
                    out.writeByte(HostWire.OK);
                    out.write(answer);
                } catch (RuntimeException | Error e) {
                    out.writeInt(id);
                    out.writeByte(HostWire.FAILED);
                    out.writeUTF(e.getClass().getName());
                    out.writeUTF(HostWire.clip(e.getMessage()));
                }
                out.flush();
            }
        } finally {
            if (fabric != null) {
                fabric.close();
            }
        }
    }

    private Node node(int id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException("the node host has no node with id " + id);
        }
        return n;
    }

    private <T> T object(int handle, Class<T> type) {
        Object o = objects.get(handle);
        if (!type.isInstance(o)) {
            throw new IllegalArgumentException("the node host has no " + type.getSimpleName() + " with handle "
                + handle);
        }
        return type.cast(o);
    }

    private int remember(Object o) {
        int h = nextHandle++;
        objects.put(h, o);
        return h;
    }

    private Fabric fabric() {
        if (fabric == null) {
            throw new IllegalStateException("the node host has no open fabric");
        }
        return fabric;
    }

    private void execute(int command, DataInputStream in, DataOutputStream out) throws IOException {
        switch (command) {
            case HostWire.OPEN_FABRIC -> {
                String provider = in.readUTF();
                int n = in.readInt();
                Map<String, String> props = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    props.put(in.readUTF(), in.readUTF());
                }
                closeFabric();
                fabric = Fabric.open(provider, props);
            }
            case HostWire.CLOSE_FABRIC -> closeFabric();
            case HostWire.ADD_NODE -> {
                Node n = fabric().addNode(in.readUTF());
                nodes.put(n.id(), n);
                out.writeInt(n.id());
                out.writeUTF(n.address());
            }
            case HostWire.ALLOCATE -> {
                Node n = node(in.readInt());
                long length = in.readLong();
                MemoryRegion r = n.allocate(length, in.readInt());
                out.writeInt(remember(r));
                out.writeLong(r.address());
                out.writeLong(r.length());
                out.writeInt(r.lkey());
                out.writeInt(r.rkey());
                out.writeInt(r.access());
            }
            case HostWire.R_GET_LONG -> out.writeLong(object(in.readInt(), MemoryRegion.class).getLong(in.readLong()));
            case HostWire.R_PUT_LONG -> object(in.readInt(), MemoryRegion.class).putLong(in.readLong(), in.readLong());
            case HostWire.R_GET_LONG_VOLATILE ->
                out.writeLong(object(in.readInt(), MemoryRegion.class).getLongVolatile(in.readLong()));
            case HostWire.R_PUT_LONG_VOLATILE ->
                object(in.readInt(), MemoryRegion.class).putLongVolatile(in.readLong(), in.readLong());
            case HostWire.R_CAS -> out.writeBoolean(object(in.readInt(), MemoryRegion.class)
                .compareAndSetLong(in.readLong(), in.readLong(), in.readLong()));
            case HostWire.R_GET_AND_ADD ->
                out.writeLong(object(in.readInt(), MemoryRegion.class).getAndAddLong(in.readLong(), in.readLong()));
            case HostWire.R_GET_INT -> out.writeInt(object(in.readInt(), MemoryRegion.class).getInt(in.readLong()));
            case HostWire.R_PUT_INT -> object(in.readInt(), MemoryRegion.class).putInt(in.readLong(), in.readInt());
            case HostWire.R_GET_BYTES -> {
                MemoryRegion r = object(in.readInt(), MemoryRegion.class);
                long offset = in.readLong();
                int length = in.readInt();
                byte[] bytes = new byte[Math.max(0, length)];
                r.getBytes(offset, bytes, 0, length);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
            case HostWire.R_PUT_BYTES -> {
                MemoryRegion r = object(in.readInt(), MemoryRegion.class);
                long offset = in.readLong();
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                r.putBytes(offset, bytes, 0, bytes.length);
            }
            case HostWire.R_SET_MEMORY ->
                object(in.readInt(), MemoryRegion.class).setMemory(in.readLong(), in.readLong(), in.readByte());
            case HostWire.R_DEREGISTER -> object(in.readInt(), MemoryRegion.class).deregister();
            case HostWire.R_IS_REGISTERED -> out.writeBoolean(object(in.readInt(), MemoryRegion.class).isRegistered());
            case HostWire.CREATE_CQ -> {
                Node n = node(in.readInt());
                out.writeInt(remember(n.createCompletionQueue(in.readInt())));
            }
            case HostWire.CQ_POLL, HostWire.CQ_AWAIT -> {
                CompletionQueue cq = object(in.readInt(), CompletionQueue.class);
                int max = in.readInt();
                long timeoutNs = command == HostWire.CQ_AWAIT ? Math.min(in.readLong(), MAX_AWAIT_NS) : 0;
                Completion[] got = completions(max);
                int k = command == HostWire.CQ_AWAIT ? cq.await(got, timeoutNs) : cq.poll(got, max);
                out.writeInt(k);
                for (int i = 0; i < k; i++) {
                    HostWire.writeCompletion(out, got[i]);
                }
            }
            case HostWire.CQ_CLOSE -> object(in.readInt(), CompletionQueue.class).close();
            case HostWire.CREATE_QP -> {
                Node n = node(in.readInt());
                CompletionQueue send = object(in.readInt(), CompletionQueue.class);
                int recv = in.readInt();
                QueuePair qp = n.createQueuePair(send, recv < 0 ? null : object(recv, CompletionQueue.class));
                out.writeInt(remember(qp));
                out.writeInt(qp.qpNumber());
            }
            case HostWire.QP_STATE -> out.writeInt(object(in.readInt(), QueuePair.class).state().ordinal());
            case HostWire.QP_REMOTE_NODE -> out.writeInt(object(in.readInt(), QueuePair.class).remoteNodeId());
            case HostWire.QP_POST_RECV -> {
                QueuePair qp = object(in.readInt(), QueuePair.class);
                out.writeInt(qp.postRecv(HostWire.readWorkRequest(in)));
            }
            case HostWire.QP_POST -> {
                QueuePair qp = object(in.readInt(), QueuePair.class);
                int single = in.readInt();
                int count = in.readInt();
                WorkRequest[] wrs = new WorkRequest[in.readInt()];
                for (int i = 0; i < wrs.length; i++) {
                    wrs[i] = HostWire.readWorkRequest(in);
                }
                out.writeInt(single == 1 ? qp.post(wrs[0]) : qp.post(wrs, count));
            }
            case HostWire.QP_STATISTICS -> HostWire.writeStatistics(out, object(in.readInt(), QueuePair.class)
                .statistics());
            case HostWire.QP_CLOSE -> object(in.readInt(), QueuePair.class).close();
            case HostWire.CONNECT_NODE -> {
                Node from = node(in.readInt());
                int targetId = in.readInt();
                String address = in.readUTF();
                CompletionQueue cq = object(in.readInt(), CompletionQueue.class);
                QueuePair qp = from.connect(peer(targetId, address), cq);
                out.writeInt(remember(qp));
                out.writeInt(qp.qpNumber());
            }
            case HostWire.CONNECT_QPS -> {
                Node from = node(in.readInt());
                QueuePair local = object(in.readInt(), QueuePair.class);
                int remoteHandle = in.readInt();
                int targetId = in.readInt();
                String address = in.readUTF();
                int qpn = in.readInt();
                QueuePair remote = remoteHandle >= 0 ? object(remoteHandle, QueuePair.class)
                    : new NamedQueuePair(peer(targetId, address), qpn);
                from.connect(local, remote);
            }
            case HostWire.NODE_FENCE -> node(in.readInt()).fullFence();
            case HostWire.NODE_IS_CRASHED -> out.writeBoolean(node(in.readInt()).isCrashed());
            case HostWire.CRASH -> HostedSocketFabric.crash(fabric(), node(in.readInt()));
            case HostWire.FABRIC_STATISTICS -> HostWire.writeStatistics(out, fabric == null ? VerbsStatistics.ZERO
                : fabric.statistics());
            case HostWire.PUBLISH -> {
                String name = in.readUTF();
                fabric().publish(name, new RemoteAddress(in.readInt(), in.readInt(), in.readLong()));
            }
            case HostWire.UNPUBLISH -> fabric().unpublish(in.readUTF());
            case HostWire.START_TASK -> {
                Node n = node(in.readInt());
                String className = in.readUTF();
                String[] args = new String[in.readInt()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = in.readUTF();
                }
                out.writeInt(remember(startTask(n, className, args)));
            }
            case HostWire.AWAIT_TASK -> {
                TaskThread t = object(in.readInt(), TaskThread.class);
                long timeoutNs = Math.min(in.readLong(), MAX_AWAIT_NS);
                try {
                    t.join(Math.max(1, timeoutNs / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the task", e);
                }
                if (t.isAlive()) {
                    out.writeBoolean(false);
                } else if (t.failure != null) {
                    throw new IllegalStateException("task " + t.getName() + " failed: " + t.failure);
                } else {
                    out.writeBoolean(true);
                    out.writeUTF(HostWire.clip(t.result));
                }
            }
            case HostWire.LOOKUP -> {
                RemoteAddress a = fabric().lookup(in.readUTF());
                out.writeInt(a.nodeId());
                out.writeInt(a.rkey());
                out.writeLong(a.address());
            }
            default -> throw new IllegalArgumentException("unknown node host command " + command);
        }
    }

    private static TaskThread startTask(Node node, String className, String[] args) {
        ChildTask task;
        try {
            task = Class.forName(className).asSubclass(ChildTask.class).getConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("cannot instantiate the task " + className + ": " + e, e);
        }
        TaskThread t = new TaskThread(task, node, args, className);
        t.start();
        return t;
    }

    /** A {@link ChildTask} running on its own daemon thread; its result or failure is read after it ended. */
    private static final class TaskThread extends Thread {
        private final ChildTask task;
        private final Node node;
        private final String[] args;
        private volatile String result;
        private volatile Throwable failure;

        TaskThread(ChildTask task, Node node, String[] args, String name) {
            super("task-" + name);
            this.task = task;
            this.node = node;
            this.args = args;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                result = task.run(node, args);
            } catch (Throwable e) {
                failure = e;
            }
        }
    }

    /** A node of the host's fabric, or the handle of the test process's node at an address (connected once). */
    private Node peer(int id, String address) {
        Node known = nodes.get(id);
        if (known != null) {
            return known;
        }
        for (Node n : fabric().nodes()) {
            if (n.id() == id && n.address().equals(address)) {
                return n;
            }
        }
        return fabric().connect(address);
    }

    private Completion[] completions(int max) {
        if (max < 0 || max > 4096) {
            throw new IllegalArgumentException("completions to poll outside 0..4096: " + max);
        }
        if (completions.length < max) {
            completions = new Completion[max];
            for (int i = 0; i < max; i++) {
                completions[i] = new Completion();
            }
        }
        return completions;
    }

    private void closeFabric() {
        if (fabric != null) {
            fabric.close();
            fabric = null;
        }
        nodes.clear();
        objects.clear();
    }

    /**
     * A queue pair of the test process named by its node and number, as rdma_cm exchanges them out of band: the
     * socket fabric's {@code connect(local, remote)} needs only its node, number and state.
     */
    private record NamedQueuePair(Node node, int qpNumber) implements QueuePair {
        @Override
        public int remoteNodeId() {
            return -1;
        }

        @Override
        public QpState state() {
            return QpState.RESET; // the test process checked it before asking
        }

        @Override
        public CompletionQueue sendCompletionQueue() {
            throw new UnsupportedOperationException("a queue pair of another process");
        }

        @Override
        public int post(WorkRequest wr) {
            throw new UnsupportedOperationException("a queue pair of another process");
        }

        @Override
        public int post(WorkRequest[] wrs, int count) {
            throw new UnsupportedOperationException("a queue pair of another process");
        }

        @Override
        public int postRecv(WorkRequest wr) {
            throw new UnsupportedOperationException("a queue pair of another process");
        }

        @Override
        public VerbsStatistics statistics() {
            throw new UnsupportedOperationException("a queue pair of another process");
        }

        @Override
        public void close() {
        }
    }
}
