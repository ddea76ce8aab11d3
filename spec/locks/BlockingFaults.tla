--------------------------- MODULE BlockingFaults ---------------------------
(***************************************************************************)
(* Errors and faults for the blocking client of BlockingVerbs: the         *)
(* timeouts, queue-pair errors and client crashes of docs/memory-model.md  *)
(* §5 (R17, R20) as a blocking Endpoint meets them. A lock spec that       *)
(* EXTENDS this module (instead of BlockingVerbs) chooses with FAULTS      *)
(* which faults may happen (FAULTS = {} is BlockingVerbs with WRITEs that  *)
(* wait for their acknowledgement), and FaultBudget bounds how many.       *)
(* Specs that EXTEND BlockingVerbs directly are not affected.              *)
(*                                                                         *)
(* What changes against BlockingVerbs:                                     *)
(*  - A WRITE is a verb the thread waits for (PutOp, PutAck): its          *)
(*    acknowledgement may not come. Acknowledged, it is in pend as before  *)
(*    and lands later (R11, ON_ACK).                                       *)
(*  - A verb may end in an error completion ("failed": its QP broke, its   *)
(*    effect is unknown) or, with RETIRE_ON_TIMEOUT (the current           *)
(*    Endpoint, which retires the QP of a request that timed out and never *)
(*    looks at it again), in "timedout".                                   *)
(*  - A QP that breaks is replaced: the thread's next verb to that node    *)
(*    goes on a new QP, which is pend[t][n] again, empty. What the old QP  *)
(*    still had in flight becomes a stray record: its acknowledged WRITEs  *)
(*    (they still land, in their order, R6), and at most one unfinished    *)
(*    verb (an unacknowledged WRITE, a CAS or FETCH_ADD whose read phase   *)
(*    has not run) that may take effect later, after the error was         *)
(*    reported, or never. Nothing orders a stray against the new QP (R10): *)
(*    a READ or atomic on the new QP waits only for the new QP's WRITEs.   *)
(*  - A crashed client stops; its store buffer is lost; all its QPs break  *)
(*    as above (its requests may or may not take effect; acknowledged      *)
(*    WRITEs still land, the targets being alive).                         *)
(*                                                                         *)
(*  Verbs.tla (R17, R20)          here                                     *)
(*  Fault(qperror(t, n))          QpError(t, n)                            *)
(*  Fault(crash(node of t))       Crash(t) (each client on its own node;   *)
(*                                lock homes and data nodes do not crash)  *)
(*  BreakStatus, Fail, Complete   op[t].st = "failed" (RETRY_EXC_ERR or    *)
(*                                WR_FLUSH_ERR: outcome unknown; a verb    *)
(*                                whose effect already happened may still  *)
(*                                fail, as a get or atomic whose local     *)
(*                                write or completion came after the break)*)
(*  inflight, TargetOK            a stray record; StrayPlace, StrayLast    *)
(*                                are the remote writes / atomic phases of *)
(*                                in-flight WRs (E09, E10, E12)            *)
(*  Abandon                       StrayLose: only an unacknowledged WRITE  *)
(*                                or an atomic that has not read (an       *)
(*                                acknowledged WRITE is never abandoned;   *)
(*                                an atomic that has read also writes,     *)
(*                                E08: Break runs its write phase)         *)
(*  a QP is (thread, node)        a replaced QP: the new QP is pend[t][n], *)
(*                                each old one a stray record (R10 between *)
(*                                them)                                    *)
(*  no counterpart (the waiter    TimeOut(t): the thread stops waiting.    *)
(*  is the program)               Without RETIRE_ON_TIMEOUT the verb stays *)
(*                                on its QP and completes later (success   *)
(*                                with its result, or an error if the QP   *)
(*                                breaks); with it, the QP is retired at   *)
(*                                once (a Break: Verbs' qperror)           *)
(*                                                                         *)
(* Abstractions. A stray atomic's two phases are one step (no window):     *)
(* nothing can land between them, which hides nothing in the lock specs    *)
(* (the CAS lock's only WRITE to its word writes 0, which changes nothing  *)
(* in the window of a CAS(0 -> x), where the word is 0, and a CAS that     *)
(* fails has no window; a ticket lock's next is changed by atomics only).  *)
(* A QP error on a QP with nothing in flight and nothing to mark is not a  *)
(* step (it changes nothing). Faults stop after FaultBudget events. Every  *)
(* stray record is distinct (id: the budget left when its QP broke), so    *)
(* two identical strays never merge.                                       *)
(*                                                                         *)
(* The publication bookkeeping of the fixed Endpoint (TRACK_PUBLICATION):  *)
(* dirty[t][n]: a WRITE was posted on t's current QP to n since the last   *)
(* READ or atomic on it completed (after which, by R7, every earlier WRITE *)
(* of that QP is placed); lost[t][n]: a QP of t to n broke while dirty. A  *)
(* QP is marked at the moment it breaks: the Endpoint must look at the     *)
(* state of each QP it wrote to (the home's included) when the release     *)
(* asks, not only at the next verb to that node.                           *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    FAULTS,             \* the faults that may happen: a subset of {"timeout", "qperror", "crash"}
    FaultBudget,        \* at most this many fault events (timeouts, QP errors, crashes) in a behaviour
    Crashable,          \* the threads that may crash
    RETIRE_ON_TIMEOUT,  \* TRUE: the current Endpoint retires a timed-out request's QP at once
    TRACK_PUBLICATION   \* TRUE: the fixed Endpoint's dirty/lost bookkeeping

ASSUME /\ FAULTS \subseteq {"timeout", "qperror", "crash"} /\ FaultBudget \in Nat
       /\ Crashable \subseteq Threads /\ RETIRE_ON_TIMEOUT \in BOOLEAN /\ TRACK_PUBLICATION \in BOOLEAN

VARIABLES
    stray,      \* the unfinished requests of replaced QPs: a set of records (StrayRec)
    crashed,    \* the crashed threads
    budget,     \* fault events left
    dirty,      \* dirty[t][n], see the header
    lost        \* lost[t][n], see the header

faultVars == <<stray, crashed, budget, dirty, lost>>
allVerbVars == <<nicVars, faultVars>>

PutOp(l, v) == [NoOp EXCEPT !.kind = "put", !.st = "posted", !.loc = l, !.val = v]

Statuses == {"posted", "window", "done", "failed", "timedout"}
Rec == [loc : Locs, val : Int]
StrayRec == [id : Nat, t : Threads, n : Nodes, puts : Seq(Rec), last : [kind : STRING, st : Statuses,
             loc : Locs \cup {"none"}, cmp : Int, val : Int, old : Int]]

FaultsTypeOK ==
    /\ mem \in [Locs -> Int]
    /\ sb \in [Threads -> Seq(Rec)]
    /\ pend \in [Threads -> [Nodes -> Seq(Rec)]]
    /\ \A t \in Threads : op[t].kind \in {"none", "get", "cas", "faa", "put"} /\ op[t].st \in Statuses
    /\ stray \subseteq StrayRec
    /\ \A r \in stray : r.last.kind \in {"none", "put", "cas", "faa"}
    /\ crashed \subseteq Crashable /\ budget \in 0..FaultBudget
    /\ dirty \in [Threads -> [Nodes -> BOOLEAN]] /\ lost \in [Threads -> [Nodes -> BOOLEAN]]

FaultsInit ==
    /\ NicInit
    /\ stray = {}
    /\ crashed = {}
    /\ budget = FaultBudget
    /\ dirty = [t \in Threads |-> [n \in Nodes |-> FALSE]]
    /\ lost = [t \in Threads |-> [n \in Nodes |-> FALSE]]

(***************************************************************************)
(* What a protocol step may use (besides BlockingVerbs' CanPost,           *)
(* Completed, Result).                                                     *)
(***************************************************************************)
Live(t) == t \notin crashed
(* t's verb ended in an error (or, with RETIRE_ON_TIMEOUT, timed out): its   *)
(* effect is unknown.                                                        *)
Failed(t) == op[t].kind # "none" /\ op[t].st \in {"failed", "timedout"}
TimedOut(t) == op[t].st = "timedout"
(* The fixed release's check: some QP of t broke while it carried WRITEs not *)
(* known to be placed.                                                       *)
PublicationLost(t) == \E n \in Nodes : lost[t][n]

(* t takes the completion of its verb (if any) and posts o (NoOp: nothing).   *)
(* A completed READ or atomic clears dirty for its node; a WRITE sets it.    *)
Post(t, o) ==
    /\ op' = [op EXCEPT ![t] = o]
    /\ dirty' = IF ~TRACK_PUBLICATION THEN dirty
                ELSE [dirty EXCEPT ![t] = [n \in Nodes |->
                        IF o.kind = "put" /\ HomeOf[o.loc] = n THEN TRUE
                        ELSE IF op[t].kind \in {"get", "cas", "faa"} /\ op[t].st = "done"
                                /\ HomeOf[op[t].loc] = n THEN FALSE
                        ELSE dirty[t][n]]]
    /\ UNCHANGED <<mem, sb, pend, stray, crashed, budget, lost>>

(***************************************************************************)
(* Breaking a QP.                                                          *)
(***************************************************************************)
OnQp(t, n) == op[t].kind # "none" /\ op[t].st \in {"posted", "window", "done"} /\ HomeOf[op[t].loc] = n
(* What stays in flight of t's verb when its QP breaks: a WRITE not yet      *)
(* acknowledged, an atomic whose read phase has not run. A READ has no       *)
(* effect to keep; an atomic in its window writes at the break (E08).        *)
Unfinished(o) == IF o.st = "posted" /\ o.kind \in {"put", "cas", "faa"} THEN o ELSE NoOp
Norm(S) == {r \in S : r.puts # <<>> \/ r.last.kind # "none"}
StrayOf(t, n) == [id |-> budget, t |-> t, n |-> n, puts |-> pend[t][n],
                  last |-> IF OnQp(t, n) THEN Unfinished(op[t]) ELSE NoOp]
WindowDone(t, m) == IF op[t].st = "window" THEN [m EXCEPT ![op[t].loc] = AtomicNew(op[t])] ELSE m

(* t's QP to n breaks and is replaced; t's verb on it (unless it is a WRITE   *)
(* already acknowledged, which stands) completes with status s.              *)
Break(t, n, s) ==
    LET here == OnQp(t, n) IN
    /\ stray' = Norm(stray \cup {StrayOf(t, n)})
    /\ pend' = [pend EXCEPT ![t][n] = <<>>]
    /\ mem' = IF here THEN WindowDone(t, mem) ELSE mem
    /\ op' = IF here /\ ~(op[t].kind = "put" /\ op[t].st = "done") THEN [op EXCEPT ![t].st = s] ELSE op
    /\ dirty' = IF TRACK_PUBLICATION THEN [dirty EXCEPT ![t][n] = FALSE] ELSE dirty
    /\ lost' = IF TRACK_PUBLICATION /\ dirty[t][n] THEN [lost EXCEPT ![t][n] = TRUE] ELSE lost
    /\ UNCHANGED sb

(* A QP error (a cut link, a retry-exceeded error, a QP forced into ERROR).  *)
QpError(t, n) ==
    /\ "qperror" \in FAULTS /\ budget > 0 /\ Live(t)
    /\ OnQp(t, n) \/ pend[t][n] # <<>> \/ dirty[t][n]
    /\ budget' = budget - 1
    /\ Break(t, n, "failed")
    /\ UNCHANGED crashed

(* t's waiter gives up on its verb (not yet completed). The protocol step     *)
(* that calls it records that t stopped waiting.                             *)
CanTimeOut(t) == "timeout" \in FAULTS /\ budget > 0 /\ Live(t) /\ op[t].st \in {"posted", "window"}
TimeOut(t) ==
    /\ CanTimeOut(t)
    /\ budget' = budget - 1
    /\ IF RETIRE_ON_TIMEOUT THEN Break(t, HomeOf[op[t].loc], "timedout")
       ELSE UNCHANGED <<mem, sb, pend, op, stray, dirty, lost>>
    /\ UNCHANGED crashed

(* A deadline of the protocol passes (lock(timeout) gives up waiting for its *)
(* turn, say): a timeout with no verb involved.                              *)
Expire ==
    /\ "timeout" \in FAULTS /\ budget > 0
    /\ budget' = budget - 1
    /\ UNCHANGED <<mem, sb, pend, op, stray, crashed, dirty, lost>>

(* t's node crashes: t stops, its store buffer is lost, every QP of t breaks. *)
Crash(t) ==
    /\ "crash" \in FAULTS /\ budget > 0 /\ t \in Crashable /\ Live(t)
    /\ budget' = budget - 1
    /\ crashed' = crashed \cup {t}
    /\ stray' = Norm(stray \cup {StrayOf(t, n) : n \in Nodes})
    /\ pend' = [pend EXCEPT ![t] = [n \in Nodes |-> <<>>]]
    /\ mem' = IF op[t].kind # "none" /\ op[t].st = "window" THEN WindowDone(t, mem) ELSE mem
    /\ op' = [op EXCEPT ![t] = NoOp]
    /\ sb' = [sb EXCEPT ![t] = <<>>]
    /\ UNCHANGED <<dirty, lost>>

(***************************************************************************)
(* NIC steps added to BlockingVerbs'.                                      *)
(***************************************************************************)
(* The target acknowledges t's WRITE: it completes, and lands later (R11).   *)
PutAck(t) ==
    /\ op[t].kind = "put" /\ op[t].st = "posted"
    /\ pend' = [pend EXCEPT ![t][HomeOf[op[t].loc]] = Append(@, [loc |-> op[t].loc, val |-> op[t].val])]
    /\ op' = [op EXCEPT ![t].st = "done"]
    /\ UNCHANGED <<mem, sb, faultVars>>

(* The oldest acknowledged WRITE of a replaced QP lands (R6 on that QP).     *)
StrayPlace(r) ==
    /\ r.puts # <<>>
    /\ mem' = [mem EXCEPT ![Head(r.puts).loc] = Head(r.puts).val]
    /\ stray' = Norm((stray \ {r}) \cup {[r EXCEPT !.puts = Tail(@)]})
    /\ UNCHANGED <<sb, pend, op, crashed, budget, dirty, lost>>

(* The unfinished verb of a replaced QP takes effect, after that QP's         *)
(* WRITEs (R6, R7) and outside any atomic window at its node (rao); its      *)
(* result goes nowhere.                                                      *)
StrayLast(r) ==
    LET o == r.last
        old == mem[o.loc]
    IN
    /\ r.puts = <<>> /\ o.kind # "none"
    /\ o.kind # "put" => ~WindowAt(r.n)
    /\ mem' = IF o.kind = "put" \/ o.kind = "faa" \/ old = o.cmp
              THEN [mem EXCEPT ![o.loc] = IF o.kind = "put" THEN o.val ELSE AtomicNew([o EXCEPT !.old = old])]
              ELSE mem
    /\ stray' = Norm((stray \ {r}) \cup {[r EXCEPT !.last = NoOp]})
    /\ UNCHANGED <<sb, pend, op, crashed, budget, dirty, lost>>

(* The unfinished verb of a replaced QP is lost (Verbs' Abandon).            *)
StrayLose(r) ==
    /\ r.last.kind # "none"
    /\ stray' = Norm((stray \ {r}) \cup {[r EXCEPT !.last = NoOp]})
    /\ UNCHANGED <<mem, sb, pend, op, crashed, budget, dirty, lost>>

StrayStep == \E r \in stray : StrayPlace(r) \/ StrayLast(r) \/ StrayLose(r)

(* The memory system: BlockingVerbs' steps, acknowledgements, strays, and    *)
(* the QP errors (faults of the network; timeouts and crashes are steps of   *)
(* the protocol's threads).                                                  *)
FaultsNicStep ==
    \/ NicStep /\ UNCHANGED faultVars
    \/ \E t \in Threads : PutAck(t)
    \/ StrayStep
    \/ \E t \in Threads, n \in Nodes : QpError(t, n)
(* The same with QP errors only where Where(t, n) holds (a spec that checks  *)
(* the faults of some verbs only).                                           *)
FaultsNicStepWhere(Where(_, _)) ==
    \/ NicStep /\ UNCHANGED faultVars
    \/ \E t \in Threads : PutAck(t)
    \/ StrayStep
    \/ \E t \in Threads, n \in Nodes : Where(t, n) /\ QpError(t, n)

(* Fairness: BlockingVerbs' NicFairness, every WRITE is acknowledged unless  *)
(* its QP breaks, and strays settle (land or are lost). No fault is ever     *)
(* forced to happen.                                                         *)
FaultsFairness ==
    /\ \A t \in Threads : WF_allVerbVars(MemStep(t) /\ UNCHANGED faultVars)
                          /\ SF_allVerbVars(AtomicRead(t) /\ UNCHANGED faultVars)
                          /\ WF_allVerbVars(PutAck(t))
    /\ WF_allVerbVars(StrayStep)

(* An atomic of t on word l with an unknown outcome may still take effect   *)
(* (lock specs use it to say when their liveness cannot be promised).       *)
StrayAtomic(t, l) == \E r \in stray : r.t = t /\ r.last.kind \in {"cas", "faa"} /\ r.last.loc = l
=============================================================================
