package dev.remora.verbs.socket;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;

/**
 * The socket fabric's service thread: one {@link Selector} over every listener and connection of the process's
 * nodes. It accepts peers, runs handshakes, executes peers' one-sided requests on local memory (the nodes'
 * application threads take no part: the provider owns progress), delivers completions of this process's requests,
 * and fires retry timeouts. One thread serves any number of connections.
 */
final class ServiceLoop implements Runnable {
    private final SocketFabric fabric;
    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final long tickNs;
    private volatile boolean running = true;

    ServiceLoop(SocketFabric fabric) {
        this.fabric = fabric;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
        SocketContext c = fabric.context();
        long shortest = Math.min(Math.min(c.retryTimeoutNs(), c.rnrTimeoutNs()), c.connectTimeoutNs());
        this.tickNs = Math.max(1_000_000L, Math.min(50_000_000L, shortest / 8));
        this.thread = new Thread(this, "remora-socket-service");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    Selector selector() {
        return selector;
    }

    /** Runs a task on the service thread, soon. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** Registers a listener (on the service thread). */
    void listen(ServerSocketChannel server, SocketNode node) {
        execute(() -> {
            if (!server.isOpen()) {
                return; // the node crashed or the fabric closed before its listener was registered
            }
            try {
                server.register(selector, SelectionKey.OP_ACCEPT, node);
            } catch (IOException e) {
                Connection.LOG.log(Level.WARNING, "cannot listen for node " + node.name(), e);
            }
        });
    }

    /** Registers a connection (on the service thread). */
    void register(Connection c, int ops) {
        execute(() -> {
            synchronized (c) {
                if (c.state() == Connection.State.CLOSED) {
                    return;
                }
                try {
                    c.key = c.channel.register(selector, ops, c);
                } catch (IOException e) {
                    c.close("cannot register the connection: " + e.getMessage());
                    return;
                }
                if (c.state() != Connection.State.CONNECTING) {
                    c.flushOutput();
                }
            }
        });
    }

    @Override
    public void run() {
        long nextTick = System.nanoTime() + tickNs;
        while (running) {
            try {
                long wait = Math.max(1, (nextTick - System.nanoTime()) / 1_000_000);
                selector.select(wait);
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    try {
                        handle(k);
                    } catch (RuntimeException e) {
                        // A fabric bug on one connection: that connection goes, the others are still served.
                        Connection.LOG.log(Level.SEVERE, "socket fabric: closing a connection after an internal error", e);
                        if (k.attachment() instanceof Connection c) {
                            c.close("internal error: " + e);
                        }
                    }
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    fabric.tick(now);
                    nextTick = now + tickNs;
                }
            } catch (IOException | RuntimeException e) {
                // A fabric bug or an I/O failure of the selector itself: logged, and the loop goes on serving.
                if (running) {
                    Connection.LOG.log(Level.SEVERE, "socket fabric service loop", e);
                }
            }
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private void handle(SelectionKey k) {
        try {
            if (!k.isValid()) {
                return;
            }
            if (k.attachment() instanceof SocketNode node) {
                if (k.isAcceptable()) {
                    accept((ServerSocketChannel) k.channel(), node);
                }
                return;
            }
            Connection c = (Connection) k.attachment();
            if (k.isConnectable()) {
                c.onConnectable();
                return;
            }
            if (k.isValid() && k.isReadable()) {
                c.onReadable();
            }
            if (k.isValid() && k.isWritable()) {
                c.onWritable();
            }
        } catch (CancelledKeyException e) {
            // closed meanwhile
        }
    }

    private void accept(ServerSocketChannel server, SocketNode node) {
        SocketChannel ch;
        try {
            ch = server.accept();
        } catch (IOException e) {
            Connection.LOG.log(Level.WARNING, "node " + node.name() + " failed to accept a connection", e);
            return;
        }
        if (ch == null) {
            return;
        }
        try {
            ch.configureBlocking(false);
            ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // dropped
            }
            return;
        }
        if (node.isCrashed()) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // dropped
            }
            return;
        }
        Connection c = Connection.accepted(fabric, ch, node);
        fabric.remember(c);
        synchronized (c) {
            try {
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
            } catch (IOException e) {
                c.close("cannot register: " + e.getMessage());
                return;
            }
            c.flushOutput();
        }
    }

    void stop() {
        running = false;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
