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
(*           further use [refused]. A link WRITE whose wait timed out is   *)
(*           kept unsettled (pw) and the next lock() settles it, never     *)
(*           posting it twice (SettleWrites); one that failed (unknown     *)
(*           outcome) makes the handle refuse further use, still queued    *)
(*           (UnknownRefuses).                                             *)
(*  CS       [read, write] READ d, WRITE d := 1 - value. A verb that       *)
(*           throws ends it (the caller's finally calls unlock()).         *)
(*  unlock() [rel] s := CPU load next_t; flush: PublicationLost ->        *)
(*           [lostpub], the caller keeps the lock (as in                   *)
(*           CasSpinLockFaults); else READ d if the critical section       *)
(*           wrote it [flush]; then s = 0: CAS(tail, me -> 0) [relcas]:    *)
(*           me or 0: free; else wait for next_t [relwait], within a       *)
(*           budget (UnlockWait = "bounded": UnlockExpire, unlock()        *)
(*           throws and the handle holds the lock), then flush again and   *)
(*           hand over; s # 0: WRITE locked_s := 0 [hand]. A flush that    *)
(*           throws leaves the handle holding (HeldUntilReleased): the     *)
(*           caller calls unlock() again. A release CAS or handover WRITE  *)
(*           whose QP failed (it may have passed the lock on) makes the    *)
(*           handle drop the lock and refuse further use [refused]         *)
(*           (UnknownRefuses); one whose wait timed out is kept unsettled  *)
(*           (a CAS: pk, pv, the code's pendingCas; a WRITE: pw, its       *)
(*           pendingHandover), unlock() throws, the handle holds by its    *)
(*           own account, and the next unlock() settles it first           *)
(*           (ReleaseSettles, SettleWrites; ReleaseInDoubt meanwhile).     *)
(*                                                                         *)
(* Knobs (the code: SettleCas, UnlockWait = "bounded", HeldUntilReleased,  *)
(* ReleaseSettles, UnknownRefuses, SettleWrites, SlotRewrite = "onBreak"): *)
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
(*  UnknownRefuses = FALSE: the code before the fix: after a release CAS   *)
(*    or handover WRITE whose QP failed the handle kept holding the lock   *)
(*    and the next unlock() posted the verb again; a failed link WRITE was *)
(*    posted again by the next lock().                                     *)
(*  SettleWrites = FALSE: the code before the fix: a timed-out handover    *)
(*    or link WRITE was posted again by the next unlock() or lock(), and   *)
(*    the late first copy could land in the peer's next wait or tenure.    *)
(*  SlotRewrite: when the slot is written again before a tail CAS.         *)
(*    "never" (the reviewed code); "onError" (the code before the fix: the *)
(*    slot WRITE threw, or the QP epoch to the home changed, which it did  *)
(*    only when the Endpoint replaced the QP at the next verb to the home, *)
(*    the CAS itself, so a QP that broke after the slot WRITE was          *)
(*    acknowledged was not seen); "onBreak" (the code: the QP that carried *)
(*    the slot WRITE broke since; Endpoint.queuePairEpoch first replaces a *)
(*    home QP that has left RTS, so the check sees every earlier break).   *)
(*                                                                         *)
(* Abstractions. A timed-out WRITE is acknowledged later and lands (the   *)
(* QP is not retired): the model moves it to pend at the timeout (it can  *)
(* no longer be lost by a later QP error; with one fault there is none),   *)
(* so settling it finds it completed (a WRITE refused before it executed,  *)
(* which Java posts again, or one whose QP fails after its timeout, needs  *)
(* a second fault). A READ's timeout is not modelled (a READ posted again  *)
(* on the same QP is what its QP error does, without the lost mark). Two   *)
(* CASes of one handle in flight on the home QP (a release CAS posted      *)
(* again behind a timed-out one) execute in order (R9): the model waits    *)
(* for the first's completion before posting the second. The slot is read  *)
(* at most once per peer (qnodes is a cache); the release's casTail        *)
(* rewrites no slot. tryLock() is not modelled (it settles a pending link  *)
(* as lock() does).                                                        *)
(*                                                                         *)
(* Checked: TypeOK, MutualExclusion (InCS: the critical section and the   *)
(* lock PublicationLost keeps), HeldExclusive (also the release until its *)
(* verb is posted: a handle that holds the lock by its own account),      *)
(* HeldExclusiveSettled (the same for handles whose release verb is not    *)
(* in doubt), Publication (every critical-section READ returns the last    *)
(* critical-section WRITE), NoSelfLink, LockNotLost (a live idle handle   *)
(* is never the tail; refused handles exempt), SlotsPlaced (a slot READ    *)
(* never returns an unwritten slot), UnlockCanEnd,                         *)
(* StarvationFreedomUnlessStuck, DeadlockFreedomUnlessStuck, UnlockEnds.   *)
(*                                                                         *)
(* Models (MCMcsLockFaults.tla; the README has the table and the traces):  *)
(* the code holds with the faults it handles (MCMcsLockFaults, *FaultsFull, *)
(* *FaultsSlotsFull, *FaultsLiveFull, *RelCasFull, *SettleLiveFull (liveness *)
(* with link and handover timeouts) and *QueueVerbsFull:                  *)
(* timeouts and QP errors of the slot, link and release verbs); the        *)
(* review's twins fail (MCMcsLockUnboundedUnlock[Full], ReleaseFirst,       *)
(* SelfLink, SlotNeverFull); so do the twins of the code before the fix    *)
(* (SlotEpoch, RelCasTimeout, ReleaseError, HandoverTimeoutFull,           *)
(* LinkTimeoutFull); and the code fails HeldExclusive after a release      *)
(* verb's timeout (ReleaseTimeoutFull: ReleaseInDoubt).                    *)
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
    UnknownRefuses,     \* TRUE: a release verb or link WRITE with an unknown outcome drops the lock and refuses
    SettleWrites,       \* TRUE: a timed-out link or handover WRITE is settled by the next call, never posted again
    FaultyVerbs         \* the verbs faults may hit: "slot", "acqcas", "link", "cs", "flush", "relcas", "hand", "acked"

VARIABLES
    pc,         \* pc[t], see the header
    exp,        \* exp[t]: the value the acquiring CAS expects
    pred,       \* pred[t]: the predecessor's id (the acquiring CAS's result)
    succ,       \* succ[t]: the successor's id the release hands over to
    pu,         \* pu[t]: a tail CAS of t had an unknown outcome (positionUnknown)
    pk,         \* pk[t]: "none"; "relpending": a timed-out release CAS is in flight (op[t]); "rel": it completed
    pv,         \* pv[t]: its result (-1: an error)
    pw,         \* pw[t]: "none", "link" or "hand": a timed-out WRITE of t that the next call settles (SettleWrites)
    slotOk,     \* slotOk[t]: no slot rewrite is due
    known,      \* known[t]: the ids whose slot t has read (cached)
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale,      \* ghost: a critical-section READ returned another value
    badSlot     \* ghost: a slot READ returned an unwritten slot

protoVars == <<pc, exp, pred, succ, pu, pk, pv, pw, slotOk, known, pub, stale, badSlot>>
vars == <<allVerbVars, protoVars>>

ASSUME /\ DataNode # Home
       /\ SlotRewrite \in {"never", "onError", "onBreak"} /\ UnlockWait \in {"bounded", "unbounded"}
       /\ SettleCas \in BOOLEAN /\ HeldUntilReleased \in BOOLEAN /\ Slots \in BOOLEAN /\ ReleaseSettles \in BOOLEAN
       /\ UnknownRefuses \in BOOLEAN /\ SettleWrites \in BOOLEAN
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
    /\ pw = [t \in Threads |-> "none"]
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
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, known>> /\ KeepG

(* The reviewed code had no handle if the slot WRITE threw (attach again).  *)
AttachDone(t) ==
    /\ Live(t) /\ pc[t] = "attachw" /\ Done(t)
    /\ Post(t, NoOp)
    /\ IF Failed(t) /\ SlotRewrite = "never" THEN Go(t, "attach") ELSE Go(t, "idle")
    /\ slotOk' = Set(slotOk, t, slotOk[t] /\ Completed(t))   \* onBreak: a break since the post cleared it
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, known>> /\ KeepG

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
    /\ UNCHANGED <<mem, pend, op, faultVars, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

(* lock() with an unsettled tail CAS that was a release CAS (pendingCas):   *)
(* the code settles it as an acquiring CAS that expected me; no node        *)
(* initialisation.                                                          *)
PendLock(t) ==
    /\ Live(t) /\ pc[t] = "idle" /\ pk[t] = "rel"
    /\ pk' = Set(pk, t, "none")
    /\ CASE pu[t] \/ pv[t] = -1 -> Go(t, "refused") /\ UNCHANGED <<exp, pred, pu>>
         [] pv[t] = Id[t]       -> pred' = Set(pred, t, Id[t]) /\ Go(t, "link") /\ UNCHANGED <<exp, pu>>
         [] OTHER               -> exp' = Set(exp, t, pv[t]) /\ Go(t, "init") /\ UNCHANGED <<pred, pu>>
    /\ UNCHANGED <<allVerbVars, succ, pv, pw, slotOk, known>> /\ KeepG

(* casTail: the slot WRITE again if due, then CAS(tail, e -> me) (R2: the   *)
(* node's stores are drained, CanPost; R7: the CAS follows the slot WRITE   *)
(* of its QP).                                                              *)
PostCas(t) ==
    /\ Live(t) /\ pc[t] = "init" /\ CanPost(t)
    /\ IF Slots /\ ~slotOk[t] /\ SlotRewrite # "never"
       THEN Post(t, PutOp(SlotOf[t], 1)) /\ Go(t, "slotw") /\ slotOk' = Set(slotOk, t, TRUE)
       ELSE Post(t, CasOp("tail", exp[t], Id[t])) /\ Go(t, "cas") /\ UNCHANGED slotOk
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, known>> /\ KeepG

(* The slot WRITE again: done, the CAS next; an error: lock() throws, the   *)
(* caller calls lock() again.                                               *)
SlotWDone(t) ==
    /\ Live(t) /\ pc[t] = "slotw" /\ Done(t)
    /\ Post(t, NoOp)
    /\ IF Completed(t) THEN Go(t, "init") ELSE Go(t, "idle")
    /\ slotOk' = Set(slotOk, t, slotOk[t] /\ Completed(t))
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, known>> /\ KeepG

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
    /\ UNCHANGED <<succ, pk, pv, pw, slotOk, known>> /\ KeepG

(* The CAS's wait times out: it stays unsettled (SettleCas) and the next    *)
(* call waits for it; the reviewed Endpoint retired its QP (the CAS may     *)
(* still land: a stray) and CasDone gives up.                               *)
CasTimeOut(t) ==
    /\ "acqcas" \in FaultyVerbs /\ pc[t] = "cas" /\ TimeOut(t)
    /\ IF SettleCas THEN Go(t, "unsettled") ELSE UNCHANGED pc
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

Resume(t) ==
    /\ Live(t) /\ pc[t] = "unsettled"
    /\ Go(t, "cas")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

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
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, pub, stale>>

(* Link behind the predecessor.                                             *)
Link(t) ==
    /\ Live(t) /\ pc[t] = "link" /\ pw[t] = "none" /\ CanPost(t)
    /\ IF pred[t] \notin known[t]
       THEN SlotRead(t, pred[t], "slotr")
       ELSE Post(t, PutOp(QNext[ThreadOf(pred[t])], Id[t])) /\ Go(t, "linkw")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

(* lock() (again) with a timed-out link WRITE (SettleWrites): settled first, *)
(* never posted twice; it completed (see SettleHand), so the handle is      *)
(* linked and waits.                                                        *)
SettleLink(t) ==
    /\ Live(t) /\ pc[t] = "link" /\ pw[t] = "link"
    /\ pw' = Set(pw, t, "none") /\ Go(t, "wait")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* The link WRITE: acknowledged, wait; an error (its QP failed: it may land *)
(* at any time): lock() throws; UnknownRefuses (the code): the handle       *)
(* refuses further use (pu; it stays queued) [refused]; the code before the *)
(* fix WRITEs it again in the next lock().                                  *)
LinkDone(t) ==
    /\ Live(t) /\ pc[t] = "linkw" /\ Done(t)
    /\ Post(t, NoOp)
    /\ CASE Completed(t)   -> Go(t, "wait") /\ UNCHANGED pu
         [] UnknownRefuses -> Go(t, "refused") /\ pu' = Set(pu, t, TRUE)
         [] OTHER          -> Go(t, "link") /\ UNCHANGED pu
    /\ UNCHANGED <<exp, pred, succ, pk, pv, pw, slotOk, known>> /\ KeepG

(* A WRITE whose wait times out: it stays on its QP and lands (acknowledged *)
(* later: in pend now); the thread goes on. SettleWrites: the handle keeps   *)
(* it as unsettled (pw = what, "none" for the critical section's WRITEs).    *)
WriteTimeOut(t, next, what) ==
    /\ "timeout" \in FAULTS /\ budget > 0 /\ Live(t) /\ op[t].kind = "put" /\ op[t].st = "posted"
    /\ budget' = budget - 1
    /\ pend' = [pend EXCEPT ![t][HomeOf[op[t].loc]] = Append(@, [loc |-> op[t].loc, val |-> op[t].val])]
    /\ op' = [op EXCEPT ![t] = NoOp]
    /\ Go(t, next)
    /\ pw' = IF SettleWrites THEN Set(pw, t, what) ELSE pw
    /\ UNCHANGED <<mem, sb, stray, crashed, dirty, lost>>
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

(* The link WRITE's wait times out: lock() throws; SettleWrites (the code): *)
(* the next lock() settles it (SettleLink: it completed, so linked); the    *)
(* code before the fix WRITEs it again.                                     *)
LinkTimeOut(t) == "link" \in FaultyVerbs /\ pc[t] = "linkw" /\ WriteTimeOut(t, "link", "link")

(* The predecessor's handover WRITE has landed (CPU load of locked_t).      *)
Wake(t) ==
    /\ Live(t) /\ pc[t] = "wait" /\ CpuLoad(t, QLocked[t]) = 0 /\ CanPost(t)
    /\ Post(t, GetOp("d")) /\ Go(t, "read")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

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
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, known, badSlot>>

WriteDone(t) ==
    /\ Live(t) /\ pc[t] = "write" /\ Done(t)
    /\ Post(t, NoOp) /\ Go(t, "rel")
    /\ UNCHANGED <<exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

CsTimeOut(t) == "cs" \in FaultyVerbs /\ pc[t] = "write" /\ WriteTimeOut(t, "rel", "none")

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
(* posted again on its QP executes after it). Its QP failed (the outcome    *)
(* is unknown: it may have freed the tail): UnknownRefuses (the code) drops *)
(* the lock and refuses further use; the code before the fix kept holding   *)
(* and posted the CAS again.                                                *)
Collect(t) ==
    /\ Live(t) /\ pc[t] = "rel" /\ pk[t] = "relpending" /\ Done(t)
    /\ IF Failed(t) /\ UnknownRefuses
       THEN pk' = Set(pk, t, "none") /\ Go(t, "refused") /\ UNCHANGED pv
       ELSE pk' = Set(pk, t, "rel") /\ pv' = Set(pv, t, IF Completed(t) THEN Result(t) ELSE -1) /\ UNCHANGED pc
    /\ pu' = Set(pu, t, pu[t] \/ Failed(t))
    /\ Post(t, NoOp)
    /\ UNCHANGED <<exp, pred, succ, pw, slotOk, known>> /\ KeepG

(* unlock() (again) with a timed-out handover WRITE (SettleWrites): settle  *)
(* it first, never post it twice. The model moved it to the acknowledged    *)
(* WRITEs at the timeout (it completed), so the release is done. (In Java a *)
(* WRITE refused before it executed is posted again, and one whose QP       *)
(* failed is a release verb with an unknown outcome; neither can follow a   *)
(* posted WRITE's timeout with one fault.)                                  *)
SettleHand(t) ==
    /\ Live(t) /\ pc[t] = "rel" /\ pw[t] = "hand"
    /\ pw' = Set(pw, t, "none") /\ Go(t, "idle")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, slotOk, known>> /\ KeepG

Release(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ Live(t) /\ pc[t] = "rel" /\ pk[t] # "relpending" /\ pw[t] = "none" /\ CanPost(t)
    /\ succ' = Set(succ, t, s)
    /\ IF s # 0 /\ s \notin known[t] THEN SlotRead(t, s, "slotrs") /\ UNCHANGED pk ELSE Flush(t, s)
    /\ UNCHANGED <<exp, pred, pu, pv, pw, slotOk, known>> /\ KeepG

(* After the successor's slot READ (Slots).                                 *)
Release2(t) ==
    /\ Live(t) /\ pc[t] = "rel2" /\ CanPost(t)
    /\ Flush(t, succ[t])
    /\ UNCHANGED <<exp, pred, succ, pu, pv, pw, slotOk, known>> /\ KeepG

(* The flush READ: done, the release verb; an error: unlock() throws, the   *)
(* handle holds the lock and the caller calls unlock() again (the reviewed  *)
(* unlock() had let go already: the lock is nobody's).                     *)
FlushDone(t) ==
    /\ Live(t) /\ pc[t] = "flush" /\ Done(t)
    /\ IF Completed(t) THEN RelVerb(t, succ[t])
       ELSE Post(t, NoOp) /\ Go(t, IF HeldUntilReleased THEN "rel" ELSE "idle") /\ UNCHANGED pk
    /\ UNCHANGED <<exp, pred, succ, pu, pv, pw, slotOk, known>> /\ KeepG

(* The release CAS: me (or 0: a reset) freed the lock; another value: a     *)
(* successor swapped the tail, wait for its link. An error (its QP failed:  *)
(* it may have freed the tail): unlock() throws and the handle may no       *)
(* longer queue (pu); UnknownRefuses (the code) drops the lock [refused],   *)
(* the code before the fix kept holding it [rel].                           *)
RelCasDone(t) ==
    LET old == Result(t) IN
    /\ Live(t) /\ pc[t] = "relcas" /\ Done(t)
    /\ Post(t, NoOp)
    /\ CASE Failed(t)                   -> Go(t, IF UnknownRefuses THEN "refused" ELSE "rel") /\ pu' = Set(pu, t, TRUE)
         [] old = Id[t] \/ old = 0      -> Go(t, "idle") /\ UNCHANGED pu
         [] OTHER                       -> Go(t, "relwait") /\ UNCHANGED pu
    /\ UNCHANGED <<exp, pred, succ, pk, pv, pw, slotOk, known>> /\ KeepG

(* The release CAS's wait times out: kept as the handle's unsettled CAS;   *)
(* unlock() throws, the handle holds, the caller calls unlock() again.     *)
RelCasTimeOut(t) ==
    /\ "relcas" \in FaultyVerbs /\ pc[t] = "relcas" /\ TimeOut(t)
    /\ pk' = Set(pk, t, "relpending") /\ Go(t, "rel")
    /\ UNCHANGED <<exp, pred, succ, pu, pv, pw, slotOk, known>> /\ KeepG

(* Waiting for the successor's link, then the flush again and handover.    *)
RelWait(t) ==
    LET s == CpuLoad(t, QNext[t]) IN
    /\ Live(t) /\ pc[t] = "relwait" /\ s # 0 /\ CanPost(t)
    /\ succ' = Set(succ, t, s)
    /\ IF s \notin known[t] THEN SlotRead(t, s, "slotrs") /\ UNCHANGED pk ELSE Flush(t, s)
    /\ UNCHANGED <<exp, pred, pu, pv, pw, slotOk, known>> /\ KeepG

(* The wait's budget passes (no fault: time): unlock() throws, the handle   *)
(* holds the lock; the caller calls unlock() again.                         *)
UnlockExpire(t) ==
    /\ UnlockWait = "bounded" /\ Live(t) /\ pc[t] = "relwait" /\ CpuLoad(t, QNext[t]) = 0
    /\ Go(t, "rel")
    /\ UNCHANGED <<allVerbVars, exp, pred, succ, pu, pk, pv, pw, slotOk, known>> /\ KeepG

(* The handover WRITE: acknowledged, released; an error (its QP failed: it  *)
(* may land at any time): unlock() throws; UnknownRefuses (the code): the   *)
(* handle drops the lock and refuses further use (pu) [refused]; the code   *)
(* before the fix kept holding it and the next unlock() posted it again.    *)
HandDone(t) ==
    /\ Live(t) /\ pc[t] = "hand" /\ Done(t)
    /\ Post(t, NoOp)
    /\ CASE Completed(t)   -> Go(t, "idle") /\ UNCHANGED pu
         [] UnknownRefuses -> Go(t, "refused") /\ pu' = Set(pu, t, TRUE)
         [] OTHER          -> Go(t, "rel") /\ UNCHANGED pu
    /\ UNCHANGED <<exp, pred, succ, pk, pv, pw, slotOk, known>> /\ KeepG

(* Its wait times out: unlock() throws, the handle holds; SettleWrites (the *)
(* code): the next unlock() settles it (SettleHand); the code before the    *)
(* fix posted it again.                                                     *)
HandTimeOut(t) == "hand" \in FaultyVerbs /\ pc[t] = "hand" /\ WriteTimeOut(t, "rel", "hand")

(* Terminal: PublicationLost keeps the lock; a refused handle; a corrupt   *)
(* queue node address (a stutter each, so that TLC sees no deadlock).       *)
Stop(t) == Live(t) /\ pc[t] \in {"lostpub", "refused", "corrupt"} /\ UNCHANGED vars
(* A crashed client may leave the others waiting for ever (not tolerated). *)
Halted == crashed # {} /\ UNCHANGED vars

FairThread(t) ==
    \/ Attach(t) \/ AttachDone(t) \/ InitNode(t) \/ PendLock(t) \/ PostCas(t) \/ SlotWDone(t) \/ CasDone(t)
    \/ Resume(t) \/ SlotReadDone(t) \/ Link(t) \/ SettleLink(t) \/ LinkDone(t) \/ Wake(t) \/ ReadDone(t) \/ WriteDone(t)
    \/ Collect(t) \/ SettleHand(t) \/ Release(t) \/ Release2(t) \/ FlushDone(t) \/ RelCasDone(t) \/ RelWait(t) \/ HandDone(t)
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
          /\ UNCHANGED <<pc, exp, pred, succ, pu, pk, pv, pw, known, pub, stale, badSlot>>

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
(* A release verb of t whose wait timed out and that is not settled yet (a  *)
(* release CAS in flight or collected, a handover WRITE): unlock() threw    *)
(* and the handle holds the lock by its own account (isHeld) until the next *)
(* unlock() settles the verb, which may already have passed the lock on.    *)
ReleaseInDoubt(t) == pk[t] \in {"relpending", "rel"} \/ pw[t] = "hand"
(* HeldExclusive for the handles whose release is not in doubt: the fixed   *)
(* code keeps it (HeldExclusive itself fails with a release verb's timeout, *)
(* MCMcsLockReleaseTimeoutFull).                                            *)
HeldExclusiveSettled ==
    \A t, u \in Threads : Holding(t) /\ Holding(u) /\ ~ReleaseInDoubt(t) /\ ~ReleaseInDoubt(u) => t = u

Publication == ~stale

NoSelfLink == \A t \in Threads : pc[t] \in {"link", "slotr", "linkw", "wait"} => pred[t] # Id[t]

(* Nobody frees a tail that names a live idle handle. Exempt, explicitly:  *)
(* a handle that refused further use (pc "refused", not idle). Its tail CAS, *)
(* link WRITE or release verb had an unknown outcome: a release CAS or      *)
(* handover WRITE that never lands leaves the tail naming it (or its        *)
(* successor waiting) for ever, and a handle queued by a link that lands    *)
(* may be granted the lock it will never release. The code does not        *)
(* tolerate these (the operator's reset frees the tail), Stuck exempts them *)
(* from liveness likewise, and nothing it does can tell them apart.         *)
Refused(t) == pc[t] = "refused"
LockNotLost ==
    \A t \in Threads : Live(t) /\ ~Refused(t) /\ pc[t] = "idle" /\ pk[t] = "none" => mem["tail"] # Id[t]

SlotsPlaced == ~badSlot

(* What the code does not tolerate: a crashed client that was not idle, a  *)
(* handle that refused further use (a tail CAS, link WRITE or release verb *)
(* of it had an unknown outcome: it may be queued, granted, or have lost    *)
(* the lock; see LockNotLost), the lock PublicationLost keeps.              *)
Stuck == \/ \E c \in crashed : pc[c] # "idle"
         \/ \E u \in Threads : Refused(u) \/ pc[u] = "lostpub"
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
