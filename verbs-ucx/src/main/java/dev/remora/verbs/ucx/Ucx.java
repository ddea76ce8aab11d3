package dev.remora.verbs.ucx;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.NoSuchElementException;

/**
 * The calls into libucp, libucs and libc that the provider makes through the Foreign Function &amp; Memory API, the C
 * structs they take (each quoted above its Java mirror, as declared by {@code <ucp/api/ucp.h>} of UCX 1.13; later
 * versions append fields only, and every struct carries a field mask naming the fields it sets), and the constants of
 * those headers. {@link #load()} binds every symbol, checks the library version and the mirrors' sizes, and says
 * exactly what is missing when it cannot.
 *
 * <p>Unsafe code: every method here dereferences native pointers. Only this package calls it, and only with handles
 * UCX gave it.
 */
@SuppressWarnings("restricted") // the FFM calls into libucp, libucs and libc: this package is the unsafe boundary
final class Ucx {
    /** The oldest libucp whose structs and semantics this file mirrors. */
    static final int MIN_MAJOR = 1;
    static final int MIN_MINOR = 13;

    // ---------------------------------------------------------------- ucs_status_t (ucs/type/status.h)
    static final int UCS_OK = 0;
    static final int UCS_INPROGRESS = 1;
    static final int UCS_ERR_IO_ERROR = -3;
    static final int UCS_ERR_UNREACHABLE = -6;
    static final int UCS_ERR_BUSY = -15;
    static final int UCS_ERR_CANCELED = -16;
    static final int UCS_ERR_TIMED_OUT = -20;
    static final int UCS_ERR_NOT_CONNECTED = -24;
    static final int UCS_ERR_CONNECTION_RESET = -25;
    static final int UCS_ERR_FIRST_LINK_FAILURE = -40;
    static final int UCS_ERR_LAST_ENDPOINT_FAILURE = -89;
    /** {@code UCS_ERR_LAST}: a {@code ucs_status_ptr_t} at or above this (unsigned) is an error code. */
    static final long UCS_ERR_LAST = -100;

    // ---------------------------------------------------------------- enum ucp_op_attr_t
    static final int UCP_OP_ATTR_FIELD_DATATYPE = 1 << 3;
    static final int UCP_OP_ATTR_FIELD_FLAGS = 1 << 4;
    static final int UCP_OP_ATTR_FIELD_REPLY_BUFFER = 1 << 5;

    /** {@code ucp_dt_make_contig(8)}: {@code (8 << UCP_DATATYPE_SHIFT) | UCP_DATATYPE_CONTIG}. */
    static final long UCP_DATATYPE_CONTIG_8 = 8L << 3;

    // ---------------------------------------------------------------- typedef enum ucp_atomic_op_t
    static final int UCP_ATOMIC_OP_ADD = 0;
    static final int UCP_ATOMIC_OP_CSWAP = 2;

    // ---------------------------------------------------------------- enum ucp_ep_params_field, ucp_err_handling_mode_t
    static final long UCP_EP_PARAM_FIELD_REMOTE_ADDRESS = 1L;
    static final long UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE = 1L << 1;
    static final int UCP_ERR_HANDLING_MODE_PEER = 1;
    /** {@code UCP_EP_CLOSE_FLAG_FORCE} of {@code enum ucp_ep_close_flags_t}. */
    static final int UCP_EP_CLOSE_FLAG_FORCE = 1;

