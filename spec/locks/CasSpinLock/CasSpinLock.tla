---------------------------- MODULE CasSpinLock ----------------------------
(***************************************************************************)
(* dev.remora.locks.CasSpinLock on the weak RDMA model (BlockingVerbs).    *)
(*                                                                         *)
(* Protocol, per thread, in a loop (backoff is a stutter):                 *)
(*   lock   : CAS(lock, 0 -> id) until it returns 0                         *)
(*   CS     : READ d, then WRITE d := 1 - (value read); d lives on node    *)
(*            DataNode, not the lock's home                                *)
(*   unlock : ordered: flush (a READ of d, waited for; R7), then inline    *)
(*            WRITE lock := 0;  weak (unlockWeak): the WRITE only          *)
(* HomeCpu, if not "none", is a thread on the home node that (wrongly)     *)
(* acquires with a CPU locked CAS and releases with a CPU store.           *)
(*                                                                         *)
(* Checked (MCCasSpinLock.cfg): TypeOK, NoTornAtomicWord,                  *)
(* MutualExclusion, Publication (a CS READ of d returns the last CS WRITE: *)
(* LK1 forbidden), no TLC deadlock, DeadlockFreedom (liveness: if someone  *)
(* tries, someone enters). Not starvation-free: the lock is not fair.      *)
(*                                                                         *)
(* How to break it: MCCasSpinLockUnsafe.cfg lets the home CPU take the     *)
(* lock with a locked CAS, which lands inside a remote CAS's window (R14): *)
(* MutualExclusion fails. MCCasSpinLockWeak.cfg releases with unlockWeak:  *)
(* Publication fails (LK1).                                                *)
(***************************************************************************)
EXTENDS BlockingVerbs

CONSTANTS
    Id,         \* Id[t]: thread t's positive owner id
    Home,       \* the lock word's node
    DataNode,   \* the node of the word d written in critical sections
    Ordered,    \* TRUE: unlock() (flush, then release); FALSE: unlockWeak()
    HomeCpu     \* a thread that uses CPU locked CAS / CPU store on the lock word, or "none"

VARIABLES
    pc,         \* pc[t]: "idle", "cas", "read", "flush", "cpucs"
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale       \* ghost: some critical-section READ of d returned a value other than pub

vars == <<nicVars, pc, pub, stale>>
protoVars == <<pc, pub, stale>>

ASSUME /\ DataNode # Home
       /\ HomeCpu \in Threads => NodeOf[HomeCpu] = Home
       /\ \A t \in Threads : t # HomeCpu => NodeOf[t] \notin {Home, DataNode}

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ pub = InitMem["d"]
    /\ stale = FALSE

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]

(* tryLock(): post CAS(lock, 0 -> id).                                       *)
Try(t) ==
    /\ t # HomeCpu /\ pc[t] = "idle" /\ CanPost(t)
    /\ SetOp(t, CasOp("lock", 0, Id[t])) /\ Go(t, "cas")
    /\ UNCHANGED <<mem, sb, pend, pub, stale>>

(* The CAS completed: acquired (then READ d) or contended (back off, retry). *)
CasDone(t) ==
    /\ pc[t] = "cas" /\ Completed(t)
    /\ IF Result(t) = 0
       THEN SetOp(t, GetOp("d")) /\ Go(t, "read")
       ELSE SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, pub, stale>>

(* The CS READ of d completed: record a stale value, WRITE the next value.  *)
ReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ pc[t] = "read" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ IF Ordered
       THEN PostPut(t, "d", v) /\ SetOp(t, GetOp("d")) /\ Go(t, "flush")   \* Endpoint.flush: a READ of d
       ELSE PostPut2(t, "d", v, "lock", 0) /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb>>

(* Ordered release: the flush READ completed, now WRITE lock := 0.          *)
FlushDone(t) ==
    /\ pc[t] = "flush" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ PostPut(t, "lock", 0) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pub, stale>>

(* The home CPU: a locked CAS (needs an empty store buffer), a critical     *)
(* section through the NIC like everyone else, a CPU store to release.      *)
CpuLock(t) ==
    /\ t = HomeCpu /\ pc[t] = "idle" /\ CanPost(t) /\ mem["lock"] = 0
    /\ mem' = [mem EXCEPT !["lock"] = Id[t]]
    /\ SetOp(t, GetOp("d")) /\ Go(t, "cpucs")
    /\ UNCHANGED <<sb, pend, pub, stale>>
CpuCsDone(t) ==
    LET v == 1 - Result(t) IN
    /\ t = HomeCpu /\ pc[t] = "cpucs" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ PostPut(t, "d", v)
    /\ SetOp(t, NoOp) /\ CpuStore(t, "lock", 0) /\ Go(t, "idle")
    /\ UNCHANGED mem

Thread(t) == Try(t) \/ CasDone(t) \/ ReadDone(t) \/ FlushDone(t) \/ CpuLock(t) \/ CpuCsDone(t)

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars)

Fairness == NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

Spec == Init /\ [][Next]_vars /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
(* Holding: from the successful CAS (or CPU CAS) to posting the release.    *)
InCS(t) == \/ pc[t] \in {"read", "flush", "cpucs"}
           \/ pc[t] = "cas" /\ Completed(t) /\ Result(t) = 0

MutualExclusion == \A t, u \in Threads : InCS(t) /\ InCS(u) => t = u

Publication == ~stale

Trying(t) == pc[t] = "cas" \/ (pc[t] = "idle" /\ t # HomeCpu)
DeadlockFreedom == (\E t \in Threads : Trying(t)) ~> (\E t \in Threads : InCS(t))
=============================================================================
