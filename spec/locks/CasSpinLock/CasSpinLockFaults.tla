------------------------- MODULE CasSpinLockFaults -------------------------
(***************************************************************************)
(* dev.remora.locks.CasSpinLock under timeouts, QP errors and client       *)
(* crashes (BlockingFaults), in three versions chosen by Design.           *)
(*                                                                         *)
(* All, per thread, in a loop: CAS(lock, 0 -> v) until acquired; the      *)
(* critical section READs one word l of CsLocs (d on DataNode, e on the    *)
(* home) and WRITEs l := 1 - (value read); unlock() flushes and releases.  *)
(* A verb that throws in the critical section ends it: the caller's        *)
(* finally calls unlock().                                                 *)
(*                                                                         *)
(* "current": the code and Endpoint of today. v = the handle's id. A       *)
(* timed-out request's QP is retired and the request never looked at      *)
(* again (RETIRE_ON_TIMEOUT); tryLock() throws and the handle does not     *)
(* hold the lock. A node is remembered for the flush only once a WRITE to  *)
(* it succeeded, and forgotten once a flush READ of it succeeded; the      *)
(* flush skips the home. A flush that throws leaves the handle holding:    *)
(* the caller calls unlock() again. The release is WRITE lock := 0; if it  *)
(* throws, the handle has let go all the same (held = false).              *)
(*                                                                         *)
(* "fixed": the fix as designed.                                           *)
(*  (1) A timed-out CAS(0 -> id) stays unsettled on its QP; the handle's   *)
(*      next operation first waits for its completion: success with old    *)
(*      = 0: the handle holds the lock. An error completion (QP broke,     *)
(*      effect unknown): the handle READs the word; = id: it holds the     *)
(*      lock; otherwise not, and it remembers that a stray CAS of its own  *)
(*      may still land (strayCas): a later CAS(0 -> id) of its own that    *)
(*      returns id means it landed, and the handle holds the lock.         *)
(*  (2) The Endpoint's dirty/lost bookkeeping (TRACK_PUBLICATION); the     *)
(*      ordered release flushes every non-home node that is dirty, then    *)
(*      fails with PublicationLost if any node of the handle is marked     *)
(*      lost, the home included (the handle keeps the lock: pc "lostpub"), *)
(*      and only otherwise WRITEs lock := 0.                               *)
(*  (3) Owner ids are unique per handle (Id is injective).                 *)
(* It is not enough: the handle's own release WRITE may still be in flight *)
(* on a replaced QP, so "my id is in the word" does not mean "I hold it"   *)
(* (MCCasSpinLockOwnRelease: MutualExclusion fails with one QP error).     *)
(*                                                                         *)
(* "amended": "fixed" with two changes that make the owner value in the    *)
(* word unambiguous.                                                       *)
(*  (4) Owner values are unique per attempt: v = Val(t, k), the handle's   *)
(*      id and an attempt number k. The handle never reuses a k that a     *)
(*      request of its own with an unknown outcome may still write or      *)
(*      expect (tainted[t]); it takes the smallest k that is not tainted.  *)
(*      A CAS(0 -> v_k) that returns 0, or a READ after its error that     *)
(*      shows v_k, or any of them showing v_j for a tainted j (that stray  *)
(*      CAS landed), means the handle holds the lock (with v_k or v_j);    *)
(*      anything else means it does not, and an unknown k joins tainted.   *)
(*  (5) The release is CAS(lock, v -> 0). After an error the handle READs  *)
(*      the word: = v: not released yet, CAS again (a stray of the first   *)
(*      one that lands later finds another value and does nothing);        *)
(*      otherwise released. k joins tainted either way.                    *)
(*  (6) The ordered release also flushes the home when the critical        *)
(*      section wrote to it (one READ), so that no unplaced WRITE is ahead *)
(*      of the release CAS on its QP and posting it again on a new QP      *)
(*      cannot overtake one.                                               *)
(*                                                                         *)
(* Only the acquiring CAS times out explicitly: a timeout of another verb  *)
(* retires its QP in every version, which is a QP error of that verb.      *)
(* After PublicationLost the caller keeps the lock (pc "lostpub", for      *)
(* ever): a WRITE of a replaced QP may land at any later time (R20, §5.2), *)
(* so no release can promise the next holder anything about it, nor stop   *)
(* it from overwriting a later holder's data; see the README.              *)
(*                                                                         *)
(* Checked: TypeOK, MutualExclusion (nobody else holds while a thread      *)
(* holds, crashed holders included), Publication (a critical-section READ  *)
(* that follows a release which reported success returns the last          *)
(* critical-section WRITE of its word) and DeadlockFreedom (liveness: if a *)
(* live client tries, some live client eventually holds the lock, unless  *)
(* a crashed client's value is in the lock word or a CAS of a crashed      *)
(* client may still land: CrashStuck).                                      *)
(*                                                                         *)
(* Models (MCCasSpinLockFaults.tla, the README has the table):             *)
(* MCCasSpinLockReplacedQp (current, QP errors: Publication fails),        *)
(* MCCasSpinLockOrphan (current, CAS timeouts: DeadlockFreedom fails),     *)
(* MCCasSpinLockOwnRelease (fixed, QP errors: MutualExclusion fails),      *)
(* MCCasSpinLockFaults (amended, every fault: all hold).                   *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Id,         \* Id[t]: thread t's positive owner id (unique)
    Home,       \* the lock word's node
    DataNode,   \* the node of the word d
    CsLocs,     \* the words a critical section may update, one per critical section
    Design      \* "current", "fixed" or "amended"

VARIABLES
    pc,         \* pc[t]: "idle", "cas", "unsettled", "check", "read", "write", "flush", "relw", "relcheck",
                \*        "lostpub"
    cs,         \* cs[t]: the word t's current critical section updates
    unfl,       \* current: unfl[t]: DataNode is remembered for the next flush
    strayCas,   \* fixed: strayCas[t]: a CAS(0 -> Id[t]) of t with an unknown outcome may still land
    att,        \* amended: att[t]: the attempt number of t's current attempt or tenure
    tainted,    \* amended: tainted[t]: attempt numbers a request of t with an unknown outcome may still use
    pub,        \* ghost: pub[l]: the value of the last critical-section WRITE of l (posted)
    stale,      \* ghost: some checked critical-section READ returned another value
    freeOk,     \* ghost: the lock word's last change to 0 was a release that reported success
    chk         \* ghost: chk[t]: t's critical section is checked (its acquisition followed freeOk)

vars == <<allVerbVars, pc, cs, unfl, strayCas, att, tainted, pub, stale, freeOk, chk>>
protoVars == <<pc, cs, unfl, strayCas, att, tainted, pub, stale, freeOk, chk>>

New == Design # "current"       \* the fixed Endpoint: unsettled timeouts, dirty/lost, READ after an error
K == FaultBudget + 1            \* amended: attempt numbers 1..K (at most FaultBudget are ever tainted)
Val(t, k) == Id[t] * 8 + k      \* amended: the owner value of t's attempt k
(* The owner value t's current attempt writes and its tenure holds.         *)
Mine(t) == IF Design = "amended" THEN Val(t, att[t]) ELSE Id[t]
ValsOf(t) == IF Design = "amended" THEN {Val(t, k) : k \in 1..K} ELSE {Id[t]}
(* Values of t's own stray CASes that show t holds the lock if it sees them. *)
StrayVals(t) == CASE Design = "amended" -> {Val(t, k) : k \in tainted[t]}
                  [] Design = "fixed"   -> IF strayCas[t] THEN {Id[t]} ELSE {}
                  [] OTHER              -> {}
KOf(t, w) == w - Id[t] * 8      \* amended: the attempt number of t's value w

ASSUME /\ DataNode # Home /\ Design \in {"current", "fixed", "amended"}
       /\ HomeOf["lock"] = Home /\ CsLocs \subseteq Locs \ {"lock"}
       /\ \A l \in CsLocs : HomeOf[l] \in {Home, DataNode}
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode} /\ Id[t] \in 1..7
       /\ K < 8                       \* Val(t, k) is unique
       /\ \A t, u \in Threads : t # u => Id[t] # Id[u]
       /\ New = ~RETIRE_ON_TIMEOUT /\ New = TRACK_PUBLICATION

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ cs = [t \in Threads |-> CHOOSE l \in CsLocs : TRUE]
    /\ unfl = [t \in Threads |-> FALSE]
    /\ strayCas = [t \in Threads |-> FALSE]
    /\ att = [t \in Threads |-> 1]
    /\ tainted = [t \in Threads |-> {}]
    /\ pub = [l \in CsLocs |-> InitMem[l]]
    /\ stale = FALSE
    /\ freeOk = TRUE
    /\ chk = [t \in Threads |-> TRUE]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
(* t goes idle: the values only a critical section or an attempt uses go    *)
(* back to their initial ones (fewer distinct states, nothing else).        *)
GoIdle(t) ==
    /\ Go(t, "idle")
    /\ cs' = [cs EXCEPT ![t] = CHOOSE l \in CsLocs : TRUE]
    /\ chk' = [chk EXCEPT ![t] = TRUE]
    /\ att' = [att EXCEPT ![t] = 1]
Done(t) == Completed(t) \/ Failed(t)    \* t's verb has completed, with success or an error
Min(S) == CHOOSE k \in S : \A j \in S : k <= j

(* t holds the lock with attempt k (amended; else k = att[t], unused):      *)
(* choose the critical section's word and READ it.                          *)
Acquired(t, k) ==
    /\ \E l \in CsLocs : cs' = [cs EXCEPT ![t] = l] /\ Post(t, GetOp(l))
    /\ chk' = [chk EXCEPT ![t] = freeOk]
    /\ att' = [att EXCEPT ![t] = k]
    /\ Go(t, "read")

(* The release, or (fixed, amended) PublicationLost.                         *)
Release(t) ==
    CASE New /\ PublicationLost(t) -> Post(t, NoOp) /\ Go(t, "lostpub")
      [] Design = "amended"         -> Post(t, CasOp("lock", Mine(t), 0)) /\ Go(t, "relw")
      [] OTHER                      -> Post(t, PutOp("lock", 0)) /\ Go(t, "relw")

(* unlock(): flush DataNode if needed, else release. needFlush is the       *)
(* current Endpoint's view after this step (remembered).                    *)
Unlock(t, needFlush) ==
    IF needFlush THEN Post(t, GetOp("d")) /\ Go(t, "flush") ELSE Release(t)

(* fixed, amended: the nodes the ordered release flushes when dirty: the    *)
(* non-home ones (fixed), and the home too (amended, so that a failed       *)
(* release CAS can be posted again on a new QP: nothing unplaced is ahead   *)
(* of it). Dirty after this step: a completed READ or atomic clears its     *)
(* node.                                                                    *)
FlushNodes == IF Design = "amended" THEN {DataNode, Home} ELSE {DataNode}
FlushLoc(n) == CHOOSE l \in CsLocs : HomeOf[l] = n
DirtyAfter(t, n) ==
    dirty[t][n] /\ ~(op[t].kind \in {"get", "cas", "faa"} /\ op[t].st = "done" /\ HomeOf[op[t].loc] = n)
UnlockNew(t) ==
    LET todo == {n \in FlushNodes : DirtyAfter(t, n)} IN
    IF todo # {}
    THEN Post(t, GetOp(FlushLoc(IF DataNode \in todo THEN DataNode ELSE Home))) /\ Go(t, "flush")
    ELSE Release(t)

(* tryLock(): post CAS(lock, 0 -> v) (amended: a fresh attempt number).      *)
Try(t) ==
    LET k == IF Design = "amended" THEN Min((1..K) \ tainted[t]) ELSE att[t] IN
    /\ Live(t) /\ pc[t] = "idle" /\ CanPost(t)
    /\ att' = [att EXCEPT ![t] = k]
    /\ Post(t, CasOp("lock", 0, IF Design = "amended" THEN Val(t, k) ELSE Id[t])) /\ Go(t, "cas")
    /\ UNCHANGED <<cs, unfl, strayCas, tainted, pub, stale, freeOk, chk>>

(* The CAS completed. old = 0: acquired; old = one of t's stray values:     *)
(* that stray landed, acquired with it. An error: current, not held (the    *)
(* exception); else READ the word.                                          *)
CasDone(t) ==
    LET old == Result(t) IN
    /\ Live(t) /\ pc[t] = "cas" /\ Done(t)
    /\ IF Completed(t) /\ old = 0
       THEN Acquired(t, att[t]) /\ UNCHANGED tainted
       ELSE IF Completed(t) /\ old \in StrayVals(t)
       THEN Acquired(t, IF Design = "amended" THEN KOf(t, old) ELSE att[t])
            /\ tainted' = [tainted EXCEPT ![t] = @ \ {KOf(t, old)}]
       ELSE /\ IF New /\ Failed(t) THEN Post(t, GetOp("lock")) /\ Go(t, "check") /\ UNCHANGED <<cs, chk, att>>
                                  ELSE Post(t, NoOp) /\ GoIdle(t)
            /\ UNCHANGED tainted
    /\ UNCHANGED <<unfl, strayCas, pub, stale, freeOk>>

(* The CAS's waiter times out. Current: its QP is retired (TimeOut sets the *)
(* status "timedout"; CasDone then gives up). Else: the CAS stays unsettled *)
(* and the handle stops waiting until its next operation.                   *)
CasTimeOut(t) ==
    /\ pc[t] = "cas" /\ TimeOut(t)
    /\ IF New THEN Go(t, "unsettled") ELSE UNCHANGED pc
    /\ UNCHANGED <<cs, unfl, strayCas, att, tainted, pub, stale, freeOk, chk>>

(* The handle's next operation first waits for the unsettled CAS.           *)
Resume(t) ==
    /\ Live(t) /\ pc[t] = "unsettled"
    /\ Go(t, "cas")
    /\ UNCHANGED <<allVerbVars, cs, unfl, strayCas, att, tainted, pub, stale, freeOk, chk>>

(* The READ of the lock word after an error completion of the CAS: t's own  *)
(* value (or a stray one): acquired; otherwise not, and the CAS's outcome   *)
(* stays unknown.                                                           *)
CheckDone(t) ==
    LET w == Result(t) IN
    /\ Live(t) /\ pc[t] = "check" /\ Done(t)
    /\ IF Failed(t)
       THEN Post(t, GetOp("lock")) /\ UNCHANGED <<pc, cs, chk, att, strayCas, tainted>>
       ELSE IF w = Mine(t)
       THEN Acquired(t, att[t]) /\ UNCHANGED <<strayCas, tainted>>
       ELSE IF w \in StrayVals(t)
       THEN /\ Acquired(t, KOf(t, w))
            /\ tainted' = [tainted EXCEPT ![t] = (@ \ {KOf(t, w)}) \cup {att[t]}]
            /\ UNCHANGED strayCas
       ELSE /\ strayCas' = [strayCas EXCEPT ![t] = (Design = "fixed")]
            /\ tainted' = IF Design = "amended" THEN [tainted EXCEPT ![t] = @ \cup {att[t]}] ELSE tainted
            /\ Post(t, NoOp) /\ GoIdle(t)
    /\ UNCHANGED <<unfl, pub, stale, freeOk>>

(* The critical section's READ: then WRITE l := 1 - value; an error ends    *)
(* the critical section (unlock()).                                         *)
ReadDone(t) ==
    LET l == cs[t]
        v == 1 - Result(t)
    IN
    /\ Live(t) /\ pc[t] = "read" /\ Done(t)
    /\ IF Completed(t)
       THEN /\ stale' = (stale \/ (chk[t] /\ Result(t) # pub[l]))
            /\ pub' = [pub EXCEPT ![l] = v]
            /\ Post(t, PutOp(l, v)) /\ Go(t, "write")
       ELSE /\ IF New THEN UnlockNew(t) ELSE Unlock(t, unfl[t])
            /\ UNCHANGED <<pub, stale>>
    /\ UNCHANGED <<cs, unfl, strayCas, att, tainted, freeOk, chk>>

(* The critical section's WRITE completed (acknowledged or an error):       *)
(* unlock(). Current: only a WRITE that succeeded is remembered.            *)
WriteDone(t) ==
    LET rem == unfl[t] \/ (Completed(t) /\ HomeOf[cs[t]] = DataNode) IN
    /\ Live(t) /\ pc[t] = "write" /\ Done(t)
    /\ unfl' = [unfl EXCEPT ![t] = rem]
    /\ IF New THEN UnlockNew(t) ELSE Unlock(t, rem)
    /\ UNCHANGED <<cs, strayCas, att, tainted, pub, stale, freeOk, chk>>

(* A flush READ completed. Current: success, release; an error, unlock()    *)
(* threw and the caller calls it again (DataNode still remembered, a READ   *)
(* on the new QP). Else: the next node, or release (after an error the      *)
(* broken QP was dirty and is marked lost).                                 *)
FlushDone(t) ==
    /\ Live(t) /\ pc[t] = "flush" /\ Done(t)
    /\ IF New
       THEN UnlockNew(t) /\ UNCHANGED unfl
       ELSE IF Completed(t)
       THEN unfl' = [unfl EXCEPT ![t] = FALSE] /\ Release(t)
       ELSE Post(t, GetOp("d")) /\ UNCHANGED <<pc, unfl>>
    /\ UNCHANGED <<cs, strayCas, att, tainted, pub, stale, freeOk, chk>>

(* The release completed. current, fixed: after an error the handle has let *)
(* go all the same, but its WRITE may never land. amended: after an error   *)
(* the handle READs the word (the attempt number is tainted for good).      *)
RelDone(t) ==
    /\ Live(t) /\ pc[t] = "relw" /\ Done(t)
    /\ IF Design = "amended" /\ Failed(t)
       THEN /\ tainted' = [tainted EXCEPT ![t] = @ \cup {att[t]}]
            /\ Post(t, GetOp("lock")) /\ Go(t, "relcheck") /\ UNCHANGED <<cs, chk, att>>
       ELSE Post(t, NoOp) /\ GoIdle(t) /\ UNCHANGED tainted
    /\ UNCHANGED <<unfl, strayCas, pub, stale, freeOk>>

(* amended: the READ after a failed release: still our value: CAS again.    *)
RelCheck(t) ==
    /\ Live(t) /\ pc[t] = "relcheck" /\ Done(t)
    /\ CASE Failed(t)             -> Post(t, GetOp("lock")) /\ UNCHANGED <<pc, cs, chk, att>>
          [] Result(t) = Mine(t)   -> Post(t, CasOp("lock", Mine(t), 0)) /\ Go(t, "relw") /\ UNCHANGED <<cs, chk, att>>
          [] OTHER                 -> Post(t, NoOp) /\ GoIdle(t)
    /\ UNCHANGED <<unfl, strayCas, tainted, pub, stale, freeOk>>

FairThread(t) == Try(t) \/ CasDone(t) \/ Resume(t) \/ CheckDone(t) \/ ReadDone(t) \/ WriteDone(t)
                 \/ FlushDone(t) \/ RelDone(t) \/ RelCheck(t)

(* A release WRITE that was never acknowledged lands from its stray record. *)
UnackedRelease == \E r \in stray \ stray' : r.puts = <<>> /\ r.last.kind = "put" /\ r.last.loc = "lock"
FreeOkNext == freeOk' = IF mem'["lock"] = 0 /\ mem["lock"] # 0 THEN ~UnackedRelease ELSE freeOk
Memory ==
    /\ FaultsNicStep /\ FreeOkNext
    /\ UNCHANGED <<pc, cs, unfl, strayCas, att, tainted, pub, stale, chk>>

(* After PublicationLost the caller keeps the lock: it does nothing more     *)
(* with it (a stutter, so that a model where nobody else can move does not  *)
(* end in a TLC deadlock).                                                  *)
KeepLock(t) == Live(t) /\ pc[t] = "lostpub" /\ UNCHANGED vars

Next ==
    \/ \E t \in Threads : FairThread(t) \/ CasTimeOut(t) \/ KeepLock(t)
    \/ \E t \in Threads : Crash(t) /\ FreeOkNext
                         /\ UNCHANGED <<pc, cs, unfl, strayCas, att, tainted, pub, stale, chk>>
    \/ Memory

Spec == Init /\ [][Next]_vars /\ FaultsFairness /\ \A t \in Threads : WF_vars(FairThread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
(* Holding: from learning of the acquisition to posting the release; a      *)
(* handle that got PublicationLost keeps holding.                           *)
Holding(t) ==
    \/ pc[t] \in {"read", "write", "flush", "lostpub"}
    \/ pc[t] = "cas" /\ Completed(t) /\ (Result(t) = 0 \/ Result(t) \in StrayVals(t))
    \/ pc[t] = "check" /\ Completed(t) /\ (Result(t) = Mine(t) \/ Result(t) \in StrayVals(t))

MutualExclusion == \A t, u \in Threads : Holding(t) /\ Holding(u) => t = u

Publication == ~stale

Trying(t) == Live(t) /\ pc[t] \in {"idle", "cas", "unsettled", "check"}
CrashStuck == \E c \in crashed : mem["lock"] \in ValsOf(c) \/ StrayAtomic(c, "lock")
DeadlockFreedom ==
    (\E t \in Threads : Trying(t)) ~> (\E t \in Threads : Live(t) /\ Holding(t)) \/ CrashStuck
=============================================================================
