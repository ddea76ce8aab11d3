--------------------------- MODULE RemoteRegister ---------------------------
(***************************************************************************)
(* dev.remora.objects.RemoteRegister on the weak RDMA model                *)
(* (BlockingVerbs): a 64-bit register word x on node Home, read and        *)
(* written by remote threads.                                              *)
(*                                                                         *)
(* Protocol, per thread, MaxOps operations, each a get or a set:           *)
(*   get    : READ x; return the value read.                               *)
(*   set(v) : inline WRITE x := v (acknowledged at once, placed later:     *)
(*            R3, R11); then, with Flush, a READ of x on the same QP,      *)
(*            which executes only after the WRITE is placed (R7); return.  *)
(* Every set writes a value no other set writes (1, 2, 3, ... in the order *)
(* the sets are invoked), so that a value read names the set it came from. *)
(*                                                                         *)
(* Checked: linearizability against an atomic register, two ways.          *)
(*  - Linearization points (abs is the atomic register, lin[t] says that   *)
(*    t's current operation has taken effect): a get takes effect at its  *)
(*    READ's execution and returns abs there (GetLinearizable); a set      *)
(*    takes effect when its WRITE is placed (abs := v), and it returns     *)
(*    only after that (SetLinearizable). Each point lies inside its        *)
(*    operation (lin is cleared at the invocation), so the order of the    *)
(*    points is a linearization. AbsIsMemory: the refinement mapping is    *)
(*    abs = mem["x"].                                                      *)
(*  - NoStaleRead, a direct witness that needs no chosen points: no get    *)
(*    returns the value of a set that returned before another set was     *)
(*    invoked whose return preceded the get's invocation (nor the initial  *)
(*    0 after a set returned). Any linearization would have to put the     *)
(*    second set between the first and the get.                            *)
(*                                                                         *)
(* How to break it: Flush = FALSE (MCRemoteRegisterNoFlush.cfg) is set     *)
(* without the READ: set returns when the WRITE is acknowledged, and TLC   *)
(* shows a get by another thread, invoked after that return, that reads    *)
(* the old value (NoStaleRead; the WRITE is still in flight, R11).         *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of x
    Flush,      \* TRUE: set = WRITE + READ (the code); FALSE: WRITE only (the unsafe twin)
    MaxOps      \* operations per thread

MaxVal == Cardinality(Threads) * MaxOps   \* at most this many sets in a behaviour

ASSUME /\ Locs = {"x"} /\ HomeOf["x"] = Home /\ InitMem["x"] = 0
       /\ \A t \in Threads : NodeOf[t] # Home
       /\ Flush \in BOOLEAN /\ MaxOps \in Nat

VARIABLES
    pc,         \* pc[t]: "idle", "get" (READ posted), "setw" (WRITE acknowledged), "setf" (flush READ posted)
    nops,       \* nops[t]: operations t has invoked
    cur,        \* cur[t]: the value of t's current set
    nextVal,    \* the value the next set writes
    abs,        \* ghost: the atomic register
    lin,        \* ghost: lin[t], t's current operation has taken effect
    linRes,     \* ghost: linRes[t], abs at the point where t's current get took effect
    returned,   \* ghost: the values whose set has returned
    before,     \* ghost: before[v], the values whose set had returned when set(v) was invoked
    seen        \* ghost: seen[t], the values whose set had returned when t's current get was invoked

protoVars == <<pc, nops, cur, nextVal, returned, before, seen>>
ghostVars == <<abs, lin, linRes>>
vars == <<nicVars, protoVars, ghostVars>>

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ cur = [t \in Threads |-> 0]
    /\ nextVal = 1
    /\ abs = 0
    /\ lin = [t \in Threads |-> FALSE]
    /\ linRes = [t \in Threads |-> 0]
    /\ returned = {}
    /\ before = [v \in 1..MaxVal |-> {}]
    /\ seen = [t \in Threads |-> {}]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Invoke(t) == /\ pc[t] = "idle" /\ nops[t] < MaxOps /\ CanPost(t)
             /\ nops' = [nops EXCEPT ![t] = @ + 1]
             /\ lin' = [lin EXCEPT ![t] = FALSE]

GetInvoke(t) ==
    /\ Invoke(t)
    /\ seen' = [seen EXCEPT ![t] = returned]
    /\ SetOp(t, GetOp("x")) /\ Go(t, "get")
    /\ UNCHANGED <<mem, sb, pend, cur, nextVal, returned, before, abs, linRes>>

(* The READ completed: get returns Result(t).                               *)
GetReturn(t) ==
    /\ pc[t] = "get" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, nops, cur, nextVal, returned, before, seen, ghostVars>>

(* writeLong returns when the WRITE is acknowledged (R11): it is in pend.   *)
SetInvoke(t) ==
    /\ Invoke(t)
    /\ cur' = [cur EXCEPT ![t] = nextVal]
    /\ nextVal' = nextVal + 1
    /\ before' = [before EXCEPT ![nextVal] = returned]
    /\ PostPut(t, "x", nextVal) /\ Go(t, "setw")
    /\ UNCHANGED <<mem, sb, op, returned, seen, abs, linRes>>

(* With Flush, READ x on the same QP: it executes after the WRITE is placed *)
(* (R7). Without, set returns now, its WRITE maybe still in flight (R11).   *)
SetAcked(t) ==
    /\ pc[t] = "setw"
    /\ IF Flush
       THEN SetOp(t, GetOp("x")) /\ Go(t, "setf") /\ UNCHANGED returned
       ELSE Go(t, "idle") /\ returned' = returned \cup {cur[t]} /\ UNCHANGED op
    /\ UNCHANGED <<mem, sb, pend, nops, cur, nextVal, before, seen, ghostVars>>

SetReturn(t) ==
    /\ pc[t] = "setf" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ returned' = returned \cup {cur[t]}
    /\ UNCHANGED <<mem, sb, pend, nops, cur, nextVal, before, seen, ghostVars>>

Thread(t) == GetInvoke(t) \/ GetReturn(t) \/ SetInvoke(t) \/ SetAcked(t) \/ SetReturn(t)

(* The linearization points are memory-system steps: a get's READ executes, *)
(* a set's WRITE is placed.                                                 *)
GetPoint(t) ==
    /\ GetExec(t)
    /\ IF pc[t] = "get"
       THEN /\ lin' = [lin EXCEPT ![t] = TRUE]
            /\ linRes' = [linRes EXCEPT ![t] = abs]
       ELSE UNCHANGED <<lin, linRes>>
    /\ UNCHANGED abs
SetPoint(t) ==
    \E n \in Nodes :
        /\ Place(t, n)
        /\ abs' = Head(pend[t][n]).val
        /\ lin' = IF pc[t] \in {"setw", "setf"} /\ Head(pend[t][n]).val = cur[t]
                  THEN [lin EXCEPT ![t] = TRUE] ELSE lin
        /\ UNCHANGED linRes
Memory ==
    \E t \in Threads :
        \/ GetPoint(t) \/ SetPoint(t)
        \/ ((AtomicRead(t) \/ AtomicWrite(t) \/ Drain(t)) /\ UNCHANGED ghostVars)

(* Every thread has made its operations: the model ends (stuttering).     *)
Finished == (\A t \in Threads : pc[t] = "idle" /\ nops[t] = MaxOps) /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars /\ NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
GetReturning(t) == pc[t] = "get" /\ Completed(t)
SetReturning(t) == IF Flush THEN pc[t] = "setf" /\ Completed(t) ELSE pc[t] = "setw"

GetLinearizable == \A t \in Threads : GetReturning(t) => lin[t] /\ Result(t) = linRes[t]
SetLinearizable == \A t \in Threads : SetReturning(t) => lin[t]
AbsIsMemory == abs = mem["x"]

(* set(w) returned before set(v) was invoked, and set(v) returned before    *)
(* t's get was invoked: the get must not return w (nor the initial 0).      *)
Stale(t, w) == \E v \in seen[t] : w = 0 \/ w \in before[v]
NoStaleRead == \A t \in Threads : GetReturning(t) => ~Stale(t, Result(t))

(* Every operation returns (all threads finish their operations).          *)
AllReturn == <>[](\A t \in Threads : pc[t] = "idle" /\ nops[t] = MaxOps)
=============================================================================
