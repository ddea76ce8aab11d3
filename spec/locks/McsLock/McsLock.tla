------------------------------ MODULE McsLock ------------------------------
(***************************************************************************)
(* dev.remora.locks.McsLock.lock()/unlock() on the weak RDMA model         *)
(* (BlockingVerbs).                                                         *)
(*                                                                         *)
(* Words: tail on Home (0 = free, else the id of the last queued thread);  *)
(* per thread t a queue node on t's own node: locked_t, next_t. The slot   *)
(* table (where each id's queue node lives) is written once at attach,     *)
(* before any CAS on the same QP (R7), and never changes: it is a constant *)
(* here (QLocked, QNext).                                                  *)
(*                                                                         *)
(* Protocol, per thread, in a loop:                                        *)
(*   lock   : CPU stores locked_t := 1, next_t := 0; the CAS may be posted *)
(*            only once they are drained (R2); swap built from CAS:        *)
(*            CAS(tail, e -> me) with e := 0, then e := the value seen,    *)
(*            until it succeeds; prev = e. prev = 0: acquired. Otherwise   *)
(*            WRITE next_prev := me and spin with CPU loads on locked_t.   *)
(*   CS     : READ d, WRITE d := 1 - (value read), d on DataNode           *)
(*   unlock : s := CPU load next_t. s = 0: [ordered: flush READ of d],     *)
(*            CAS(tail, me -> 0); if it fails, spin until next_t # 0.      *)
(*            Then [ordered, if not yet flushed: flush READ of d], WRITE   *)
(*            locked_s := 0.                                               *)
(*                                                                         *)
(* Checked (MCMcsLock.cfg): TypeOK, NoTornAtomicWord, MutualExclusion,     *)
(* Publication (LK1 forbidden), no TLC deadlock, DeadlockFreedom, and      *)
(* StarvationFreedom of an enqueued thread (the FIFO queue). The doorway   *)
(* (the CAS loop that emulates SWAP) is only lock-free: see                *)
(* MCMcsLockDoorway.cfg, where TLC shows a thread whose CAS fails forever. *)
(*                                                                         *)
(* How to break it: MCMcsLockUnsafe.cfg hands over with unlockWeak and     *)
(* asserts Publication: the successor READs d before the CS WRITE lands.  *)
(***************************************************************************)
EXTENDS BlockingVerbs

CONSTANTS
    Id,         \* Id[t]: thread t's queue index + 1 (positive, unique)
    QLocked,    \* QLocked[t]: the word locked_t of t's queue node (on t's node)
    QNext,      \* QNext[t]: the word next_t of t's queue node (on t's node)
    Home,       \* the node of the tail word
    DataNode,   \* the node of the word d written in critical sections
    Ordered     \* TRUE: unlock(); FALSE: unlockWeak()

VARIABLES
    pc,         \* pc[t]: "idle", "init", "swap", "wait", "read", "rel", "flush0", "relcas", "relwait", "flushS"
    exp,        \* exp[t]: the value the tail CAS expects
    succ,       \* succ[t]: the successor id read from next_t
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale       \* ghost: some critical-section READ of d returned a value other than pub

vars == <<nicVars, pc, exp, succ, pub, stale>>
protoVars == <<pc, exp, succ, pub, stale>>

ASSUME /\ DataNode # Home
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode}
                             /\ HomeOf[QLocked[t]] = NodeOf[t] /\ HomeOf[QNext[t]] = NodeOf[t]

ThreadOf(i) == CHOOSE t \in Threads : Id[t] = i

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ exp = [t \in Threads |-> 0]
    /\ succ = [t \in Threads |-> 0]
    /\ pub = InitMem["d"]
    /\ stale = FALSE

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Keep == UNCHANGED <<pub, stale>>

(* Initialise the queue node with two CPU stores (buffered, R1).            *)
InitNode(t) ==
    /\ pc[t] = "idle"
    /\ sb' = [sb EXCEPT ![t] = @ \o <<[loc |-> QLocked[t], val |-> 1], [loc |-> QNext[t], val |-> 0]>>]
    /\ exp' = [exp EXCEPT ![t] = 0] /\ Go(t, "init")
    /\ UNCHANGED <<mem, pend, op, succ>> /\ Keep

(* Post the first CAS once the stores are drained (R2).                      *)
FirstCas(t) ==
    /\ pc[t] = "init" /\ CanPost(t)
    /\ SetOp(t, CasOp("tail", 0, Id[t])) /\ Go(t, "swap")
    /\ UNCHANGED <<mem, sb, pend, exp, succ>> /\ Keep

SwapDone(t) ==
    LET old == Result(t) IN
    /\ pc[t] = "swap" /\ Completed(t)
    /\ IF old = exp[t]
       THEN IF old = 0
            THEN SetOp(t, GetOp("d")) /\ Go(t, "read") /\ UNCHANGED <<pend, exp>>
            ELSE PostPut(t, QNext[ThreadOf(old)], Id[t]) /\ SetOp(t, NoOp) /\ Go(t, "wait")
                 /\ UNCHANGED exp
       ELSE /\ exp' = [exp EXCEPT ![t] = old]
            /\ SetOp(t, CasOp("tail", old, Id[t])) /\ Go(t, "swap") /\ UNCHANGED pend
    /\ UNCHANGED <<mem, sb, succ>> /\ Keep

(* The predecessor's handover WRITE has landed in our queue node.          *)
Wake(t) ==
    /\ pc[t] = "wait" /\ CpuLoad(t, QLocked[t]) = 0 /\ CanPost(t)
    /\ SetOp(t, GetOp("d")) /\ Go(t, "read")
    /\ UNCHANGED <<mem, sb, pend, exp, succ>> /\ Keep

ReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ pc[t] = "read" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ PostPut(t, "d", v) /\ SetOp(t, NoOp) /\ Go(t, "rel")
    /\ UNCHANGED <<mem, sb, exp, succ>>

(* release(): read next_t, flush if ordered, then CAS the tail or hand over. *)
Release(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ pc[t] = "rel"
    /\ succ' = [succ EXCEPT ![t] = s]
    /\ CASE s = 0 /\ Ordered  -> SetOp(t, GetOp("d")) /\ Go(t, "flush0") /\ UNCHANGED pend
         [] s = 0 /\ ~Ordered -> SetOp(t, CasOp("tail", Id[t], 0)) /\ Go(t, "relcas") /\ UNCHANGED pend
         [] s # 0 /\ Ordered  -> SetOp(t, GetOp("d")) /\ Go(t, "flushS") /\ UNCHANGED pend
         [] OTHER             -> PostPut(t, QLocked[ThreadOf(s)], 0) /\ Go(t, "idle") /\ UNCHANGED op
    /\ UNCHANGED <<mem, sb, exp>> /\ Keep

Flush0Done(t) ==
    /\ pc[t] = "flush0" /\ Completed(t)
    /\ SetOp(t, CasOp("tail", Id[t], 0)) /\ Go(t, "relcas")
    /\ UNCHANGED <<mem, sb, pend, exp, succ>> /\ Keep

RelCasDone(t) ==
    /\ pc[t] = "relcas" /\ Completed(t)
    /\ SetOp(t, NoOp)
    /\ Go(t, IF Result(t) = Id[t] THEN "idle" ELSE "relwait")
    /\ UNCHANGED <<mem, sb, pend, exp, succ>> /\ Keep

(* A successor swapped the tail but had not linked: wait for next_t. d is   *)
(* already flushed (Endpoint.flush forgets a flushed node), so hand over.   *)
RelWait(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ pc[t] = "relwait" /\ s # 0
    /\ succ' = [succ EXCEPT ![t] = s]
    /\ PostPut(t, QLocked[ThreadOf(s)], 0) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, op, exp>> /\ Keep

FlushSDone(t) ==
    /\ pc[t] = "flushS" /\ Completed(t)
    /\ PostPut(t, QLocked[ThreadOf(succ[t])], 0) /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, exp, succ>> /\ Keep

Thread(t) == InitNode(t) \/ FirstCas(t) \/ SwapDone(t) \/ Wake(t) \/ ReadDone(t) \/ Release(t)
             \/ Flush0Done(t) \/ RelCasDone(t) \/ RelWait(t) \/ FlushSDone(t)

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars)

Spec == Init /\ [][Next]_vars /\ NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
(* Holding: from entering the CS until the tail CAS or the handover WRITE.  *)
InCS(t) == \/ pc[t] \in {"read", "rel", "flush0", "flushS", "relwait"}
           \/ pc[t] = "relcas" /\ ~(Completed(t) /\ Result(t) = Id[t])

MutualExclusion == \A t, u \in Threads : InCS(t) /\ InCS(u) => t = u

Publication == ~stale

Enqueued(t) == pc[t] = "wait"
InDoorway(t) == pc[t] \in {"init", "swap"}
StarvationFreedom == \A t \in Threads : Enqueued(t) ~> InCS(t)
DoorwayStarvationFreedom == \A t \in Threads : InDoorway(t) ~> InCS(t)
DeadlockFreedom == (\E t \in Threads : InDoorway(t) \/ Enqueued(t)) ~> (\E t \in Threads : InCS(t))
=============================================================================
