---------------------------- MODULE McsLockFaults ----------------------------
(***************************************************************************)
(* dev.remora.locks.McsLock (lock()/unlock(), the ordered release) under   *)
(* timeouts, QP errors and client crashes (BlockingFaults). The knobs      *)
(* choose between the code as it is and the behaviour the review found     *)
(* (the twins), and FaultyVerbs which verbs the faults may hit.            *)
(*                                                                         *)
(* Words: tail on Home (0 = free, else the id of the last queued handle);  *)
(* per thread t a queue node on t's node (locked_t, next_t); with Slots,   *)
(* t's slot slot_t on Home (0 = not written, 1 = written; otherwise the    *)
(* slot table is a constant, as in McsLock.tla); d on DataNode, the word   *)
(* the critical section READs and WRITEs (so the release must flush it).   *)
(*                                                                         *)
(* The code, per handle (pc in brackets):                                  *)
(*  attach   [attach, attachw] WRITE slot_t (Slots); an error or timeout   *)
(*           is caught: the slot is written again before the first CAS.    *)
(*  lock()   [idle -> init] CPU stores locked_t := 1, next_t := 0, e := 0; *)
(*           [init -> cas] CAS(tail, e -> me), first WRITE slot_t again    *)
(*           when SlotRewrite says so [slotw]; a result other than e:      *)
(*           e := it, again; e = 0: holding; else link: WRITE next_pred := *)
(*           me [link, linkw] (after a READ of pred's slot, cached, with   *)
(*           Slots [slotr]) and spin on locked_t with CPU loads [wait].    *)
(*           A CAS whose wait timed out stays unsettled [unsettled] and    *)
(*           the next call waits for it (SettleCas); a CAS that failed     *)
(*           (its QP broke: outcome unknown) makes the handle refuse       *)
(*           further use [refused]. A link WRITE that fails or times out   *)
(*           makes lock() throw; the caller calls lock() again, which      *)
(*           WRITEs the link again (the handle stays queued).              *)
(*  CS       [read, write] READ d, WRITE d := 1 - value. A verb that       *)
(*           throws ends it (the caller's finally calls unlock()).         *)
(*  unlock() [rel] s := CPU load next_t; flush: PublicationLost ->        *)
(*           [lostpub], the caller keeps the lock (as in                   *)
(*           CasSpinLockFaults); else READ d if the critical section       *)
(*           wrote it [flush]; then s = 0: CAS(tail, me -> 0) [relcas]:    *)
(*           me or 0: free; else wait for next_t [relwait], within a       *)
(*           budget (UnlockWait = "bounded": UnlockExpire, unlock()        *)
(*           throws and the handle holds the lock), then flush again and   *)
(*           hand over; s # 0: WRITE locked_s := 0 [hand]. A flush, CAS    *)
(*           or handover that throws leaves the handle holding             *)
(*           (HeldUntilReleased): the caller calls unlock() again. A       *)
(*           release CAS whose QP failed makes the handle refuse to queue  *)
(*           again (pu); one whose wait timed out is kept as the handle's  *)
(*           unsettled tail CAS (pk, pv: the code's pendingCas) and the    *)
(*           next unlock() settles it (ReleaseSettles).                    *)
(*                                                                         *)
(* Knobs (the code: SettleCas, UnlockWait = "bounded", HeldUntilReleased,  *)
(* ReleaseSettles, SlotRewrite = "onError"):                               *)
(*  SettleCas = FALSE: the reviewed lock(): a timed-out CAS is forgotten   *)
(*    (the old Endpoint retired its QP, RETIRE_ON_TIMEOUT) and the next    *)
(*    lock() starts again from CAS(0 -> me).                               *)
(*  UnlockWait = "unbounded": the reviewed unlock() spins on next_t for    *)
(*    ever.                                                                *)
(*  HeldUntilReleased = FALSE: the reviewed unlock() let go (held = false) *)
(*    before the flush: a flush that throws leaves the lock to nobody.     *)
(*  ReleaseSettles = FALSE: the code before unlock() settled its own       *)
(*    timed-out release CAS: the next lock() settled it as an acquiring    *)
(*    CAS that expected me, and its result, me, made the handle its own    *)
(*    predecessor [PendLock].                                              *)
(*  SlotRewrite: when the slot is written again before a tail CAS.         *)
(*    "never" (the reviewed code), "onError" (the code: the slot WRITE     *)
(*    threw, or the QP epoch to the home changed; the epoch moves only     *)
(*    when the Endpoint replaces the QP, at the next verb to the home,     *)
(*    which is the CAS itself, so a QP that broke after the slot WRITE     *)
(*    was acknowledged is not seen), "onBreak" (the QP that carried the    *)
(*    slot WRITE broke: what the code means to do; the Endpoint must look  *)
(*    at the QP's state, as its flush does, before the epoch is compared). *)
(*                                                                         *)
(* Abstractions. A timed-out WRITE is acknowledged later and lands (the   *)
(* QP is not retired): the model moves it to pend at the timeout (it can  *)
(* no longer be lost by a later QP error; with one fault there is none).  *)
(* A READ's timeout is not modelled (a READ posted again on the same QP   *)
(* is what its QP error does, without the lost mark). Two CASes of one    *)
(* handle in flight on the home QP (a release CAS posted again behind a   *)
(* timed-out one) execute in order (R9): the model waits for the first's  *)
(* completion before posting the second. The slot is read at most once   *)
(* per peer (qnodes is a cache); the release's casTail rewrites no slot.  *)
(*                                                                         *)
(* Checked: TypeOK, MutualExclusion (InCS: the critical section and the   *)
(* lock PublicationLost keeps), HeldExclusive (also the release until its *)
(* verb is posted: a handle that holds the lock by its own account),      *)
(* Publication (every critical-section READ returns the last              *)
(* critical-section WRITE), NoSelfLink, LockNotLost (a live idle handle   *)
(* is never the tail), SlotsPlaced (a slot READ never returns an          *)
(* unwritten slot), UnlockCanEnd, StarvationFreedomUnlessStuck,          *)
(* DeadlockFreedomUnlessStuck, UnlockEnds.                                 *)
(*                                                                         *)
(* Models (MCMcsLockFaults.tla; the README has the table and the traces):  *)
(* the code holds with the faults it handles (MCMcsLockFaults, *FaultsFull, *)
(* *FaultsSlotsFull with onBreak, *FaultsLiveFull, *RelCasFull); the       *)
(* review's twins fail (MCMcsLockUnboundedUnlock[Full], ReleaseFirst,       *)
(* SelfLink, SlotNeverFull); and so does the code where a verb of the      *)
(* release or a queue link has an unknown outcome or is posted twice       *)
(* (SlotEpoch, ReleaseError, HandoverTimeoutFull, LinkTimeoutFull).        *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Id,                 \* Id[t]: thread t's queue index + 1 (positive, unique)
    QLocked,            \* QLocked[t]: the word locked_t of t's queue node (on t's node)
    QNext,              \* QNext[t]: the word next_t
    SlotOf,             \* SlotOf[t]: t's slot word on Home (used when Slots)
    Home,               \* the node of the tail word (and the slots)
    DataNode,           \* the node of d
    Slots,              \* TRUE: model the slot WRITEs and READs
    SlotRewrite,        \* "never", "onError", "onBreak"
    SettleCas,          \* TRUE: a timed-out tail CAS is settled by the next call
    UnlockWait,         \* "bounded" or "unbounded"
    HeldUntilReleased,  \* TRUE: a failed flush leaves the lock held
    ReleaseSettles,     \* TRUE: unlock() settles a timed-out release CAS of its own (else the next lock() does)
    FaultyVerbs         \* the verbs faults may hit: "slot", "acqcas", "link", "cs", "flush", "relcas", "hand", "acked"

VARIABLES
    pc,         \* pc[t], see the header
    exp,        \* exp[t]: the value the acquiring CAS expects
    pred,       \* pred[t]: the predecessor's id (the acquiring CAS's result)
    succ,       \* succ[t]: the successor's id the release hands over to
    pu,         \* pu[t]: a tail CAS of t had an unknown outcome (positionUnknown)
    pk,         \* pk[t]: "none"; "relpending": a timed-out release CAS is in flight (op[t]); "rel": it completed
    pv,         \* pv[t]: its result (-1: an error)
    slotOk,     \* slotOk[t]: no slot rewrite is due
    known,      \* known[t]: the ids whose slot t has read (cached)
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale,      \* ghost: a critical-section READ returned another value
    badSlot     \* ghost: a slot READ returned an unwritten slot

protoVars == <<pc, exp, pred, succ, pu, pk, pv, slotOk, known, pub, stale, badSlot>>
vars == <<allVerbVars, protoVars>>

ASSUME /\ DataNode # Home
       /\ SlotRewrite \in {"never", "onError", "onBreak"} /\ UnlockWait \in {"bounded", "unbounded"}
       /\ SettleCas \in BOOLEAN /\ HeldUntilReleased \in BOOLEAN /\ Slots \in BOOLEAN /\ ReleaseSettles \in BOOLEAN
       /\ SettleCas = ~RETIRE_ON_TIMEOUT /\ TRACK_PUBLICATION
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode}
                             /\ HomeOf[QLocked[t]] = NodeOf[t] /\ HomeOf[QNext[t]] = NodeOf[t]
                             /\ HomeOf[SlotOf[t]] = Home

ThreadOf(i) == CHOOSE t \in Threads : Id[t] = i
Ids == {Id[t] : t \in Threads}

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> IF Slots THEN "attach" ELSE "idle"]
    /\ exp = [t \in Threads |-> 0]
    /\ pred = [t \in Threads |-> 0]
    /\ succ = [t \in Threads |-> 0]
    /\ pu = [t \in Threads |-> FALSE]
    /\ pk = [t \in Threads |-> "none"]
    /\ pv = [t \in Threads |-> 0]
    /\ slotOk = [t \in Threads |-> TRUE]
    /\ known = [t \in Threads |-> IF Slots THEN {Id[t]} ELSE Ids]
    /\ pub = InitMem["d"]
    /\ stale = FALSE
    /\ badSlot = FALSE

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
Done(t) == Completed(t) \/ Failed(t)
Set(f, t, v) == [f EXCEPT ![t] = v]
KeepG == UNCHANGED <<pub, stale, badSlot>>

(***************************************************************************)
(* attach: the slot WRITE (Slots).                                         *)
(***************************************************************************)
Attach(t) ==
    /\ Live(t) /\ pc[t] = "attach" /\ CanPost(t)
    /\ Post(t, PutOp(SlotOf[t], 1)) /\ Go(t, "attachw") /\ slotOk' = Set(slotOk, t, TRUE)
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, known>> /\ KeepG

(* The reviewed code had no handle if the slot WRITE threw (attach again).  *)
AttachDone(t) ==
    /\ Live(t) /\ pc[t] = "attachw" /\ Done(t)
    /\ Post(t, NoOp)
    /\ IF Failed(t) /\ SlotRewrite = "never" THEN Go(t, "attach") ELSE Go(t, "idle")
    /\ slotOk' = Set(slotOk, t, slotOk[t] /\ Completed(t))   \* onBreak: a break since the post cleared it
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, known>> /\ KeepG

(***************************************************************************)
(* lock()                                                                  *)
(***************************************************************************)
(* A fresh lock(): initialise the queue node (CPU stores, R1), e := 0. A     *)
(* handle whose tail CAS had an unknown outcome refuses.                    *)
InitNode(t) ==
    /\ Live(t) /\ pc[t] = "idle" /\ pk[t] # "rel"
    /\ IF pu[t]
       THEN Go(t, "refused") /\ UNCHANGED <<sb, exp>>
       ELSE /\ sb' = [sb EXCEPT ![t] = @ \o <<[loc |-> QLocked[t], val |-> 1], [loc |-> QNext[t], val |-> 0]>>]
            /\ exp' = Set(exp, t, 0) /\ Go(t, "init")
    /\ UNCHANGED <<mem, pend, op, faultVars, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* lock() with an unsettled tail CAS that was a release CAS (pendingCas):   *)
(* the code settles it as an acquiring CAS that expected me; no node        *)
(* initialisation.                                                          *)
PendLock(t) ==
    /\ Live(t) /\ pc[t] = "idle" /\ pk[t] = "rel"
    /\ pk' = Set(pk, t, "none")
    /\ CASE pu[t] \/ pv[t] = -1 -> Go(t, "refused") /\ UNCHANGED <<exp, pred, pu>>
         [] pv[t] = Id[t]       -> pred' = Set(pred, t, Id[t]) /\ Go(t, "link") /\ UNCHANGED <<exp, pu>>
         [] OTHER               -> exp' = Set(exp, t, pv[t]) /\ Go(t, "init") /\ UNCHANGED <<pred, pu>>
    /\ UNCHANGED <<allVerbVars, succ, pv, slotOk, known>> /\ KeepG

(* casTail: the slot WRITE again if due, then CAS(tail, e -> me) (R2: the   *)
(* node's stores are drained, CanPost; R7: the CAS follows the slot WRITE   *)
(* of its QP).                                                              *)
PostCas(t) ==
    /\ Live(t) /\ pc[t] = "init" /\ CanPost(t)
    /\ IF Slots /\ ~slotOk[t] /\ SlotRewrite # "never"
       THEN Post(t, PutOp(SlotOf[t], 1)) /\ Go(t, "slotw") /\ slotOk' = Set(slotOk, t, TRUE)
       ELSE Post(t, CasOp("tail", exp[t], Id[t])) /\ Go(t, "cas") /\ UNCHANGED slotOk
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, known>> /\ KeepG

(* The slot WRITE again: done, the CAS next; an error: lock() throws, the   *)
(* caller calls lock() again.                                               *)
SlotWDone(t) ==
    /\ Live(t) /\ pc[t] = "slotw" /\ Done(t)
    /\ Post(t, NoOp)
    /\ IF Completed(t) THEN Go(t, "init") ELSE Go(t, "idle")
    /\ slotOk' = Set(slotOk, t, slotOk[t] /\ Completed(t))
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, known>> /\ KeepG

CasDone(t) ==
    LET old == Result(t) IN
    /\ Live(t) /\ pc[t] = "cas" /\ Done(t)
    /\ CASE Completed(t) /\ old = exp[t] /\ old = 0 ->
              Post(t, GetOp("d")) /\ Go(t, "read") /\ UNCHANGED <<exp, pred, pu>>
         [] Completed(t) /\ old = exp[t] ->
              Post(t, NoOp) /\ pred' = Set(pred, t, old) /\ Go(t, "link") /\ UNCHANGED <<exp, pu>>
         [] Completed(t) ->
              Post(t, NoOp) /\ exp' = Set(exp, t, old) /\ Go(t, "init") /\ UNCHANGED <<pred, pu>>
         [] SettleCas ->        \* an error: whether the node is queued is unknown
              Post(t, NoOp) /\ pu' = Set(pu, t, TRUE) /\ Go(t, "refused") /\ UNCHANGED <<exp, pred>>
         [] OTHER ->            \* the reviewed lock(): it threw, the next lock() starts again
              Post(t, NoOp) /\ Go(t, "idle") /\ UNCHANGED <<exp, pred, pu>>
    /\ UNCHANGED <<succ, pk, pv, slotOk, known>> /\ KeepG

(* The CAS's wait times out: it stays unsettled (SettleCas) and the next    *)
(* call waits for it; the reviewed Endpoint retired its QP (the CAS may     *)
(* still land: a stray) and CasDone gives up.                               *)
CasTimeOut(t) ==
    /\ "acqcas" \in FaultyVerbs /\ pc[t] = "cas" /\ TimeOut(t)
    /\ IF SettleCas THEN Go(t, "unsettled") ELSE UNCHANGED pc
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

Resume(t) ==
    /\ Live(t) /\ pc[t] = "unsettled"
    /\ Go(t, "cas")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* qnodeOf: READ a peer's slot the first time (Slots).                      *)
SlotRead(t, who, back) ==
    Post(t, GetOp(SlotOf[ThreadOf(who)])) /\ Go(t, back)
SlotReadDone(t) ==
    LET who == IF pc[t] = "slotr" THEN pred[t] ELSE succ[t]
        back == IF pc[t] = "slotr" THEN "link" ELSE "rel2"
    IN
    /\ Live(t) /\ pc[t] \in {"slotr", "slotrs"} /\ Done(t)
    /\ Post(t, NoOp)
    /\ IF Completed(t) /\ Result(t) = 0
       THEN badSlot' = TRUE /\ Go(t, "corrupt") /\ UNCHANGED known
       ELSE IF Completed(t)
       THEN known' = Set(known, t, known[t] \cup {who}) /\ Go(t, back) /\ UNCHANGED badSlot
       ELSE Go(t, IF pc[t] = "slotr" THEN "link" ELSE "rel") /\ UNCHANGED <<known, badSlot>>
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, pub, stale>>

(* Link behind the predecessor.                                             *)
Link(t) ==
    /\ Live(t) /\ pc[t] = "link" /\ CanPost(t)
    /\ IF pred[t] \notin known[t]
       THEN SlotRead(t, pred[t], "slotr")
       ELSE Post(t, PutOp(QNext[ThreadOf(pred[t])], Id[t])) /\ Go(t, "linkw")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* The link WRITE: acknowledged, wait; an error: lock() throws and the next *)
(* lock() WRITEs it again.                                                  *)
LinkDone(t) ==
    /\ Live(t) /\ pc[t] = "linkw" /\ Done(t)
    /\ Post(t, NoOp) /\ Go(t, IF Completed(t) THEN "wait" ELSE "link")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* A WRITE whose wait times out: it stays on its QP and lands (acknowledged *)
(* later: in pend now); the thread goes on.                                 *)
WriteTimeOut(t, next) ==
    /\ "timeout" \in FAULTS /\ budget > 0 /\ Live(t) /\ op[t].kind = "put" /\ op[t].st = "posted"
    /\ budget' = budget - 1
    /\ pend' = [pend EXCEPT ![t][HomeOf[op[t].loc]] = Append(@, [loc |-> op[t].loc, val |-> op[t].val])]
    /\ op' = [op EXCEPT ![t] = NoOp]
    /\ Go(t, next)
    /\ UNCHANGED <<mem, sb, stray, crashed, dirty, lost>>
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

LinkTimeOut(t) == "link" \in FaultyVerbs /\ pc[t] = "linkw" /\ WriteTimeOut(t, "link")

(* The predecessor's handover WRITE has landed (CPU load of locked_t).      *)
Wake(t) ==
    /\ Live(t) /\ pc[t] = "wait" /\ CpuLoad(t, QLocked[t]) = 0 /\ CanPost(t)
    /\ Post(t, GetOp("d")) /\ Go(t, "read")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(***************************************************************************)
(* The critical section.                                                   *)
(***************************************************************************)
ReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ Live(t) /\ pc[t] = "read" /\ Done(t)
    /\ IF Completed(t)
       THEN /\ stale' = (stale \/ Result(t) # pub) /\ pub' = v
            /\ Post(t, PutOp("d", v)) /\ Go(t, "write")
       ELSE Post(t, NoOp) /\ Go(t, "rel") /\ UNCHANGED <<pub, stale>>
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known, badSlot>>

WriteDone(t) ==
    /\ Live(t) /\ pc[t] = "write" /\ Done(t)
    /\ Post(t, NoOp) /\ Go(t, "rel")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

CsTimeOut(t) == "cs" \in FaultyVerbs /\ pc[t] = "write" /\ WriteTimeOut(t, "rel")

(***************************************************************************)
(* unlock()                                                                *)
(***************************************************************************)
(* The release verb once flushed: CAS(tail, me -> 0), or the handover.      *)
(* ReleaseSettles (the code): a release CAS of an earlier unlock() that     *)
(* completed late (pk "rel") is this release's CAS: its result decides, and *)
(* it is gone (an error: pu, and the CAS is posted again).                  *)
Settles(t) == ReleaseSettles /\ pk[t] = "rel"
RelVerb(t, s) ==
    CASE s # 0 ->
           /\ Post(t, PutOp(QLocked[ThreadOf(s)], 0)) /\ Go(t, "hand")
           /\ pk' = IF Settles(t) THEN Set(pk, t, "none") ELSE pk
      [] Settles(t) /\ pv[t] \in {Id[t], 0} ->
           Post(t, NoOp) /\ Go(t, "idle") /\ pk' = Set(pk, t, "none")
      [] Settles(t) /\ pv[t] # -1 ->
           Post(t, NoOp) /\ Go(t, "relwait") /\ pk' = Set(pk, t, "none")
      [] OTHER ->
           /\ Post(t, CasOp("tail", Id[t], 0)) /\ Go(t, "relcas")
           /\ pk' = IF Settles(t) THEN Set(pk, t, "none") ELSE pk
(* Endpoint.flush: PublicationLost first, then the READ of d if the         *)
(* critical section wrote it (R7: it completes once that WRITE is placed).  *)
Flush(t, s) ==
    CASE PublicationLost(t)   -> Post(t, NoOp) /\ Go(t, "lostpub") /\ UNCHANGED pk
      [] dirty[t][DataNode]   -> Post(t, GetOp("d")) /\ Go(t, "flush") /\ UNCHANGED pk
      [] OTHER                -> RelVerb(t, s)

(* unlock() (again): collect a timed-out release CAS first (R9: a CAS      *)
(* posted again on its QP executes after it).                              *)
Collect(t) ==
    /\ Live(t) /\ pc[t] = "rel" /\ pk[t] = "relpending" /\ Done(t)
    /\ pk' = Set(pk, t, "rel")
    /\ pv' = Set(pv, t, IF Completed(t) THEN Result(t) ELSE -1)
    /\ pu' = Set(pu, t, pu[t] \/ Failed(t))
    /\ Post(t, NoOp)
    /\ UNCHANGED <<pc, exp, pred, succ, slotOk, known>> /\ KeepG

Release(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ Live(t) /\ pc[t] = "rel" /\ pk[t] # "relpending" /\ CanPost(t)
    /\ succ' = Set(succ, t, s)
    /\ IF s # 0 /\ s \notin known[t] THEN SlotRead(t, s, "slotrs") /\ UNCHANGED pk ELSE Flush(t, s)
    /\ UNCHANGED <<exp, pred, pu, pv, slotOk, known>> /\ KeepG

(* After the successor's slot READ (Slots).                                 *)
Release2(t) ==
    /\ Live(t) /\ pc[t] = "rel2" /\ CanPost(t)
    /\ Flush(t, succ[t])
    /\ UNCHANGED <<exp, pred, succ, pu, pv, slotOk, known>> /\ KeepG

(* The flush READ: done, the release verb; an error: unlock() throws, the   *)
(* handle holds the lock and the caller calls unlock() again (the reviewed  *)
(* unlock() had let go already: the lock is nobody's).                     *)
FlushDone(t) ==
    /\ Live(t) /\ pc[t] = "flush" /\ Done(t)
    /\ IF Completed(t) THEN RelVerb(t, succ[t])
       ELSE Post(t, NoOp) /\ Go(t, IF HeldUntilReleased THEN "rel" ELSE "idle") /\ UNCHANGED pk
    /\ UNCHANGED <<exp, pred, succ, pu, pv, slotOk, known>> /\ KeepG

(* The release CAS: me (or 0: a reset) freed the lock; another value: a     *)
(* successor swapped the tail, wait for its link. An error: unlock()        *)
(* throws, the handle holds and may no longer queue (pu).                   *)
RelCasDone(t) ==
    LET old == Result(t) IN
    /\ Live(t) /\ pc[t] = "relcas" /\ Done(t)
    /\ Post(t, NoOp)
    /\ CASE Failed(t)                   -> Go(t, "rel") /\ pu' = Set(pu, t, TRUE)
         [] old = Id[t] \/ old = 0      -> Go(t, "idle") /\ UNCHANGED pu
         [] OTHER                       -> Go(t, "relwait") /\ UNCHANGED pu
    /\ UNCHANGED <<exp, pred, succ, pk, pv, slotOk, known>> /\ KeepG

(* The release CAS's wait times out: kept as the handle's unsettled CAS;   *)
(* unlock() throws, the handle holds, the caller calls unlock() again.     *)
RelCasTimeOut(t) ==
    /\ "relcas" \in FaultyVerbs /\ pc[t] = "relcas" /\ TimeOut(t)
    /\ pk' = Set(pk, t, "relpending") /\ Go(t, "rel")
    /\ UNCHANGED <<exp, pred, succ, pu, pv, slotOk, known>> /\ KeepG

(* Waiting for the successor's link, then the flush again and handover.    *)
RelWait(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ Live(t) /\ pc[t] = "relwait" /\ s # 0 /\ CanPost(t)
    /\ succ' = Set(succ, t, s)
    /\ IF s \notin known[t] THEN SlotRead(t, s, "slotrs") /\ UNCHANGED pk ELSE Flush(t, s)
    /\ UNCHANGED <<exp, pred, pu, pv, slotOk, known>> /\ KeepG

(* The wait's budget passes (no fault: time): unlock() throws, the handle   *)
(* holds the lock; the caller calls unlock() again.                         *)
UnlockExpire(t) ==
    /\ UnlockWait = "bounded" /\ Live(t) /\ pc[t] = "relwait" /\ CpuLoad(t, QNext[t]) = 0
    /\ Go(t, "rel")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* The handover WRITE: acknowledged, released; an error: unlock() throws,   *)
(* the handle holds, the caller calls unlock() again.                       *)
HandDone(t) ==
    /\ Live(t) /\ pc[t] = "hand" /\ Done(t)
    /\ Post(t, NoOp) /\ Go(t, IF Completed(t) THEN "idle" ELSE "rel")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

HandTimeOut(t) == "hand" \in FaultyVerbs /\ pc[t] = "hand" /\ WriteTimeOut(t, "rel")

(* Terminal: PublicationLost keeps the lock; a refused handle; a corrupt   *)
(* queue node address (a stutter each, so that TLC sees no deadlock).       *)
Stop(t) == Live(t) /\ pc[t] \in {"lostpub", "refused", "corrupt"} /\ UNCHANGED vars
(* A crashed client may leave the others waiting for ever (not tolerated). *)
Halted == crashed # {} /\ UNCHANGED vars

FairThread(t) ==
    \/ Attach(t) \/ AttachDone(t) \/ InitNode(t) \/ PendLock(t) \/ PostCas(t) \/ SlotWDone(t) \/ CasDone(t)
    \/ Resume(t) \/ SlotReadDone(t) \/ Link(t) \/ LinkDone(t) \/ Wake(t) \/ ReadDone(t) \/ WriteDone(t)
    \/ Collect(t) \/ Release(t) \/ Release2(t) \/ FlushDone(t) \/ RelCasDone(t) \/ RelWait(t) \/ HandDone(t)
ThreadFaults(t) ==
    CasTimeOut(t) \/ LinkTimeOut(t) \/ CsTimeOut(t) \/ RelCasTimeOut(t) \/ HandTimeOut(t)

(* Which verb a QP error may hit: the verb of t on that QP, or ("acked")   *)
(* only acknowledged WRITEs or the dirty mark.                              *)
Label(t) ==
    CASE pc[t] \in {"attachw", "slotw", "slotr", "slotrs"} -> "slot"
      [] pc[t] \in {"cas", "unsettled"}                   -> "acqcas"
      [] pc[t] = "linkw"                                  -> "link"
      [] pc[t] \in {"read", "write"}                      -> "cs"
      [] pc[t] = "flush"                                  -> "flush"
      [] pc[t] = "relcas" \/ pk[t] = "relpending"         -> "relcas"
      [] pc[t] = "hand"                                   -> "hand"
      [] OTHER                                            -> "none"
QpWhere(t, n) == IF OnQp(t, n) THEN Label(t) \in FaultyVerbs ELSE "acked" \in FaultyVerbs

(* slotOk after a QP error of t to the home, as SlotRewrite sees it.        *)
SlotSeen(t, n) ==
    slotOk' = IF Slots /\ SlotRewrite = "onBreak" /\ n = Home
              THEN Set(slotOk, t, FALSE) ELSE slotOk

Next ==
    \/ \E t \in Threads : FairThread(t) \/ ThreadFaults(t) \/ UnlockExpire(t) \/ Stop(t)
    \/ \E t \in Threads : Crash(t) /\ UNCHANGED protoVars
    \/ Halted
    \/ FaultsNicStepWhere(LAMBDA t, n : FALSE) /\ UNCHANGED protoVars
    \/ \E t \in Threads, n \in Nodes :
          QpWhere(t, n) /\ QpError(t, n) /\ SlotSeen(t, n)
          /\ UNCHANGED <<pc, exp, pred, succ, pu, pk, pv, known, pub, stale, badSlot>>

Spec == Init /\ [][Next]_vars /\ FaultsFairness
        /\ \A t \in Threads : WF_vars(FairThread(t) \/ UnlockExpire(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
(* InCS: the critical section, and the lock PublicationLost keeps (the     *)
(* caller may repair the data under it). Holding: also the release until    *)
(* its verb is posted and the wait for a successor's link, which is where   *)
(* unlock() leaves a handle that "still holds the lock" after it threw.    *)
InCS(t) == pc[t] \in {"read", "write", "lostpub"}
Holding(t) == InCS(t) \/ pc[t] \in {"rel", "rel2", "slotrs", "flush", "relwait"}
MutualExclusion == \A t, u \in Threads : InCS(t) /\ InCS(u) => t = u
(* A handle that holds the lock by its own account holds it alone.         *)
HeldExclusive == \A t, u \in Threads : Holding(t) /\ Holding(u) => t = u

Publication == ~stale

NoSelfLink == \A t \in Threads : pc[t] \in {"link", "slotr", "linkw", "wait"} => pred[t] # Id[t]

(* Nobody frees a tail that names a live idle handle.                      *)
LockNotLost == \A t \in Threads : Live(t) /\ pc[t] = "idle" /\ pk[t] = "none" => mem["tail"] # Id[t]

SlotsPlaced == ~badSlot

(* What the code does not tolerate: a crashed client that was not idle, a  *)
(* handle that refused further use (its CAS may have queued it), the lock   *)
(* PublicationLost keeps.                                                    *)
Stuck == \/ \E c \in crashed : pc[c] # "idle"
         \/ \E u \in Threads : pc[u] \in {"refused", "lostpub"}
Enqueued(t) == pc[t] \in {"link", "slotr", "linkw", "wait"}
Trying(t) == pc[t] \in {"init", "slotw", "cas", "unsettled"} \/ Enqueued(t)
StarvationFreedomUnlessStuck ==
    \A t \in Threads : (Live(t) /\ Enqueued(t)) ~> (Holding(t) \/ ~Live(t) \/ Stuck)
DeadlockFreedomUnlessStuck ==
    (\E t \in Threads : Live(t) /\ Trying(t)) ~> ((\E t \in Threads : Live(t) /\ Holding(t)) \/ Stuck)
(* A link to t may still come: a live successor that learnt or will learn  *)
(* t as its predecessor and has not linked, or a link WRITE in flight (a   *)
(* crashed client's acknowledged WRITEs still land).                        *)
LinkTo(t, w) == w.loc = QNext[t]
LinkComing(t) ==
    \E u \in Threads \ {t} :
        \/ Live(u) /\ pred[u] = Id[t] /\ pc[u] \in {"link", "slotr", "linkw"}
        \/ Live(u) /\ pc[u] \in {"cas", "unsettled"} /\ op[u].kind = "cas" /\ op[u].st = "done"
           /\ op[u].old = Id[t] /\ exp[u] = Id[t]
        \/ \E i \in DOMAIN pend[u][NodeOf[t]] : LinkTo(t, pend[u][NodeOf[t]][i])
        \/ \E r \in stray : r.t = u /\ (LinkTo(t, r.last) \/ \E i \in DOMAIN r.puts : LinkTo(t, r.puts[i]))
(* The state form of UnlockEnds: a handle waiting in unlock() for a link   *)
(* that nobody will write can still return (the bounded wait).             *)
UnlockCanEnd ==
    \A t \in Threads : Live(t) /\ pc[t] = "relwait" /\ CpuLoad(t, QNext[t]) = 0
                       => UnlockWait = "bounded" \/ LinkComing(t)
(* unlock() returns or throws: its wait for a successor's link ends.        *)
UnlockEnds == \A t \in Threads : (Live(t) /\ pc[t] = "relwait") ~> (pc[t] # "relwait" \/ ~Live(t))
=============================================================================
