------------------------- MODULE ReadWriteLockFaults -------------------------
(***************************************************************************)
(* dev.remora.locks.RemoteReadWriteLock under timeouts, QP errors and      *)
(* client crashes (BlockingFaults), in three versions chosen by Design:    *)
(* "current" is the Java as it is; "old" is the handle before timeouts     *)
(* were settled; "amended" is the current one with the fix proposed here   *)
(* (the timed-out acquiring CAS kept unsettled, as the FETCH_ADDs are).    *)
(*                                                                         *)
(* The protocol is ReadWriteLock.tla's (state = readers + WriterBit *      *)
(* active + WaitUnit * waiting writers on Home, changed only by remote     *)
(* FETCH_ADD and CAS; d on DataNode, read in every critical section and    *)
(* written by the writer; the writer's release is ordered: flush READ of   *)
(* d, then FETCH_ADD(-WriterBit)). Each thread keeps its role. A writer    *)
(* has at most MaxWrites critical sections and a reader MaxReads (then     *)
(* they stop), so that the readers' liveness can be asked for and the      *)
(* models stay small.                                                      *)
(*                                                                         *)
(* Faults (what the Java does with them):                                  *)
(*  - QP error of a FETCH_ADD or CAS on the state word (outcome unknown):  *)
(*    never repeated nor compensated (indet: the handle's                  *)
(*    indeterminateOutcomes()); an announcement that failed is assumed not *)
(*    to have landed, a withdrawal to have landed; a release that failed   *)
(*    is given up (dropHeld); a reader's registration or step back that    *)
(*    failed: the next attempt starts again. A stray may land later.       *)
(*  - QP error of a verb to DataNode (the writer's critical section and    *)
(*    flush; a reader's READ of d): with TRACK_PUBLICATION, a QP that      *)
(*    broke while it carried the unflushed WRITE of d makes the flush      *)
(*    throw PublicationLostException: the writer keeps the lock (pc        *)
(*    "lostpub", for ever: the caller repairs by other means). A READ of d *)
(*    that fails ends the critical section (the caller's finally unlocks). *)
(*  - Timeout of the writer's announcing FETCH_ADD. "old" (before the      *)
(*    fix): the Endpoint retired the QP and the handle took the            *)
(*    announcement as not made, though it may still land; the next        *)
(*    attempt announces again. "current", "amended": the FETCH_ADD stays     *)
(*    unsettled; the caller comes back (the next attempt settles it: the   *)
(*    same completion, waited for later) or gives up (lock(timeout)'s      *)
(*    gaveUp() settles it and withdraws the announcement).                 *)
(*  - Timeout of the writer's acquiring CAS (after attempt()'s second wait *)
(*    of an operation timeout). "current": the CAS is not kept: attempt()  *)
(*    throws and nothing remembers it; the handle still counts itself      *)
(*    announced; its next verb goes behind the CAS on the same QP (R9),    *)
(*    so the model lets it post only once the CAS has completed, whose     *)
(*    result it does not look at. "amended": the CAS is kept unsettled like  *)
(*    a FETCH_ADD; the next attempt settles it and holds the lock if it    *)
(*    succeeded; giving up settles it and releases the lock (FETCH_ADD     *)
(*    -WriterBit, no critical section) or withdraws the announcement.      *)
(*  - lock(timeout)'s deadline while the writer waits (Expire): gaveUp()   *)
(*    withdraws the announcement.                                          *)
(*  - Crash of a client in Crashable.                                      *)
(* Timeouts of the other verbs are not separate steps: a reader's          *)
(* FETCH_ADDs, the releases and the withdrawal are settled by the handle's *)
(* next call with the same result (a late registration that found no       *)
(* writer is ACQUIRED, one that found a writer is undone, a late release   *)
(* is done), which for a thread that keeps its role is waiting longer;     *)
(* a READ that times out or fails has no effect and is posted again.       *)
(*                                                                         *)
(* Ghosts: own[t], the net amount t's atomics (its strays included) have   *)
(* added to the state word; indet[t], an atomic of t on it had an unknown  *)
(* outcome.                                                                *)
(*                                                                         *)
(* Checked: FaultsTypeOK, Exclusion, Publication (~stale: a critical       *)
(* section READ of d returns the last critical-section WRITE; the only     *)
(* releases are ordered ones that report success or a release FETCH_ADD    *)
(* posted after a successful flush), and, for live clients, unless         *)
(* Stalled: WriterProgress (a live waiting writer enters or gives up) and  *)
(* ReaderProgress (a live waiting reader enters). Stalled: some handle had *)
(* an atomic with an unknown outcome (indet), or a crashed client's count  *)
(* is in the word (own # 0) or its atomic may still land, or a writer      *)
(* keeps the lock after PublicationLost.                                   *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Readers,    \* the reader threads
    Writers,    \* the writer threads
    WriterBit,  \* the writer-active bit of the state word
    WaitUnit,   \* one waiting writer in the state word
    Home,       \* the node of the state word
    DataNode,   \* the node of d
    MaxWrites,  \* a writer stops after this many critical sections
    MaxReads,   \* a reader stops after this many critical sections
    DataPath,   \* TRUE: critical sections READ (and the writer WRITEs and flushes) d; FALSE: they are one step
    Design      \* "old", "current" or "amended"

VARIABLES
    pc,         \* reader: "idle", "rfaa", "rback", "rspin", "rread", "rrel"
                \* writer: "idle", "wann", "wannU", "wgive", "wspin", "wcas", "wcasU", "wcasT", "wforgot",
                \*         "wexp", "wwd", "wread", "wput", "wflush", "wrel", "lostpub", "done"
    saw,        \* saw[t]: the state word the writer's CAS expects
    ann,        \* ann[t]: the writer's handle counts itself among the waiting writers (announced)
    quit,       \* quit[t]: the writer's caller gave up (lock(timeout) returned) while a request was unsettled
    writes,     \* writes[t]: the thread's completed critical sections
    own,        \* ghost: own[t], see the header
    indet,      \* ghost: indet[t], see the header
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale       \* ghost: some critical-section READ of d returned a value other than pub

protoVars == <<pc, saw, ann, quit, writes, own, indet, pub, stale>>
vars == <<allVerbVars, protoVars>>

Old == Design = "old"
Amended == Design = "amended"

ASSUME /\ Readers \cup Writers = Threads /\ Readers \cap Writers = {}
       /\ Design \in {"old", "current", "amended"} /\ RETIRE_ON_TIMEOUT = Old
       /\ ATOMIC_CAP = "GLOB"   \* only remote atomics change the state word: no window can be seen
       /\ HomeOf["state"] = Home /\ HomeOf["d"] = DataNode /\ DataNode # Home
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode}
       /\ WaitUnit = 2 * WriterBit /\ MaxWrites \in Nat

ReaderCount(s) == s % WriterBit
WriterActive(s) == (s \div WriterBit) % 2 = 1
WriterAround(s) == s \div WriterBit # 0
Neg(v) == WordMod - v

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ saw = [t \in Threads |-> 0]
    /\ ann = [t \in Threads |-> FALSE]
    /\ quit = [t \in Threads |-> FALSE]
    /\ writes = [t \in Threads |-> 0]
    /\ own = [t \in Threads |-> 0]
    /\ indet = [t \in Threads |-> FALSE]
    /\ pub = InitMem["d"]
    /\ stale = FALSE

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
Set(f, t, v) == [f EXCEPT ![t] = v]
OnState(t) == op[t].kind # "none" /\ op[t].loc = "state"
(* t took the completion of an atomic on the state word with an unknown outcome. *)
Unknown(t) == indet' = Set(indet, t, TRUE)
Faa(t, v) == Post(t, FaaOp("state", v))
Get(t, l) == Post(t, GetOp(l))
Done(t) == Completed(t) \/ Failed(t)
Keep(t) == UNCHANGED <<saw, ann, quit, writes, own, indet, pub, stale>>
KeepBut(t) == UNCHANGED <<saw, quit, writes, own, pub, stale>>

(***************************************************************************)
(* Reader.                                                                 *)
(***************************************************************************)
RStart(t) ==
    /\ pc[t] = "idle" /\ CanPost(t) /\ writes[t] < MaxReads
    /\ Faa(t, 1) /\ Go(t, "rfaa") /\ Keep(t)

(* The registration: no writer, inside (READ d); a writer: step back. An   *)
(* error: not held; the next attempt registers again.                      *)
RFaaDone(t) ==
    /\ pc[t] = "rfaa"
    /\ \/ Completed(t) /\ ~WriterAround(Result(t)) /\ Get(t, "d") /\ Go(t, "rread") /\ Keep(t)
       \/ Completed(t) /\ WriterAround(Result(t)) /\ Faa(t, Neg(1)) /\ Go(t, "rback") /\ Keep(t)
       \/ Failed(t) /\ Post(t, NoOp) /\ Go(t, "idle") /\ Unknown(t) /\ UNCHANGED ann /\ KeepBut(t)

RBackDone(t) ==
    /\ pc[t] = "rback"
    /\ \/ Completed(t) /\ UNCHANGED indet
       \/ Failed(t) /\ Unknown(t)
    /\ Get(t, "state") /\ Go(t, "rspin") /\ UNCHANGED ann /\ KeepBut(t)

RSpin(t) ==
    /\ pc[t] = "rspin"
    /\ \/ Completed(t) /\ ~WriterAround(Result(t)) /\ Faa(t, 1) /\ Go(t, "rfaa")
       \/ Completed(t) /\ WriterAround(Result(t)) /\ Get(t, "state") /\ UNCHANGED pc
       \/ Failed(t) /\ Get(t, "state") /\ UNCHANGED pc
    /\ Keep(t)

(* The critical section's READ of d; then the release. A READ that fails    *)
(* ends the critical section (the caller's finally unlocks).               *)
RReadDone(t) ==
    /\ pc[t] = "rread"
    /\ \/ Completed(t) /\ stale' = (stale \/ Result(t) # pub)
       \/ Failed(t) /\ UNCHANGED stale
    /\ Faa(t, Neg(1)) /\ Go(t, "rrel")
    /\ UNCHANGED <<saw, ann, quit, writes, own, indet, pub>>

(* The release FETCH_ADD: done, or (unknown outcome) given up (dropHeld).   *)
RRelDone(t) ==
    /\ pc[t] = "rrel"
    /\ \/ Completed(t) /\ UNCHANGED indet
       \/ Failed(t) /\ Unknown(t)
    /\ writes' = Set(writes, t, writes[t] + 1)
    /\ Post(t, NoOp) /\ Go(t, "idle") /\ UNCHANGED <<saw, ann, quit, own, pub, stale>>

Reader(t) == RStart(t) \/ RFaaDone(t) \/ RBackDone(t) \/ RSpin(t) \/ RReadDone(t) \/ RRelDone(t)

(***************************************************************************)
(* Writer.                                                                 *)
(***************************************************************************)
(* An attempt: announce (FETCH_ADD +WaitUnit) unless announced, else READ.  *)
WStart(t) ==
    /\ pc[t] = "idle" /\ CanPost(t) /\ writes[t] < MaxWrites
    /\ IF ann[t] THEN Get(t, "state") /\ Go(t, "wspin") ELSE Faa(t, WaitUnit) /\ Go(t, "wann")
    /\ Keep(t)

(* A thread that has had its critical sections stops.                     *)
Stop(t) ==
    /\ pc[t] = "idle" /\ CanPost(t) /\ writes[t] = (IF t \in Readers THEN MaxReads ELSE MaxWrites) /\ ~ann[t]
    /\ Go(t, "done") /\ UNCHANGED allVerbVars /\ Keep(t)

(* Withdraw the announcement (FETCH_ADD -WaitUnit).                         *)
Withdraw(t) == Faa(t, Neg(WaitUnit)) /\ Go(t, "wwd")

WAnnDone(t) ==
    /\ pc[t] = "wann"
    /\ \/ /\ Completed(t) /\ ann' = Set(ann, t, TRUE)
          /\ Get(t, "state") /\ Go(t, "wspin") /\ UNCHANGED indet
       \/ /\ Failed(t) /\ ~TimedOut(t) /\ ann' = Set(ann, t, FALSE)     \* assumed not to have landed
          /\ Post(t, NoOp) /\ Go(t, "idle") /\ Unknown(t)
       \/ /\ TimedOut(t) /\ ann' = Set(ann, t, FALSE)                   \* old: taken as not made
          /\ Post(t, NoOp) /\ Go(t, "idle") /\ UNCHANGED indet
    /\ KeepBut(t)

(* The announcement's wait times out. old: the QP is retired (TimeOut) and  *)
(* WAnnDone takes it as not made. current, amended: it stays unsettled.    *)
WAnnTimeOut(t) ==
    /\ pc[t] = "wann" /\ TimeOut(t)
    /\ IF Old THEN UNCHANGED pc ELSE Go(t, "wannU")
    /\ Keep(t)

(* current, amended: the caller comes back (settles: waits for the same     *)
(* completion) or gives up (gaveUp(): settles, then withdraws).             *)
WAnnResume(t) ==
    /\ pc[t] = "wannU"
    /\ \E back \in BOOLEAN : Go(t, IF back THEN "wann" ELSE "wgive")
    /\ UNCHANGED allVerbVars /\ Keep(t)

WGiveDone(t) ==
    /\ pc[t] = "wgive"
    /\ \/ Completed(t) /\ ann' = Set(ann, t, TRUE) /\ Withdraw(t) /\ UNCHANGED indet
       \/ Failed(t) /\ ann' = Set(ann, t, FALSE) /\ Post(t, NoOp) /\ Go(t, "idle") /\ Unknown(t)
    /\ KeepBut(t)

(* A READ of the state word: free of readers and writer: CAS(s -> s -       *)
(* WaitUnit + WriterBit); else READ again, or (lock(timeout)'s deadline)    *)
(* give up and withdraw.                                                    *)
WSpin(t) ==
    LET s == Result(t) IN
    /\ pc[t] = "wspin"
    /\ \/ /\ Completed(t) /\ ReaderCount(s) = 0 /\ ~WriterActive(s)
          /\ saw' = Set(saw, t, s)
          /\ Post(t, CasOp("state", s, (s + Neg(WaitUnit) + WriterBit) % WordMod)) /\ Go(t, "wcas")
          /\ UNCHANGED <<budget>>
       \/ /\ Completed(t) /\ ~(ReaderCount(s) = 0 /\ ~WriterActive(s))
          /\ Get(t, "state") /\ UNCHANGED <<pc, saw, budget>>
       \/ /\ Failed(t) /\ Get(t, "state") /\ UNCHANGED <<pc, saw, budget>>
       \/ /\ Completed(t) /\ ~(ReaderCount(s) = 0 /\ ~WriterActive(s))
          /\ Expire /\ Go(t, "wexp") /\ UNCHANGED saw
    /\ UNCHANGED <<ann, quit, writes, own, indet, pub, stale>>

WExpired(t) == pc[t] = "wexp" /\ Withdraw(t) /\ Keep(t)

(* Holding (the CAS took the waiting count with it): READ d.                *)
Enter(t) == /\ ann' = Set(ann, t, FALSE)
            /\ IF DataPath THEN Get(t, "d") /\ Go(t, "wread") ELSE Faa(t, Neg(WriterBit)) /\ Go(t, "wrel")

WCasDone(t) ==
    /\ pc[t] = "wcas" /\ ~quit[t]
    /\ \/ Completed(t) /\ Result(t) = saw[t] /\ Enter(t) /\ UNCHANGED indet
       \/ Completed(t) /\ Result(t) # saw[t] /\ Get(t, "state") /\ Go(t, "wspin") /\ UNCHANGED <<ann, indet>>
       \/ Failed(t) /\ Post(t, NoOp) /\ Go(t, "wcasT") /\ Unknown(t) /\ UNCHANGED ann
    /\ UNCHANGED <<saw, quit, writes, own, pub, stale>>

(* The CAS's wait times out. current: forgotten (wforgot). amended: kept.   *)
WCasTimeOut(t) ==
    /\ ~Old /\ pc[t] = "wcas" /\ TimeOut(t)
    /\ Go(t, IF Amended THEN "wcasU" ELSE "wforgot")
    /\ Keep(t)

(* The CAS threw (an error; current: also a timeout, once the CAS has       *)
(* executed, its result unseen): the caller comes back (READ, still         *)
(* announced) or gives up (withdraw).                                       *)
WCasThrown(t) ==
    /\ \/ pc[t] = "wcasT" /\ CanPost(t)
       \/ pc[t] = "wforgot" /\ Done(t)
    /\ \E back \in BOOLEAN : IF back THEN Get(t, "state") /\ Go(t, "wspin") ELSE Withdraw(t)
    /\ Keep(t)

(* amended: the caller comes back (the attempt settles the CAS) or gives up *)
(* (gaveUp() settles it: a CAS that took the lock is released at once, one  *)
(* that did not leaves the announcement, which is withdrawn).               *)
WCasResume(t) ==
    /\ pc[t] = "wcasU"
    /\ \E q \in BOOLEAN : quit' = Set(quit, t, q)
    /\ Go(t, "wcas")
    /\ UNCHANGED <<allVerbVars, saw, ann, writes, own, indet, pub, stale>>

(* amended, giving up: the settled CAS.                                     *)
WCasQuit(t) ==
    /\ pc[t] = "wcas" /\ quit[t]
    /\ quit' = Set(quit, t, FALSE)
    /\ \/ /\ Completed(t) /\ Result(t) = saw[t] /\ ann' = Set(ann, t, FALSE)
          /\ Faa(t, Neg(WriterBit)) /\ Go(t, "wrel") /\ UNCHANGED indet
       \/ Completed(t) /\ Result(t) # saw[t] /\ Withdraw(t) /\ UNCHANGED <<ann, indet>>
       \/ Failed(t) /\ Post(t, NoOp) /\ Go(t, "wcasT") /\ Unknown(t) /\ UNCHANGED ann
    /\ UNCHANGED <<saw, writes, own, pub, stale>>

(* The withdrawal: done, or (unknown outcome) assumed to have landed.       *)
WWdDone(t) ==
    /\ pc[t] = "wwd"
    /\ \/ Completed(t) /\ UNCHANGED indet
       \/ Failed(t) /\ Unknown(t)
    /\ ann' = Set(ann, t, FALSE)
    /\ Post(t, NoOp) /\ Go(t, "idle") /\ KeepBut(t)

(* The ordered release's flush, unless the Endpoint knows the WRITE of d    *)
(* may be lost (PublicationLostException: the handle keeps the lock).       *)
Flush(t) ==
    IF PublicationLost(t) THEN Post(t, NoOp) /\ Go(t, "lostpub") ELSE Get(t, "d") /\ Go(t, "wflush")

(* The critical section: READ d, then WRITE d := 1 - d.                     *)
WReadDone(t) ==
    /\ pc[t] = "wread"
    /\ \/ /\ Completed(t) /\ stale' = (stale \/ Result(t) # pub) /\ pub' = 1 - Result(t)
          /\ Post(t, PutOp("d", 1 - Result(t))) /\ Go(t, "wput")
       \/ Failed(t) /\ Flush(t) /\ UNCHANGED <<stale, pub>>
    /\ UNCHANGED <<saw, ann, quit, writes, own, indet>>

WPutDone(t) ==
    /\ pc[t] = "wput"
    /\ \/ Completed(t) /\ Flush(t)
       \/ Failed(t) /\ Post(t, NoOp) /\ Go(t, "lostpub")   \* its QP broke while dirty: lost
    /\ Keep(t)

WFlushDone(t) ==
    /\ pc[t] = "wflush"
    /\ \/ Completed(t) /\ Faa(t, Neg(WriterBit)) /\ Go(t, "wrel")
       \/ Failed(t) /\ Post(t, NoOp) /\ Go(t, "lostpub")   \* its QP broke while dirty: lost
    /\ Keep(t)

(* The release FETCH_ADD: done, or (unknown outcome) given up (dropHeld).   *)
WRelDone(t) ==
    /\ pc[t] = "wrel"
    /\ \/ Completed(t) /\ UNCHANGED indet
       \/ Failed(t) /\ Unknown(t)
    /\ writes' = Set(writes, t, writes[t] + 1)
    /\ Post(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<saw, ann, quit, own, pub, stale>>

Writer(t) == WStart(t) \/ WAnnDone(t) \/ WAnnResume(t) \/ WGiveDone(t) \/ WSpin(t) \/ WCasDone(t)
             \/ WCasThrown(t) \/ WCasResume(t) \/ WCasQuit(t) \/ WWdDone(t) \/ WExpired(t) \/ WReadDone(t) \/ WPutDone(t)
             \/ WFlushDone(t) \/ WRelDone(t)

Thread(t) == Live(t) /\ (Stop(t) \/ IF t \in Readers THEN Reader(t) ELSE Writer(t))
Faults(t) == Live(t) /\ t \in Writers /\ (WAnnTimeOut(t) \/ WCasTimeOut(t))

(***************************************************************************)
(* The memory system; own[] follows who changed the state word.            *)
(***************************************************************************)
Delta == (mem'["state"] + WordMod - mem["state"]) % WordMod
Credit(u) == own' = [own EXCEPT ![u] = (@ + Delta) % WordMod]

QpWhere(t, n) ==
    \/ n = Home /\ op[t].kind \in {"faa", "cas"} /\ op[t].st = "posted"
    \/ n = DataNode /\ ((op[t].kind # "none" /\ op[t].loc = "d") \/ pend[t][n] # <<>> \/ dirty[t][n])

Nic ==
    \/ \E t \in Threads : AtomicRead(t) /\ UNCHANGED faultVars /\ Credit(t)
    \/ \E t \in Threads : (GetExec(t) \/ Drain(t) \/ \E n \in Nodes : Place(t, n))
                          /\ UNCHANGED faultVars /\ UNCHANGED own
    \/ \E t \in Threads : PutAck(t) /\ UNCHANGED own
    \/ \E r \in stray : (StrayPlace(r) \/ StrayLose(r)) /\ UNCHANGED own
    \/ \E r \in stray : StrayLast(r) /\ Credit(r.t)
    \/ \E t \in Threads, n \in Nodes : QpWhere(t, n) /\ QpError(t, n) /\ UNCHANGED own

(* Every live thread has stopped (or keeps a lock whose publication was    *)
(* lost): the model ends in stuttering.                                     *)
Finished ==
    /\ \A t \in Threads : pc[t] \in {"done", "lostpub"} \/ ~Live(t)
    /\ UNCHANGED vars

Next ==
    \/ Finished
    \/ \E t \in Threads : Thread(t) \/ Faults(t)
    \/ \E t \in Threads : Crash(t) /\ UNCHANGED protoVars
    \/ Nic /\ UNCHANGED <<pc, saw, ann, quit, writes, indet, pub, stale>>

Spec == Init /\ [][Next]_vars /\ FaultsFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
(* A crashed client is in no critical section (its count may stay).      *)
ReaderIn(t) == Live(t) /\ \/ pc[t] = "rread"
                          \/ pc[t] = "rrel" /\ ~Done(t)
                          \/ pc[t] = "rfaa" /\ Completed(t) /\ ~WriterAround(Result(t))
WriterIn(t) == Live(t) /\ \/ pc[t] \in {"wread", "wput", "wflush", "lostpub"}
                          \/ pc[t] = "wrel" /\ ~Done(t)
                          \/ pc[t] = "wcas" /\ Completed(t) /\ Result(t) = saw[t]

Exclusion ==
    \A w \in Writers : WriterIn(w) =>
        /\ \A r \in Readers : ~ReaderIn(r)
        /\ \A v \in Writers \ {w} : ~WriterIn(v)

Publication == ~stale

Stalled ==
    \E t \in Threads : \/ indet[t]
                       \/ t \in crashed /\ (own[t] # 0 \/ StrayAtomic(t, "state"))
                       \/ pc[t] = "lostpub"

WriterWaiting(t) == Live(t) /\ pc[t] \in {"wann", "wannU", "wspin", "wcas", "wcasU", "wcasT", "wforgot", "wexp"}
ReaderWaiting(t) == Live(t) /\ pc[t] \in {"rfaa", "rback", "rspin"}

(* A live waiting writer enters or gives up (withdraws), unless Stalled.    *)
WriterProgress == \A t \in Writers : WriterWaiting(t) ~> (WriterIn(t) \/ pc[t] = "wwd" \/ ~Live(t) \/ Stalled)
(* A live waiting reader enters, unless Stalled (the writers stop after     *)
(* MaxWrites critical sections).                                            *)
ReaderProgress == \A t \in Readers : ReaderWaiting(t) ~> (ReaderIn(t) \/ ~Live(t) \/ Stalled)
=============================================================================
