--------------------------- MODULE ReadWriteLock ---------------------------
(***************************************************************************)
(* The read-write lock on the weak RDMA model (BlockingVerbs).             *)
(*                                                                         *)
(* One state word on Home, changed only by remote FETCH_ADD and CAS:       *)
(*   state = readers + WriterBit * active + WaitUnit * waitingWriters      *)
(* (Java: readers in the low 32 bits, a writer-active bit, the waiting-    *)
(* writers count above; here the fields are 2 bits, 1 bit and the rest).   *)
(*                                                                         *)
(* Reader, in a loop:                                                      *)
(*   FAA(state, +1); if a writer is active or waiting: FAA(state, -1),     *)
(*   then READ state until no writer is active or waiting, and retry.      *)
(*   CS: READ d (checked against the last write: Publication).             *)
(*   unlock: FAA(state, -1) (readers write nothing, so no flush).          *)
(* Writer, in a loop:                                                      *)
(*   FAA(state, +WaitUnit) (announce); READ state until no reader and no  *)
(*   active writer, then CAS(state, s -> s - WaitUnit + WriterBit); on     *)
(*   failure READ again.                                                   *)
(*   CS: READ d, WRITE d := 1 - (value read), d on DataNode.               *)
(*   unlock: ordered: flush READ of d, then FAA(state, -WriterBit).        *)
(*                                                                         *)
(* Checked (MCReadWriteLock.cfg, readers r1, r2, writer w): TypeOK,       *)
(* NoTornAtomicWord, Exclusion (never a writer with a reader or another    *)
(* writer), Publication (LK1 forbidden), no TLC deadlock, DeadlockFreedom  *)
(* and WriterStarvationFreedom (liveness: an announced writer enters),    *)
(* the last two in MCReadWriteLockFull.cfg (profile spec-full).           *)
(*                                                                         *)
(* How to break it: MCReadWriteLockUnsafe.cfg puts the writer on the home *)
(* node and lets it change the state word with CPU locked atomics instead  *)
(* of remote ones (CpuAtomics: LOCK XADD to announce and to release, LOCK  *)
(* CMPXCHG to acquire; each one indivisible step on memory). Under         *)
(* ATOMIC_CAP = "HCA" they land inside a reader's FETCH_ADD window and the *)
(* reader's write phase erases them (R14): Exclusion fails. Under "GLOB"   *)
(* (MCReadWriteLockGlob.cfg) remote atomics are atomic against the CPU     *)
(* too (R15) and Exclusion holds: the failure is R14's and nothing else.   *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    Readers,    \* the reader threads
    Writers,    \* the writer threads
    WriterBit,  \* the writer-active bit of the state word
    WaitUnit,   \* one waiting writer in the state word
    Home,       \* the node of the state word
    DataNode,   \* the node of the word d written in critical sections
    Ordered,    \* TRUE: the writer's unlock() flushes; FALSE: unlockWeak()
    CpuAtomics  \* TRUE: a writer on Home uses CPU locked atomics on the state word (unsafe under HCA)

VARIABLES
    pc,         \* pc[t]: reader "idle", "rfaa", "rback", "rspin", "rread", "rrel";
                \*        writer "idle", "wann", "wspin", "wcas", "wread", "wflush", "wrel", "wcpu"
    saw,        \* saw[t]: the state word a writer's CAS expects
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale       \* ghost: some critical-section READ of d returned a value other than pub

vars == <<nicVars, pc, saw, pub, stale>>
protoVars == <<pc, saw, pub, stale>>

ASSUME /\ Readers \cup Writers = Threads /\ Readers \cap Writers = {}
       /\ DataNode # Home /\ Cardinality(Readers) < WriterBit /\ WaitUnit = 2 * WriterBit
       /\ \A t \in Threads : NodeOf[t] # DataNode
       /\ CpuAtomics => \A w \in Writers : NodeOf[w] = Home

ReaderCount(s) == s % WriterBit
WriterActive(s) == (s \div WriterBit) % 2 = 1
WaitingWriters(s) == s \div WaitUnit
WriterAround(s) == WriterActive(s) \/ WaitingWriters(s) > 0

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ saw = [t \in Threads |-> 0]
    /\ pub = InitMem["d"]
    /\ stale = FALSE

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Neg(v) == WordMod - v     \* FETCH_ADD of -v on a WordMod word

(***************************************************************************)
(* Reader.                                                                 *)
(***************************************************************************)
RStart(t) ==
    /\ t \in Readers /\ pc[t] = "idle" /\ CanPost(t)
    /\ SetOp(t, FaaOp("state", 1)) /\ Go(t, "rfaa")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

RFaaDone(t) ==
    /\ pc[t] = "rfaa" /\ Completed(t)
    /\ IF WriterAround(Result(t))
       THEN SetOp(t, FaaOp("state", Neg(1))) /\ Go(t, "rback")
       ELSE SetOp(t, GetOp("d")) /\ Go(t, "rread")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

RBackDone(t) ==
    /\ pc[t] = "rback" /\ Completed(t)
    /\ SetOp(t, GetOp("state")) /\ Go(t, "rspin")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

RSpin(t) ==
    /\ pc[t] = "rspin" /\ Completed(t)
    /\ IF WriterAround(Result(t))
       THEN SetOp(t, GetOp("state")) /\ Go(t, "rspin")
       ELSE SetOp(t, FaaOp("state", 1)) /\ Go(t, "rfaa")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

RReadDone(t) ==
    /\ pc[t] = "rread" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ SetOp(t, FaaOp("state", Neg(1))) /\ Go(t, "rrel")
    /\ UNCHANGED <<mem, sb, pend, saw, pub>>

RRelDone(t) ==
    /\ pc[t] = "rrel" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

Reader(t) == RStart(t) \/ RFaaDone(t) \/ RBackDone(t) \/ RSpin(t) \/ RReadDone(t) \/ RRelDone(t)

(***************************************************************************)
(* Writer.                                                                 *)
(***************************************************************************)
WStart(t) ==
    /\ t \in Writers /\ pc[t] = "idle" /\ CanPost(t) /\ ~CpuAtomics
    /\ SetOp(t, FaaOp("state", WaitUnit)) /\ Go(t, "wann")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

(* CpuAtomics: the home writer's LOCK XADD(state, +WaitUnit) (one step on   *)
(* memory, with an empty store buffer, R1), then LOCK CMPXCHG(state, s ->   *)
(* s - WaitUnit + WriterBit) once a CPU load sees no reader and no active   *)
(* writer. The load and the CMPXCHG are one step here: a CMPXCHG that some  *)
(* other change beats fails and loads again, which is a stutter.            *)
WCpuStart(t) ==
    /\ t \in Writers /\ pc[t] = "idle" /\ CanPost(t) /\ CpuAtomics
    /\ mem' = [mem EXCEPT !["state"] = (@ + WaitUnit) % WordMod]
    /\ Go(t, "wcpu")
    /\ UNCHANGED <<sb, pend, op, saw, pub, stale>>
WCpuAcquire(t) ==
    LET s == mem["state"] IN
    /\ pc[t] = "wcpu" /\ CanPost(t) /\ ReaderCount(s) = 0 /\ ~WriterActive(s)
    /\ mem' = [mem EXCEPT !["state"] = (s - WaitUnit + WriterBit) % WordMod]
    /\ SetOp(t, GetOp("d")) /\ Go(t, "wread")
    /\ UNCHANGED <<sb, pend, saw, pub, stale>>

WAnnounced(t) ==
    /\ pc[t] = "wann" /\ Completed(t)
    /\ SetOp(t, GetOp("state")) /\ Go(t, "wspin")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

WSpin(t) ==
    LET s == Result(t) IN
    /\ pc[t] = "wspin" /\ Completed(t)
    /\ IF ReaderCount(s) = 0 /\ ~WriterActive(s)
       THEN /\ saw' = [saw EXCEPT ![t] = s]
            /\ SetOp(t, CasOp("state", s, s - WaitUnit + WriterBit)) /\ Go(t, "wcas")
       ELSE SetOp(t, GetOp("state")) /\ Go(t, "wspin") /\ UNCHANGED saw
    /\ UNCHANGED <<mem, sb, pend, pub, stale>>

WCasDone(t) ==
    /\ pc[t] = "wcas" /\ Completed(t)
    /\ IF Result(t) = saw[t]
       THEN SetOp(t, GetOp("d")) /\ Go(t, "wread")
       ELSE SetOp(t, GetOp("state")) /\ Go(t, "wspin")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

(* Release: a FETCH_ADD of -WriterBit, or (CpuAtomics) a LOCK XADD.          *)
WRelease(t) ==
    IF CpuAtomics
    THEN SetOp(t, NoOp) /\ mem' = [mem EXCEPT !["state"] = (@ + Neg(WriterBit)) % WordMod]
         /\ Go(t, "idle")
    ELSE SetOp(t, FaaOp("state", Neg(WriterBit))) /\ Go(t, "wrel") /\ UNCHANGED mem

WReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ pc[t] = "wread" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ PostPut(t, "d", v)
    /\ IF Ordered
       THEN SetOp(t, GetOp("d")) /\ Go(t, "wflush") /\ UNCHANGED mem
       ELSE WRelease(t)
    /\ UNCHANGED <<sb, saw>>

WFlushDone(t) ==
    /\ pc[t] = "wflush" /\ Completed(t)
    /\ WRelease(t)
    /\ UNCHANGED <<sb, pend, saw, pub, stale>>

WRelDone(t) ==
    /\ pc[t] = "wrel" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, saw, pub, stale>>

Writer(t) == WStart(t) \/ WAnnounced(t) \/ WSpin(t) \/ WCasDone(t) \/ WReadDone(t) \/ WFlushDone(t)
             \/ WRelDone(t) \/ WCpuStart(t) \/ WCpuAcquire(t)

Thread(t) == IF t \in Readers THEN Reader(t) ELSE Writer(t)

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars)

Spec == Init /\ [][Next]_vars /\ NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
ReaderIn(t) == \/ pc[t] = "rread"
               \/ pc[t] = "rrel" /\ ~Completed(t)
               \/ pc[t] = "rfaa" /\ Completed(t) /\ ~WriterAround(Result(t))
WriterIn(t) == \/ pc[t] \in {"wread", "wflush"}
               \/ pc[t] = "wrel" /\ ~Completed(t)
               \/ pc[t] = "wcas" /\ Completed(t) /\ Result(t) = saw[t]

Exclusion ==
    \A w \in Writers : WriterIn(w) =>
        /\ \A r \in Readers : ~ReaderIn(r)
        /\ \A v \in Writers \ {w} : ~WriterIn(v)

Publication == ~stale

WriterWaiting(t) == pc[t] \in {"wann", "wspin", "wcas", "wcpu"}
WriterStarvationFreedom == \A w \in Writers : WriterWaiting(w) ~> WriterIn(w)
DeadlockFreedom ==
    (\E t \in Threads : pc[t] # "idle") ~> (\E t \in Threads : ReaderIn(t) \/ WriterIn(t))
=============================================================================