    // ---------------------------------------------------------------- active messages
    static final long UCP_AM_HANDLER_PARAM_FIELD_ID = 1L;
    static final long UCP_AM_HANDLER_PARAM_FIELD_FLAGS = 1L << 1;
    static final long UCP_AM_HANDLER_PARAM_FIELD_CB = 1L << 2;
    static final long UCP_AM_HANDLER_PARAM_FIELD_ARG = 1L << 3;
    /** {@code UCP_AM_FLAG_WHOLE_MSG}: the handler is called once per message. */
    static final int UCP_AM_FLAG_WHOLE_MSG = 1;
    /** {@code UCP_AM_SEND_FLAG_REPLY}: the receiver gets an endpoint to answer on. */
    static final int UCP_AM_SEND_FLAG_REPLY = 1;
    /** {@code UCP_AM_SEND_FLAG_EAGER}: the data travels with the header (no rendezvous). */
    static final int UCP_AM_SEND_FLAG_EAGER = 1 << 1;
    static final long UCP_AM_RECV_ATTR_FIELD_REPLY_EP = 1L;
    /** {@code UCP_AM_RECV_ATTR_FLAG_RNDV}: the data is not here yet (a rendezvous); without it, it is. */
    static final long UCP_AM_RECV_ATTR_FLAG_RNDV = 1L << 17;

    // ---------------------------------------------------------------- libc
    static final int EPOLL_CTL_ADD = 1;
    static final int EPOLLIN = 1;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;
    static final int EPOLL_CLOEXEC = 02000000;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    private static final AddressLayout PTR = ValueLayout.ADDRESS;

    /**
     * <pre>
     * typedef struct {
     *     uint32_t          op_attr_mask;   //  0
     *     uint32_t          flags;          //  4
     *     void             *request;        //  8
     *     union { ucp_send_nbx_callback_t send; ... } cb;   // 16
     *     ucp_datatype_t    datatype;       // 24
     *     void             *user_data;      // 32
     *     void             *reply_buffer;   // 40
     *     ucs_memory_type_t memory_type;    // 48
     *     union { size_t *length; ucp_tag_recv_info_t *tag_info; } recv_info;   // 56
     * } ucp_request_param_t;                // 64 bytes in 1.13 (1.14 appends ucp_mem_h memh)
     * </pre>
     */
    static final StructLayout REQUEST_PARAM = MemoryLayout.structLayout(
        U32.withName("op_attr_mask"), U32.withName("flags"), PTR.withName("request"), PTR.withName("cb"),
        U64.withName("datatype"), PTR.withName("user_data"), PTR.withName("reply_buffer"),
        U32.withName("memory_type"), MemoryLayout.paddingLayout(4), PTR.withName("recv_info"));
    static final long PARAM_OP_ATTR_MASK = REQUEST_PARAM.byteOffset(MemoryLayout.PathElement.groupElement("op_attr_mask"));
    static final long PARAM_FLAGS = REQUEST_PARAM.byteOffset(MemoryLayout.PathElement.groupElement("flags"));
    static final long PARAM_DATATYPE = REQUEST_PARAM.byteOffset(MemoryLayout.PathElement.groupElement("datatype"));
    static final long PARAM_REPLY_BUFFER = REQUEST_PARAM.byteOffset(MemoryLayout.PathElement.groupElement("reply_buffer"));
    /** The size UCX 1.13 declares; the mirror is checked against it at load. */
    static final long REQUEST_PARAM_SIZE = 64;

    /**
     * <pre>
     * typedef struct ucp_ep_params {
     *     uint64_t                field_mask;     //  0
     *     const ucp_address_t    *address;        //  8
     *     ucp_err_handling_mode_t err_mode;       // 16
     *     ucp_err_handler_t       err_handler;    // 24 { ucp_err_handler_cb_t cb; void *arg; }
     *     void                   *user_data;      // 40
     *     unsigned                flags;          // 48
     *     ucs_sock_addr_t         sockaddr;       // 56 { const struct sockaddr *addr; socklen_t addrlen; }
     *     ucp_conn_request_h      conn_request;   // 72
     *     const char             *name;           // 80
     * } ucp_ep_params_t;                          // 88 bytes in 1.13 (later versions append fields)
     * </pre>
     */
    static final StructLayout EP_PARAMS = MemoryLayout.structLayout(
        U64.withName("field_mask"), PTR.withName("address"), U32.withName("err_mode"),
        MemoryLayout.paddingLayout(4), PTR.withName("err_cb"), PTR.withName("err_arg"), PTR.withName("user_data"),
        U32.withName("flags"), MemoryLayout.paddingLayout(4), PTR.withName("sockaddr_addr"),
        U32.withName("sockaddr_addrlen"), MemoryLayout.paddingLayout(4), PTR.withName("conn_request"),
        PTR.withName("name"));
    static final long EP_PARAMS_SIZE = 88;

