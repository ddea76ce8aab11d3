package dev.remora.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A small client of the Chrome DevTools protocol for browser tests: starts headless Chromium
 * with a fresh profile, attaches to its page over a WebSocket and sends commands, each answer
 * awaited with a timeout. Uncaught exceptions and console errors of the page are collected.
 * {@link #close()} kills the browser and deletes the profile.
 */
final class Cdp implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final Duration timeout;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<JsonNode> events = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();

    private Cdp(Process process, Path profile, WebSocket socket, Duration timeout, Listener listener) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
        this.timeout = timeout;
        listener.owner = this;
    }

    /**
     * Starts Chromium and attaches to its page.
     *
     * @param chromium the executable
     * @param width    the window's width in pixels
     * @param height   the window's height
     * @param timeout  the bound of every wait
     * @return the client
     * @throws IOException when the browser cannot be started or reached in time
     */
    static Cdp start(Path chromium, int width, int height, Duration timeout) throws IOException {
        Path profile = Files.createTempDirectory("remora-chromium");
        Process p = null;
        try {
            p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--hide-scrollbars", "--window-size=" + width + "," + height, "--user-data-dir=" + profile,
                    "--remote-debugging-port=0", "about:blank")
                    .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
            Path portFile = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + timeout.toNanos();
            String port = null;
            while (port == null) {
                if (Files.isRegularFile(portFile)) {
                    List<String> lines = Files.readAllLines(portFile);
                    if (!lines.isEmpty() && !lines.get(0).isBlank()) {
                        port = lines.get(0).trim();
                        break;
                    }
                }
                if (!p.isAlive()) {
                    throw new IOException("chromium exited with " + p.exitValue() + ": " + log(profile));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("chromium wrote no DevToolsActivePort within " + timeout + ": " + log(profile));
                }
                Thread.sleep(25);
            }
            HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
            String wsUrl = null;
            while (wsUrl == null) {
                HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json"))
                        .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
                for (JsonNode t : JSON.readTree(list.body())) {
                    if ("page".equals(t.path("type").asText())) {
                        wsUrl = t.path("webSocketDebuggerUrl").asText();
                        break;
                    }
                }
                if (wsUrl == null) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("chromium shows no page target within " + timeout);
                    }
                    Thread.sleep(25);
                }
            }
            Listener listener = new Listener();
            WebSocket ws = http.newWebSocketBuilder().connectTimeout(timeout).buildAsync(URI.create(wsUrl), listener)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Cdp cdp = new Cdp(p, profile, ws, timeout, listener);
            cdp.send("Runtime.enable", null);
            cdp.send("Page.enable", null);
            cdp.send("Log.enable", null);
            return cdp;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(p, profile);
            throw new IOException("interrupted while starting chromium", e);
        } catch (Exception e) {
            kill(p, profile);
            throw e instanceof IOException io ? io : new IOException("cannot attach to chromium: " + e, e);
        }
    }

    private static String log(Path profile) {
        try {
            String s = Files.readString(profile.resolve("chromium.log"));
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /**
     * Sends a command and waits for its answer.
     *
     * @param method the method, such as {@code Page.navigate}
     * @param params its parameters, or {@code null}
     * @return the {@code result} object
     * @throws IOException on an error answer or when no answer comes in time
     */
    JsonNode send(String method, ObjectNode params) throws IOException {
        int id = ids.incrementAndGet();
        ObjectNode msg = JSON.createObjectNode();
        msg.put("id", id);
        msg.put("method", method);
        if (params != null) {
            msg.set("params", params);
        }
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        try {
            socket.sendText(JSON.writeValueAsString(msg), true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            JsonNode r = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (r.has("error")) {
                throw new IOException(method + " failed: " + r.get("error"));
            }
            return r.path("result");
        } catch (TimeoutException e) {
            throw new IOException(method + ": no answer within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(method + ": interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(method + ": " + e.getCause(), e.getCause());
        } finally {
            pending.remove(id);
        }
    }

    /** @return a fresh parameter object */
    static ObjectNode params() {
        return JSON.createObjectNode();
    }

    /**
     * Navigates and waits for the load event.
     *
     * @param url the address
     * @throws IOException when the page does not load in time
     */
    void navigate(String url) throws IOException {
        int seen;
        synchronized (events) {
            seen = events.size();
        }
        send("Page.navigate", params().put("url", url));
        awaitEvent("Page.loadEventFired", seen);
    }

    private void awaitEvent(String method, int after) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (events) {
            while (true) {
                for (int i = after; i < events.size(); i++) {
                    if (method.equals(events.get(i).path("method").asText())) {
                        return;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("no " + method + " within " + timeout);
                }
                try {
                    events.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted waiting for " + method, e);
                }
            }
        }
    }

    /**
     * Evaluates an expression in the page.
     *
     * @param expression JavaScript
     * @return its value, as JSON
     * @throws IOException when it throws or does not finish in time
     */
    JsonNode eval(String expression) throws IOException {
        JsonNode r = send("Runtime.evaluate", params().put("expression", expression).put("returnByValue", true)
                .put("awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new IOException("evaluating " + expression + ": " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    /**
     * Dispatches a mouse event.
     *
     * @param type    mousePressed, mouseReleased, mouseMoved or mouseWheel
     * @param x       client x
     * @param y       client y
     * @param extra   more parameters (button, buttons, deltaY, modifiers…), or {@code null}
     * @throws IOException when it is not acknowledged in time
     */
    void mouse(String type, double x, double y, ObjectNode extra) throws IOException {
        ObjectNode p = params().put("type", type).put("x", x).put("y", y);
        if (extra != null) {
            p.setAll(extra);
        }
        send("Input.dispatchMouseEvent", p);
    }

    /**
     * @return a PNG of the viewport
     * @throws IOException when it is not taken in time
     */
    byte[] screenshot() throws IOException {
        return java.util.Base64.getDecoder().decode(send("Page.captureScreenshot", params().put("format", "png"))
                .path("data").asText());
    }

    /** @return uncaught exceptions and console errors of the page so far */
    List<String> errors() {
        synchronized (events) {
            return new ArrayList<>(errors);
        }
    }

    private void onMessage(String text) {
        JsonNode m;
        try {
            m = JSON.readTree(text);
        } catch (IOException e) {
            return;
        }
        if (m.has("id")) {
            CompletableFuture<JsonNode> f = pending.get(m.get("id").asInt());
            if (f != null) {
                f.complete(m);
            }
            return;
        }
        String method = m.path("method").asText();
        synchronized (events) {
            events.add(m);
            if (method.equals("Runtime.exceptionThrown")) {
                JsonNode d = m.path("params").path("exceptionDetails");
                errors.add("exception: " + d.path("exception").path("description").asText(d.path("text").asText()));
            } else if (method.equals("Runtime.consoleAPICalled")
                    && m.path("params").path("type").asText().equals("error")) {
                errors.add("console.error: " + m.path("params").path("args"));
            } else if (method.equals("Log.entryAdded")
                    && m.path("params").path("entry").path("level").asText().equals("error")) {
                errors.add("log: " + m.path("params").path("entry").path("text").asText());
            }
            events.notifyAll();
        }
    }

    @Override
    public void close() {
        try {
            socket.abort();
        } finally {
            kill(process, profile);
        }
    }

    private static void kill(Process p, Path profile) {
        if (p != null) {
            List<ProcessHandle> children = p.descendants().toList();
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            for (ProcessHandle c : children) {
                c.destroyForcibly();
                try {
                    c.onExit().get(5, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // gone already, or not ours to wait for
                }
            }
        }
        deleteTree(profile);
    }

    private static void deleteTree(Path dir) {
        for (int attempt = 0; attempt < 3 && Files.exists(dir); attempt++) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException ignored) {
                        // a file still being written by an exiting child; the next attempt gets it
                    }
                });
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // retried
            }
        }
    }

    /** Collects text frames (which may come in parts) and hands each message to the client. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder buf = new StringBuilder();
        private volatile Cdp owner;
        private final List<String> early = new ArrayList<>();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            buf.append(data);
            if (last) {
                String msg = buf.toString();
                buf.setLength(0);
                Cdp o = owner;
                if (o == null) {
                    synchronized (early) {
                        early.add(msg);
                    }
                } else {
                    synchronized (early) {
                        early.forEach(o::onMessage);
                        early.clear();
                    }
                    o.onMessage(msg);
                }
            }
            ws.request(1);
            return null;
        }
    }
}
