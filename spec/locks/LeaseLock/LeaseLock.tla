----------------------------- MODULE LeaseLock -----------------------------
(***************************************************************************)
(* LeaseLock and its FencedRegister on the weak RDMA model (BlockingVerbs). *)
(*                                                                         *)
(* Words: g on Home, the generation (odd = held, even = free), changed     *)
(* only by remote CAS; reg on RegNode, the fenced register, token * Base + *)
(* value (Java: token:32 | value:32).                                      *)
(*                                                                         *)
(* Protocol, per thread, in a loop:                                        *)
(*   lock     : READ g. Even: CAS(g, g -> g+1). Odd: the lease of someone  *)
(*              else; once (g, heartbeat) looked unchanged for the lease   *)
(*              duration by our clock, CAS(g, g -> g+2) (takeover). The    *)
(*              token is the odd generation the CAS installed.             *)
(*   CS       : fenced write: READ reg; if its token <= ours, CAS(reg,     *)
(*              old -> token * Base + value), re-READ on failure; a larger *)
(*              token refuses the write (LEASE_EXPIRED).                   *)
(*   unlock   : CAS(g, token -> token+1); failure = the lease was lost.    *)
(* Abstraction: the model has no clocks, so a holder may pause for any     *)
(* time and a waiter may decide that the lease expired whenever it sees g  *)
(* odd. The heartbeat word only decides *when* a real waiter takes over;   *)
(* every takeover it permits is one of the model's, so it is left out      *)
(* (safety is checked for all timings; liveness of takeover needs clocks   *)
(* and is not checked). Generations stop at MaxGen: a thread that would    *)
(* exceed it stops.                                                        *)
(*                                                                         *)
(* Checked (MCLeaseLock.cfg): TypeOK, NoTornAtomicWord, UniqueTokens (no   *)
(* two threads hold the same token), GenerationMonotone and LeaseSafety    *)
(* (action properties: g and the register's token never decrease, so no    *)
(* write with a stale token lands after a newer holder's write), no TLC    *)
(* deadlock before every thread stops.                                     *)
(*                                                                         *)
(* How to break it: MCLeaseLockUnsafe.cfg writes the register with a plain *)
(* WRITE (no fencing): the pre-empted holder's WRITE lands after the new   *)
(* holder's and LeaseSafety fails.                                         *)
(***************************************************************************)
EXTENDS BlockingVerbs

CONSTANTS
    Home,       \* the node of the generation word g
    RegNode,    \* the node of the fenced register reg
    Base,       \* reg = token * Base + value
    Val,        \* Val[t]: the value thread t writes (0 < Val[t] < Base)
    MaxGen,     \* the largest generation the model reaches
    Fenced      \* TRUE: the CAS-based fenced write; FALSE: a plain WRITE

VARIABLES
    pc,         \* pc[t]: "idle", "rg", "acq", "fr", "fc", "rel", "stop"
    gen,        \* gen[t]: the generation read / the token held
    seen        \* seen[t]: the register word read by the fenced write

vars == <<nicVars, pc, gen, seen>>
protoVars == <<pc, gen, seen>>

ASSUME /\ \A t \in Threads : NodeOf[t] \notin {Home, RegNode} /\ Val[t] \in 1..(Base - 1)
       /\ MaxGen % 2 = 1

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ gen = [t \in Threads |-> 0]
    /\ seen = [t \in Threads |-> 0]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Token(w) == w \div Base

ReadGen(t) ==
    /\ pc[t] = "idle" /\ CanPost(t)
    /\ SetOp(t, GetOp("g")) /\ Go(t, "rg")
    /\ UNCHANGED <<mem, sb, pend, gen, seen>>

(* g read: take a free lock, or take over an expired lease, or stop at MaxGen. *)
GenRead(t) ==
    LET g == Result(t)
        new == IF g % 2 = 0 THEN g + 1 ELSE g + 2
    IN
    /\ pc[t] = "rg" /\ Completed(t)
    /\ gen' = [gen EXCEPT ![t] = g]
    /\ IF new <= MaxGen
       THEN SetOp(t, CasOp("g", g, new)) /\ Go(t, "acq")
       ELSE SetOp(t, NoOp) /\ Go(t, "stop")
    /\ UNCHANGED <<mem, sb, pend, seen>>

(* The acquiring CAS returned: on success the token is the new generation.  *)
Acquired(t) ==
    LET g == gen[t]
        new == IF g % 2 = 0 THEN g + 1 ELSE g + 2
    IN
    /\ pc[t] = "acq" /\ Completed(t)
    /\ IF Result(t) = g
       THEN /\ gen' = [gen EXCEPT ![t] = new]
            /\ IF Fenced
               THEN SetOp(t, GetOp("reg")) /\ Go(t, "fr") /\ UNCHANGED pend
               ELSE PostPut(t, "reg", new * Base + Val[t]) /\ SetOp(t, CasOp("g", new, new + 1))
                    /\ Go(t, "rel")
       ELSE SetOp(t, NoOp) /\ Go(t, "idle") /\ UNCHANGED <<gen, pend>>
    /\ UNCHANGED <<mem, sb, seen>>

(* Fenced write: the register READ returned; refuse, or CAS our value in.   *)
FencedRead(t) ==
    /\ pc[t] = "fr" /\ Completed(t)
    /\ seen' = [seen EXCEPT ![t] = Result(t)]
    /\ IF Token(Result(t)) <= gen[t]
       THEN SetOp(t, CasOp("reg", Result(t), gen[t] * Base + Val[t])) /\ Go(t, "fc")
       ELSE SetOp(t, CasOp("g", gen[t], gen[t] + 1)) /\ Go(t, "rel")   \* refused: release
    /\ UNCHANGED <<mem, sb, pend, gen>>

FencedCas(t) ==
    /\ pc[t] = "fc" /\ Completed(t)
    /\ IF Result(t) = seen[t]
       THEN SetOp(t, CasOp("g", gen[t], gen[t] + 1)) /\ Go(t, "rel")   \* written: release
       ELSE SetOp(t, GetOp("reg")) /\ Go(t, "fr")                     \* raced: READ again
    /\ UNCHANGED <<mem, sb, pend, gen, seen>>

(* The releasing CAS returned (it failed if the lease was taken over).      *)
Released(t) ==
    /\ pc[t] = "rel" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, gen, seen>>

Thread(t) == ReadGen(t) \/ GenRead(t) \/ Acquired(t) \/ FencedRead(t) \/ FencedCas(t) \/ Released(t)

(* Every thread has stopped and the memory system is idle.                  *)
Finished ==
    /\ \A t \in Threads : pc[t] = "stop" /\ sb[t] = <<>> /\ \A n \in Nodes : pend[t][n] = <<>>
    /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (NicStep /\ UNCHANGED protoVars) \/ Finished

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
Holds(t) == pc[t] \in {"fr", "fc", "rel"} \/ (pc[t] = "acq" /\ Completed(t) /\ Result(t) = gen[t])
TokenOf(t) == IF pc[t] = "acq" THEN (IF gen[t] % 2 = 0 THEN gen[t] + 1 ELSE gen[t] + 2) ELSE gen[t]

UniqueTokens == \A t, u \in Threads : t # u /\ Holds(t) /\ Holds(u) => TokenOf(t) # TokenOf(u)

GenerationMonotone == [][mem'["g"] >= mem["g"]]_vars
LeaseSafety == [][Token(mem'["reg"]) >= Token(mem["reg"])]_vars
=============================================================================
