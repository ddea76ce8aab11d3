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
(* Checked (MCTicketLock.cfg): TypeOK, NoTornAtomicWord, MutualExclusion,  *)
(* Publication (LK1 forbidden), FifoOrder (once t holds a ticket, nobody   *)
(* who took a later ticket enters before it), no TLC deadlock,             *)
(* StarvationFreedom (liveness: every thread that took a ticket enters).   *)
(*                                                                         *)
(* How to break it: MCTicketLockUnsafe.cfg releases with unlockWeak and    *)
(* still asserts Publication: TLC shows the CS WRITE of d still in flight  *)
(* when the next holder READs d (LK1).                                     *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of the words next and serving
    DataNode,   \* the node of the word d written in critical sections
    Ordered     \* TRUE: unlock(); FALSE: unlockWeak()

VARIABLES
    pc,         \* pc[t]: "idle", "faa", "spin", "read", "flush"
    ticket,     \* ticket[t]: the ticket thread t drew
    pub,        \* ghost: the value of the last critical-section WRITE of d
    stale       \* ghost: some critical-section READ of d returned a value other than pub

vars == <<nicVars, pc, ticket, pub, stale>>
protoVars == <<pc, ticket, pub, stale>>

ASSUME /\ DataNode # Home
       /\ \A t \in Threads : NodeOf[t] \notin {Home, DataNode}
       /\ WordMod > Cardinality(Threads)

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ ticket = [t \in Threads |-> 0]
    /\ pub = InitMem["d"]
    /\ stale = FALSE

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

Next1(t) == (ticket[t] + 1) % WordMod

ReadDone(t) ==
    LET v == 1 - Result(t) IN
    /\ pc[t] = "read" /\ Completed(t)
    /\ stale' = (stale \/ Result(t) # pub)
    /\ pub' = v
    /\ IF Ordered
       THEN PostPut(t, "d", v) /\ SetOp(t, GetOp("d")) /\ Go(t, "flush")
       ELSE PostPut2(t, "d", v, "serving", Next1(t)) /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, ticket>>

FlushDone(t) ==
    /\ pc[t] = "flush" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ PostPut(t, "serving", Next1(t)) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, ticket, pub, stale>>

Thread(t) == TakeTicket(t) \/ Drawn(t) \/ Spin(t) \/ ReadDone(t) \/ FlushDone(t)

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars)

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
(* FIFO needs distinct tickets: no two threads that drew a ticket hold the  *)
(* same one (the FETCH_ADDs are serialised by rao, even modulo WordMod).    *)
FifoOrder ==
    \A t, u \in Threads :
        t # u /\ HasTicket(t) /\ HasTicket(u) => TicketOf(t) # TicketOf(u)

Waiting(t) == pc[t] \in {"faa", "spin"}
StarvationFreedom == \A t \in Threads : Waiting(t) ~> InCS(t)
DeadlockFreedom == (\E t \in Threads : Waiting(t)) ~> (\E t \in Threads : InCS(t))
=============================================================================
