----------------------------- MODULE TicketLock -----------------------------
(***************************************************************************)
(* dev.remora.locks.TicketLock.lock()/unlock() on the weak RDMA model      *)
(* (BlockingVerbs).                                                         *)
(*                                                                         *)
(* Protocol, per thread, in a loop:                                        *)
(*   lock   : FETCH_ADD(next, 1) -> ticket; READ serving until = ticket.   *)
(*            (Java posts the FETCH_ADD and the first READ in one doorbell *)
(*            and awaits both; R9 keeps the READ after the atomic's read   *)
(*            phase and the thread sees neither result before both         *)
(*            complete, so posting them one after the other has the same   *)
(*            behaviours.)                                                 *)
(*   CS     : READ d, WRITE d := 1 - (value read), d on DataNode           *)
(*   unlock : ordered: flush READ of d, then inline WRITE serving :=       *)
(*            ticket + 1; weak: the WRITE only                             *)
(* Tickets wrap modulo WordMod (> number of threads), like 64-bit words.   *)
(* tryLock()/lock(timeout) (READ both words, CAS next) are not modelled.   *)
(*                                                                         *)
(* Checked (MCTicketLock.cfg, 2 threads; MCTicketLock3.cfg, 3 threads):   *)
(* TypeOK, NoTornAtomicWord, MutualExclusion, Publication (LK1 forbidden), *)
(* UniqueTickets (no two threads hold the same ticket, even modulo        *)
(* WordMod), FifoOrder (the holder has the oldest outstanding ticket: the  *)
(* ghost line lists the threads holding a drawn ticket in the order their  *)
(* FETCH_ADDs read next, and only its head may be in the critical          *)
(* section), no TLC deadlock, StarvationFreedom and DeadlockFreedom        *)
(* (liveness; for 3 threads in MCTicketLock3Full.cfg, profile spec-full).  *)
(*                                                                         *)
(* How to break it: MCTicketLockUnsafe.cfg releases with unlockWeak and    *)
(* still asserts Publication: TLC shows the CS WRITE of d still in flight  *)
(* when the next holder READs d (LK1). MCTicketLockSkip.cfg (3 threads)    *)
(* releases with serving := ticket + 2 (SkipTicket): the third in line     *)
(* enters while the second still waits, and FifoOrder fails.               *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of the words next and serving
    DataNode,   \* the node of the word d written in critical sections
    Ordered,    \* TRUE: unlock(); FALSE: unlockWeak()
    SkipTicket  \* TRUE (a broken release): WRITE serving := ticket + 2

VARIABLES
    pc,         \* pc[t]: "idle", "faa", "spin", "read", "flush"
    ticket,     \* ticket[t]: the ticket thread t drew
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale,      \* ghost: some critical-section READ of d returned a value other than pub
    line        \* ghost: the threads holding a drawn ticket, in the order their FETCH_ADDs read next

vars == <<nicVars, pc, ticket, pub, stale, line>>
protoVars == <<pc, ticket, pub, stale>>

ASSUME /\ DataNode # Home
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode}
       /\ WordMod > Cardinality(Threads)
       /\ SkipTicket \in BOOLEAN

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ ticket = [t \in Threads |-> 0]
    /\ pub = InitMem["d"]
    /\ stale = FALSE
    /\ line = <<>>

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]

TakeTicket(t) ==
    /\ pc[t] = "idle" /\ CanPost(t)
    /\ SetOp(t, FaaOp("next", 1)) /\ Go(t, "faa")
    /\ UNCHANGED <<mem, sb, pend, ticket, pub, stale>>

(* The FETCH_ADD returned the ticket; READ serving.                         *)
Drawn(t) ==
    /\ pc[t] = "faa" /\ Completed(t)
    /\ ticket' = [ticket EXCEPT ![t] = Result(t)]
    /\ SetOp(t, GetOp("serving")) /\ Go(t, "spin")
    /\ UNCHANGED <<mem, sb, pend, pub, stale>>

(* A READ of serving completed: our turn (READ d), or READ again.           *)
Spin(t) ==
    /\ pc[t] = "spin" /\ Completed(t)
    /\ IF Result(t) = ticket[t]
       THEN SetOp(t, GetOp("d")) /\ Go(t, "read")
       ELSE SetOp(t, GetOp("serving")) /\ Go(t, "spin")
    /\ UNCHANGED <<mem, sb, pend, ticket, pub, stale>>

Next1(t) == (ticket[t] + IF SkipTicket THEN 2 ELSE 1) % WordMod
(* Posting the release: t leaves the line.                                  *)
Leave(t) == line' = SelectSeq(line, LAMBDA u : u # t)

ReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ pc[t] = "read" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ IF Ordered
       THEN PostPut(t, "d", v) /\ SetOp(t, GetOp("d")) /\ Go(t, "flush")
       ELSE PostPut2(t, "d", v, "serving", Next1(t)) /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ IF Ordered THEN UNCHANGED line ELSE Leave(t)
    /\ UNCHANGED <<mem, sb, ticket>>

FlushDone(t) ==
    /\ pc[t] = "flush" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ PostPut(t, "serving", Next1(t)) /\ Go(t, "idle") /\ Leave(t)
    /\ UNCHANGED <<mem, sb, ticket, pub, stale>>

Thread(t) == ((TakeTicket(t) \/ Drawn(t) \/ Spin(t)) /\ UNCHANGED line) \/ ReadDone(t) \/ FlushDone(t)

(* The FETCH_ADD of t reads next in this NIC step (its read phase): t joins  *)
(* the line. rao orders the read phases, so the line is in ticket order.    *)
DrawsNow(t) == op[t].kind = "faa" /\ op[t].loc = "next" /\ op[t].st = "posted" /\ op'[t].st # "posted"
Draw == line' = IF \E t \in Threads : DrawsNow(t)
                THEN Append(line, CHOOSE t \in Threads : DrawsNow(t)) ELSE line

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars /\ Draw)

Spec == Init /\ [][Next]_vars /\ NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
InCS(t) == \/ pc[t] \in {"read", "flush"}
           \/ pc[t] = "spin" /\ Completed(t) /\ Result(t) = ticket[t]

MutualExclusion == \A t, u \in Threads : InCS(t) /\ InCS(u) => t = u

Publication == ~stale

HasTicket(t) == pc[t] = "spin" \/ (pc[t] = "faa" /\ Completed(t))
TicketOf(t) == IF pc[t] = "faa" THEN Result(t) ELSE ticket[t]
(* No two threads that drew a ticket hold the same one (the FETCH_ADDs are  *)
(* serialised by rao, even modulo WordMod).                                 *)
UniqueTickets ==
    \A t, u \in Threads :
        t # u /\ HasTicket(t) /\ HasTicket(u) => TicketOf(t) # TicketOf(u)
(* FIFO: whoever is in the critical section has the oldest outstanding      *)
(* ticket, so nobody enters while a thread that drew before it still waits. *)
FifoOrder == \A t \in Threads : InCS(t) => line # <<>> /\ Head(line) = t

Waiting(t) == pc[t] \in {"faa", "spin"}
StarvationFreedom == \A t \in Threads : Waiting(t) ~> InCS(t)
DeadlockFreedom == (\E t \in Threads : Waiting(t)) ~> (\E t \in Threads : InCS(t))
=============================================================================