    /**
     * <pre>
     * typedef struct ucp_am_handler_param {
     *     uint64_t               field_mask;   //  0
     *     unsigned               id;           //  8
     *     uint32_t               flags;        // 12
     *     ucp_am_recv_callback_t cb;           // 16
     *     void                  *arg;          // 24
     * } ucp_am_handler_param_t;                // 32 bytes
     * </pre>
     */
    static final StructLayout AM_HANDLER_PARAM = MemoryLayout.structLayout(
        U64.withName("field_mask"), U32.withName("id"), U32.withName("flags"), PTR.withName("cb"),
        PTR.withName("arg"));
    static final long AM_HANDLER_PARAM_SIZE = 32;

    /**
     * <pre>
     * typedef struct ucp_am_recv_param {
     *     uint64_t  recv_attr;   // 0
     *     ucp_ep_h  reply_ep;    // 8
     * } ucp_am_recv_param_t;     // 16 bytes
     * </pre>
     */
    static final StructLayout AM_RECV_PARAM = MemoryLayout.structLayout(U64.withName("recv_attr"),
        PTR.withName("reply_ep"));
    static final long AM_RECV_PARAM_SIZE = 16;

    /**
     * <pre>
     * struct epoll_event {          // packed on x86-64
     *     uint32_t     events;      // 0
     *     epoll_data_t data;        // 4 (a union of 8 bytes)
     * };                            // 12 bytes
     * </pre>
     */
    static final StructLayout EPOLL_EVENT = MemoryLayout.structLayout(U32.withName("events"),
        U64.withByteAlignment(4).withName("data"));
    static final long EPOLL_EVENT_SIZE = 12;

    /**
     * The AM receive callback, {@code ucs_status_t (*)(void *arg, const void *header, size_t header_length,
     * void *data, size_t length, const ucp_am_recv_param_t *param)}.
     */
    static final FunctionDescriptor AM_RECV_CALLBACK = FunctionDescriptor.of(U32, PTR, PTR, U64, PTR, U64, PTR);

    private static volatile Ucx loaded;
    private static volatile String failure;

    final String version;
    final MethodHandle putNbx;
    final MethodHandle getNbx;
    final MethodHandle atomicOpNbx;
    final MethodHandle amSendNbx;
    final MethodHandle setAmRecvHandler;
    final MethodHandle requestCheckStatus;
    final MethodHandle requestFree;
    final MethodHandle workerProgress;
    final MethodHandle workerFence;
    final MethodHandle epFlushNbx;
    final MethodHandle epCreate;
    final MethodHandle epCloseNbx;
    final MethodHandle epRkeyUnpack;
    final MethodHandle rkeyDestroy;
    final MethodHandle workerGetEfd;
    final MethodHandle workerArm;
    final MethodHandle statusString;
    final MethodHandle globalOptsSetValue;
    final MethodHandle epollCreate1;
    final MethodHandle epollCtl;
    final MethodHandle epollWait;
    final MethodHandle eventfd;
    final MethodHandle write;
    final MethodHandle read;
    final MethodHandle close;
    final MethodHandle setenv;
    final MethodHandle getenv;
    final MethodHandle epPrintInfo;
    final MethodHandle openMemstream;
    final MethodHandle fclose;
    final MethodHandle free;

