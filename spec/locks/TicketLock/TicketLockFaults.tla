------------------------- MODULE TicketLockFaults -------------------------
(***************************************************************************)
(* dev.remora.locks.TicketLock.lock()/unlock() under timeouts, QP errors   *)
(* of the FETCH_ADD and client crashes (BlockingFaults), in two versions   *)
(* chosen by Design.                                                       *)
(*                                                                         *)
(* Both, per thread, in a loop: FETCH_ADD(next, 1) -> ticket; READ serving *)
(* until = ticket; the critical section; WRITE serving := ticket + 1. The  *)
(* critical section is one step here (pc "cs"): the faults modelled hit    *)
(* only the FETCH_ADD and the READs of serving (timeouts), so its verbs    *)
(* and the flush behave as in TicketLock.tla, where Publication is         *)
(* checked. A QP error of a READ of serving is left out: the fixed handle  *)
(* posts the READ again, and what the break does to the QP's unplaced      *)
(* WRITEs (the handle's last release) the FETCH_ADD's break does too.      *)
(*                                                                         *)
(* "current": a FETCH_ADD whose waiter times out, and a READ of serving    *)
(* that times out or fails, make lock() throw: the handle gives its ticket *)
(* up (held = false), though the FETCH_ADD may still land and the ticket   *)
(* is in line. (The FETCH_ADD's wait is the lock's own tag, which does not *)
(* retire the QP; the model retires it, RETIRE_ON_TIMEOUT, which only lets *)
(* the FETCH_ADD be lost as well.) The next lock() takes a new ticket.     *)
(*                                                                         *)
(* "fixed": the ticket of a FETCH_ADD is kept once its completion arrives: *)
(* a timed-out FETCH_ADD stays unsettled and the handle's next operation   *)
(* waits for it (the handle stays in line). lock(timeout) that reaches its *)
(* deadline while waiting for its turn returns TIMED_OUT and keeps the     *)
(* ticket (pc "parked"); the caller then calls lock() again, or abandons:  *)
(* the handle waits for its turn and passes it on with WRITE serving :=    *)
(* ticket + 1, without a critical section. A READ of serving that fails is *)
(* posted again. A FETCH_ADD that completes with an error (its QP broke,   *)
(* outcome unknown) cannot be kept: the handle does not know whether it    *)
(* drew a ticket; if it did, nobody will ever pass that turn on.           *)
(*                                                                         *)
(* Ghost line: the tickets drawn and not yet passed on, in the order the   *)
(* FETCH_ADDs read next (rao), each [t, st]: st = "live" (t knows it and   *)
(* uses it), "unknown" (drawn by a FETCH_ADD whose outcome t was told is   *)
(* unknown), "dropped" (given up by the current lock()). A crashed         *)
(* client's entries stay.                                                  *)
(*                                                                         *)
(* Checked: TypeOK, MutualExclusion, FifoOrder (the holder is the head of *)
(* the line, and it is live), StarvationFreedom (a live waiter eventually  *)
(* enters, unless it abandons) and StarvationFreedomUnlessStalled (the     *)
(* same unless a ticket ahead of it is "unknown" or a crashed client's:    *)
(* Stalled).                                                               *)
(*                                                                         *)
(* Models (MCTicketLockFaults.tla): MCTicketLockDropped (current,          *)
(* timeouts: StarvationFreedomUnlessStalled fails, a given-up ticket       *)
(* stalls the lock), MCTicketLockStall (fixed, QP errors:                  *)
(* StarvationFreedom fails, exactly by an unknown ticket),                 *)
(* MCTicketLockFaults (fixed, every fault: safety and                      *)
(* StarvationFreedomUnlessStalled hold).                                   *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Home,       \* the node of next and serving
    Design      \* "current" or "fixed"

VARIABLES
    pc,         \* pc[t]: "idle", "faa", "unsettled", "spin", "parked", "cs", "rel", "pass"
    ticket,     \* ticket[t]: the ticket t holds
    quit,       \* fixed: quit[t]: t abandons its ticket (passes its turn on without a critical section)
    line        \* ghost: the drawn tickets, oldest first, each [t |-> thread, st |-> "live"/"unknown"/"dropped"]

vars == <<allVerbVars, pc, ticket, quit, line>>

Fixed == Design = "fixed"

ASSUME /\ Design \in {"current", "fixed"}
       /\ \A t \in Threads : NodeOf[t] # Home
       /\ HomeOf["next"] = Home /\ HomeOf["serving"] = Home
       /\ Fixed = ~RETIRE_ON_TIMEOUT /\ ~TRACK_PUBLICATION

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ ticket = [t \in Threads |-> 0]
    /\ quit = [t \in Threads |-> FALSE]
    /\ line = <<>>

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
Done(t) == Completed(t) \/ Failed(t)
Next1(t) == (ticket[t] + 1) % WordMod
(* t's live entry (if its FETCH_ADD read next) becomes st.                  *)
Mark(t, st) == line' = [i \in DOMAIN line |-> IF line[i] = [t |-> t, st |-> "live"] THEN [t |-> t, st |-> st]
                                              ELSE line[i]]

TakeTicket(t) ==
    /\ Live(t) /\ pc[t] = "idle" /\ CanPost(t)
    /\ Post(t, FaaOp("next", 1)) /\ Go(t, "faa")
    /\ UNCHANGED <<ticket, quit, line>>

(* The FETCH_ADD completed: the ticket; READ serving. An error (fixed: the  *)
(* QP broke; current: also a timeout): the handle does not hold a ticket.   *)
FaaDone(t) ==
    /\ Live(t) /\ pc[t] = "faa" /\ Done(t)
    /\ IF Completed(t)
       THEN /\ ticket' = [ticket EXCEPT ![t] = Result(t)]
            /\ Post(t, GetOp("serving")) /\ Go(t, "spin") /\ UNCHANGED line
       ELSE /\ Mark(t, IF Fixed THEN "unknown" ELSE "dropped")
            /\ Post(t, NoOp) /\ Go(t, "idle") /\ UNCHANGED ticket
    /\ UNCHANGED <<quit>>

(* The FETCH_ADD's waiter times out. Current: lock() throws (TimeOut retires *)
(* the QP; FaaDone then gives up). Fixed: it stays unsettled.               *)
FaaTimeOut(t) ==
    /\ pc[t] = "faa" /\ TimeOut(t)
    /\ IF Fixed THEN Go(t, "unsettled") ELSE UNCHANGED pc
    /\ UNCHANGED <<ticket, quit, line>>

(* Fixed: the handle's next operation waits for the unsettled FETCH_ADD.    *)
Resume(t) ==
    /\ Live(t) /\ pc[t] = "unsettled"
    /\ Go(t, "faa")
    /\ UNCHANGED <<allVerbVars, ticket, quit, line>>

(* A READ of serving completed: our turn (the critical section, or, when    *)
(* abandoning, pass it on), or READ again. An error: current, lock() throws *)
(* and the ticket is given up; fixed, READ again.                           *)
Spin(t) ==
    /\ Live(t) /\ pc[t] = "spin" /\ Done(t)
    /\ CASE Completed(t) /\ Result(t) = ticket[t] /\ quit[t] ->
              Post(t, PutOp("serving", Next1(t))) /\ Go(t, "pass") /\ UNCHANGED line
         [] Completed(t) /\ Result(t) = ticket[t] ->
              Post(t, NoOp) /\ Go(t, "cs") /\ UNCHANGED line
         [] Completed(t) \/ Fixed ->
              Post(t, GetOp("serving")) /\ UNCHANGED <<pc, line>>
         [] OTHER ->
              Post(t, NoOp) /\ Go(t, "idle") /\ Mark(t, "dropped")
    /\ ticket' = [ticket EXCEPT ![t] = IF pc'[t] = "idle" THEN 0 ELSE @]   \* 0 when idle: fewer states
    /\ UNCHANGED quit

(* A READ of serving times out. Current: readLong retires the QP and lock() *)
(* throws (Spin gives the ticket up).                                       *)
SpinTimeOut(t) ==
    /\ ~Fixed /\ pc[t] = "spin" /\ TimeOut(t)
    /\ UNCHANGED <<pc, ticket, quit, line>>

(* Fixed: lock(timeout) reaches its deadline between two READs of serving   *)
(* that were not our turn: TIMED_OUT, the ticket is kept.                   *)
Deadline(t) ==
    /\ Fixed /\ Live(t) /\ pc[t] = "spin" /\ ~quit[t] /\ Completed(t) /\ Result(t) # ticket[t]
    /\ Expire /\ Go(t, "parked")
    /\ UNCHANGED <<ticket, quit, line>>

(* Fixed: after TIMED_OUT the caller calls lock() again, or abandons.       *)
Unpark(t) ==
    /\ Live(t) /\ pc[t] = "parked"
    /\ \E q \in BOOLEAN : quit' = [quit EXCEPT ![t] = q]
    /\ Post(t, GetOp("serving")) /\ Go(t, "spin")
    /\ UNCHANGED <<ticket, line>>

(* The critical section, then the release WRITE.                           *)
Release(t) ==
    /\ Live(t) /\ pc[t] = "cs"
    /\ Post(t, PutOp("serving", Next1(t))) /\ Go(t, "rel")
    /\ UNCHANGED <<ticket, quit, line>>

(* The WRITE of serving (release or pass) is acknowledged.                  *)
Passed(t) ==
    /\ Live(t) /\ pc[t] \in {"rel", "pass"} /\ Completed(t)
    /\ quit' = [quit EXCEPT ![t] = FALSE]
    /\ ticket' = [ticket EXCEPT ![t] = 0]
    /\ Post(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED line

FairThread(t) == TakeTicket(t) \/ FaaDone(t) \/ Resume(t) \/ Spin(t) \/ Unpark(t) \/ Release(t) \/ Passed(t)
Faults(t) == FaaTimeOut(t) \/ SpinTimeOut(t) \/ Deadline(t)

(* The line grows when a FETCH_ADD reads next: the thread's own (live), or   *)
(* a stray one of a replaced QP (unknown, or dropped by the current lock()). *)
(* Its head leaves when a WRITE of serving lands (only the head's turn is    *)
(* ever passed on): a holder that crashes before its WRITE lands stays at   *)
(* the head, and if the WRITE is lost, nobody gets the next turn.           *)
DrawsNow(t) == op[t].kind = "faa" /\ op[t].st = "posted" /\ op'[t].st \in {"window", "done"}
StrayDraw(r) == r.puts = <<>> /\ r.last.kind = "faa" /\ r \notin stray' /\ mem'["next"] # mem["next"]
Draw ==
    line' = CASE \E t \in Threads : DrawsNow(t) ->
                   Append(line, [t |-> CHOOSE t \in Threads : DrawsNow(t), st |-> "live"])
              [] \E r \in stray : StrayDraw(r) ->
                   Append(line, [t |-> (CHOOSE r \in stray : StrayDraw(r)).t,
                                 st |-> IF Fixed THEN "unknown" ELSE "dropped"])
              [] mem'["serving"] # mem["serving"] -> Tail(line)
              [] OTHER -> line

(* QP errors strike the FETCH_ADD.                                          *)
QpWhere(t, n) == n = Home /\ op[t].kind = "faa"

Next ==
    \/ \E t \in Threads : FairThread(t) \/ Faults(t)
    \/ \E t \in Threads : Crash(t) /\ UNCHANGED <<pc, ticket, quit, line>>
    \/ FaultsNicStepWhere(QpWhere) /\ Draw /\ UNCHANGED <<pc, ticket, quit>>

Spec == Init /\ [][Next]_vars /\ FaultsFairness /\ \A t \in Threads : WF_vars(FairThread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
InCS(t) == \/ pc[t] = "cs"
           \/ pc[t] = "spin" /\ Completed(t) /\ Result(t) = ticket[t] /\ ~quit[t]

MutualExclusion == \A t, u \in Threads : InCS(t) /\ InCS(u) => t = u

FifoOrder == \A t \in Threads : InCS(t) => line # <<>> /\ Head(line) = [t |-> t, st |-> "live"]

Dead(e) == e.st = "unknown" \/ e.t \in crashed
Pos(t) == CHOOSE i \in DOMAIN line : line[i] = [t |-> t, st |-> "live"]
InLine(t) == \E i \in DOMAIN line : line[i] = [t |-> t, st |-> "live"]
(* A ticket ahead of t's (or, before t has drawn, anywhere in line) will     *)
(* never be passed on: its FETCH_ADD's outcome was unknown, or its client   *)
(* crashed.                                                                 *)
Stalled(t) == \E i \in DOMAIN line : Dead(line[i]) /\ (InLine(t) => i < Pos(t))

Waiting(t) == Live(t) /\ ~quit[t] /\ pc[t] \in {"faa", "unsettled", "spin", "parked"}
(* A live waiter enters, unless it abandons or crashes.                     *)
StarvationFreedom == \A t \in Threads : Waiting(t) ~> (InCS(t) \/ quit[t] \/ ~Live(t))
StarvationFreedomUnlessStalled ==
    \A t \in Threads : Waiting(t) ~> (InCS(t) \/ quit[t] \/ ~Live(t) \/ Stalled(t))
=============================================================================