    private Ucx(SymbolLookup ucp, SymbolLookup ucs, SymbolLookup libc) {
        Linker linker = Linker.nativeLinker();
        MethodHandle version = down(linker, ucp, "ucp_get_version", FunctionDescriptor.ofVoid(PTR, PTR, PTR));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(12, 4);
            version.invokeExact(v, v.asSlice(4), v.asSlice(8));
            int major = v.get(U32, 0);
            int minor = v.get(U32, 4);
            this.version = major + "." + minor + "." + v.get(U32, 8);
            if (major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR)) {
                throw new IllegalStateException("libucp " + this.version + " is older than " + MIN_MAJOR + "."
                    + MIN_MINOR + ", the oldest whose request parameters and atomics this provider mirrors");
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ucp_get_version failed: " + t, t);
        }
        checkSize("ucp_request_param_t", REQUEST_PARAM, REQUEST_PARAM_SIZE);
        checkSize("ucp_ep_params_t", EP_PARAMS, EP_PARAMS_SIZE);
        checkSize("ucp_am_handler_param_t", AM_HANDLER_PARAM, AM_HANDLER_PARAM_SIZE);
        checkSize("ucp_am_recv_param_t", AM_RECV_PARAM, AM_RECV_PARAM_SIZE);
        checkSize("struct epoll_event", EPOLL_EVENT, EPOLL_EVENT_SIZE);
        ValueLayout.OfLong j = U64;
        ValueLayout.OfInt i = U32;
        // ucs_status_ptr_t ucp_put_nbx(ucp_ep_h ep, const void *buffer, size_t count, uint64_t remote_addr,
        //                              ucp_rkey_h rkey, const ucp_request_param_t *param);
        putNbx = down(linker, ucp, "ucp_put_nbx", FunctionDescriptor.of(PTR, PTR, PTR, j, j, PTR, PTR));
        getNbx = down(linker, ucp, "ucp_get_nbx", FunctionDescriptor.of(PTR, PTR, PTR, j, j, PTR, PTR));
        // ucs_status_ptr_t ucp_atomic_op_nbx(ucp_ep_h ep, ucp_atomic_op_t opcode, const void *buffer, size_t count,
        //                                    uint64_t remote_addr, ucp_rkey_h rkey, const ucp_request_param_t *param);
        atomicOpNbx = down(linker, ucp, "ucp_atomic_op_nbx", FunctionDescriptor.of(PTR, PTR, i, PTR, j, j, PTR, PTR));
        // ucs_status_ptr_t ucp_am_send_nbx(ucp_ep_h ep, unsigned id, const void *header, size_t header_length,
        //                                  const void *buffer, size_t count, const ucp_request_param_t *param);
        amSendNbx = down(linker, ucp, "ucp_am_send_nbx", FunctionDescriptor.of(PTR, PTR, i, PTR, j, PTR, j, PTR));
        // ucs_status_t ucp_worker_set_am_recv_handler(ucp_worker_h worker, const ucp_am_handler_param_t *param);
        setAmRecvHandler = down(linker, ucp, "ucp_worker_set_am_recv_handler", FunctionDescriptor.of(i, PTR, PTR));
        requestCheckStatus = down(linker, ucp, "ucp_request_check_status", FunctionDescriptor.of(i, PTR));
        requestFree = down(linker, ucp, "ucp_request_free", FunctionDescriptor.ofVoid(PTR));
        // unsigned ucp_worker_progress(ucp_worker_h worker): may call the AM handler (an upcall)
        workerProgress = down(linker, ucp, "ucp_worker_progress", FunctionDescriptor.of(i, PTR));
        workerFence = down(linker, ucp, "ucp_worker_fence", FunctionDescriptor.of(i, PTR));
        epFlushNbx = down(linker, ucp, "ucp_ep_flush_nbx", FunctionDescriptor.of(PTR, PTR, PTR));
        // ucs_status_t ucp_ep_create(ucp_worker_h worker, const ucp_ep_params_t *params, ucp_ep_h *ep_p);
        epCreate = down(linker, ucp, "ucp_ep_create", FunctionDescriptor.of(i, PTR, PTR, PTR));
        epCloseNbx = down(linker, ucp, "ucp_ep_close_nbx", FunctionDescriptor.of(PTR, PTR, PTR));
        // ucs_status_t ucp_ep_rkey_unpack(ucp_ep_h ep, const void *rkey_buffer, ucp_rkey_h *rkey_p);
        epRkeyUnpack = down(linker, ucp, "ucp_ep_rkey_unpack", FunctionDescriptor.of(i, PTR, PTR, PTR));
        rkeyDestroy = down(linker, ucp, "ucp_rkey_destroy", FunctionDescriptor.ofVoid(PTR));
        workerGetEfd = down(linker, ucp, "ucp_worker_get_efd", FunctionDescriptor.of(i, PTR, PTR));
        workerArm = down(linker, ucp, "ucp_worker_arm", FunctionDescriptor.of(i, PTR));
        statusString = down(linker, ucs, "ucs_status_string", FunctionDescriptor.of(PTR, i));
        globalOptsSetValue = down(linker, ucs, "ucs_global_opts_set_value", FunctionDescriptor.of(i, PTR, PTR));
        epollCreate1 = down(linker, libc, "epoll_create1", FunctionDescriptor.of(i, i));
        epollCtl = down(linker, libc, "epoll_ctl", FunctionDescriptor.of(i, i, i, i, PTR));
        epollWait = down(linker, libc, "epoll_wait", FunctionDescriptor.of(i, i, PTR, i, i));
        eventfd = down(linker, libc, "eventfd", FunctionDescriptor.of(i, i, i));
        write = down(linker, libc, "write", FunctionDescriptor.of(j, i, PTR, j));
        read = down(linker, libc, "read", FunctionDescriptor.of(j, i, PTR, j));
        close = down(linker, libc, "close", FunctionDescriptor.of(i, i));
        setenv = down(linker, libc, "setenv", FunctionDescriptor.of(i, PTR, PTR, i));
        getenv = down(linker, libc, "getenv", FunctionDescriptor.of(PTR, PTR));
        // void ucp_ep_print_info(ucp_ep_h ep, FILE *stream): the endpoint's lanes, one per line
        epPrintInfo = down(linker, ucp, "ucp_ep_print_info", FunctionDescriptor.ofVoid(PTR, PTR));
        openMemstream = down(linker, libc, "open_memstream", FunctionDescriptor.of(PTR, PTR, PTR));
        fclose = down(linker, libc, "fclose", FunctionDescriptor.of(i, PTR));
        free = down(linker, libc, "free", FunctionDescriptor.ofVoid(PTR));
    }

    /**
     * What {@code ucp_ep_print_info} says of an endpoint (its configuration and lanes), captured through
     * {@code open_memstream}.
     *
     * @param ep the endpoint
     * @return the text
     */
    String endpointInfo(MemorySegment ep) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(ValueLayout.ADDRESS);
            MemorySegment size = a.allocate(ValueLayout.JAVA_LONG);
            MemorySegment stream = (MemorySegment) openMemstream.invokeExact(buf, size);
            if (stream.address() == 0) {
                return "";
            }
            epPrintInfo.invokeExact(ep, stream);
            int rc = (int) fclose.invokeExact(stream);
            MemorySegment text = buf.get(ValueLayout.ADDRESS, 0);
            long n = size.get(ValueLayout.JAVA_LONG, 0);
            String s = rc == 0 && text.address() != 0 ? text.reinterpret(n + 1).getString(0) : "";
            if (text.address() != 0) {
                free.invokeExact(text);
            }
            return s;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Counts the lanes of an endpoint that carry requests ({@code rma}, {@code rma_bw}, {@code amo}, {@code am},
     * {@code am_bw}), from {@link #endpointInfo}: lines like
     * {@code lane[0]:  1:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am am_bw#0 wireup}.
     *
     * @param info the text
     * @return how many lanes carry requests
     */
    static int requestLanes(String info) {
        int lanes = 0;
        for (String line : info.split("\\R")) {
            int at = line.indexOf("lane[");
            if (at < 0) {
                continue;
            }
            for (String word : line.substring(at).split("\\s+")) {
                String usage = word.replaceAll("#\\d+$", "");
                if (usage.equals("rma") || usage.equals("rma_bw") || usage.equals("amo") || usage.equals("am")
                    || usage.equals("am_bw")) {
                    lanes++;
                    break;
                }
            }
        }
        return lanes;
    }

    private static void checkSize(String name, StructLayout mirror, long expected) {
        if (mirror.byteSize() != expected) {
            throw new IllegalStateException("the Java mirror of " + name + " has " + mirror.byteSize()
                + " bytes, not the " + expected + " UCX declares");
        }
    }

    private static MethodHandle down(Linker linker, SymbolLookup lib, String symbol, FunctionDescriptor fd) {
        MemorySegment at = lib.find(symbol).orElseThrow(() -> new NoSuchElementException("symbol " + symbol
            + " not found"));
        return linker.downcallHandle(at, fd);
    }

    /**
     * Binds libucp once per JVM.
     *
     * @return the bindings
     * @throws IllegalStateException saying what is missing: the library, a symbol, a version
     */
    static Ucx load() {
        Ucx u = loaded;
        if (u != null) {
            return u;
        }
        synchronized (Ucx.class) {
            if (loaded != null) {
                return loaded;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            try {
                SymbolLookup ucp = library("libucp.so.0");
                SymbolLookup ucs = library("libucs.so.0");
                loaded = new Ucx(ucp, ucs, Linker.nativeLinker().defaultLookup());
                return loaded;
            } catch (RuntimeException | LinkageError e) {
                failure = e.getMessage() == null ? e.toString() : e.getMessage();
                throw new IllegalStateException(failure, e);
            }
        }
    }

    private static SymbolLookup library(String name) {
        try {
            return SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(name + " cannot be loaded (" + e.getMessage() + "): install UCX 1.13 "
                + "or later, e.g. apt-get install libucx0", e);
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Whether a {@code ucs_status_ptr_t} is an error code ({@code UCS_PTR_IS_ERR}).
     *
     * @param p the pointer
     * @return true for an error
     */
    static boolean isError(MemorySegment p) {
        return Long.compareUnsigned(p.address(), UCS_ERR_LAST) >= 0;
    }

    /**
     * {@code UCS_PTR_STATUS}: the status a non-request pointer carries.
     *
     * @param p NULL (UCS_OK) or an error code
     * @return the status
     */
    static int status(MemorySegment p) {
        return (int) p.address();
    }

    String describe(int status) {
        try {
            MemorySegment s = (MemorySegment) statusString.invokeExact(status);
            return s.reinterpret(200).getString(0) + " (" + status + ")";
        } catch (Throwable t) {
            return "status " + status;
        }
    }

    int checkStatus(MemorySegment request) {
        try {
            return (int) requestCheckStatus.invokeExact(request);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void free(MemorySegment request) {
        try {
            requestFree.invokeExact(request);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int progress(MemorySegment worker) {
        try {
            return (int) workerProgress.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int fence(MemorySegment worker) {
        try {
            return (int) workerFence.invokeExact(worker);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Reads an environment variable of the process (libc's {@code getenv}, which sees what {@link #setenv} set).
     *
     * @param name the name
     * @return the value, or null
     */
    String getenv(String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = (MemorySegment) getenv.invokeExact(a.allocateFrom(name));
            return v.address() == 0 ? null : v.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Sets an environment variable of the process unless it is set ({@code setenv(name, value, 0)}), for the UCX
     * settings that only its environment carries.
     *
     * @param name the name
     * @param value the value
     */
    void setenvUnlessSet(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) setenv.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 0);
            if (rc != 0) {
                throw new IllegalStateException("setenv " + name + " failed");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Sets a global UCX option ({@code ucs_global_opts_set_value}), e.g. the log level.
     *
     * @param name the option without the {@code UCX_} prefix
     * @param value its value
     * @return the status
     */
    int setGlobalOption(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            return (int) globalOptsSetValue.invokeExact(a.allocateFrom(name), a.allocateFrom(value));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
