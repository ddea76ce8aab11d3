-------------------------------- MODULE RDMA --------------------------------
(***************************************************************************)
(* Litmus interpreter over the memory model of Verbs.tla.                   *)
(*                                                                         *)
(* Each thread runs a straight-line program Prog[t] of operation records:  *)
(*   [op |-> "store", loc, val]      x := v                                *)
(*   [op |-> "load", reg, loc]       a := x                                *)
(*   [op |-> "mfence"]                                                     *)
(*   [op |-> "lfaa", loc, val, reg]  locked add; reg = "" for none         *)
(*   [op |-> "verb", wr]             post WR number wr (described by Wr)   *)
(*   [op |-> "poll", node, reg]      retire the oldest completion to node; *)
(*                                   reg (if not "") gets its status code  *)
(*   [op |-> "wait", tag]            retire every completion tagged tag    *)
(* Unused fields hold "" or 0, so every record has the same fields.        *)
(* A thread on a crashed node stops where it is.                           *)
(*                                                                         *)
(* Checked by MC_* models generated from spec/litmus/*.litmus: Final is    *)
(* the litmus outcome; FinalNeverReached must hold for a forbidden outcome *)
(* and must be violated (TLC prints the witness) for an allowed one.       *)
(***************************************************************************)
EXTENDS Verbs

CONSTANTS
    Prog,       \* Prog[t]: thread t's operations
    Regs        \* the set of register names; registers start at 0

VARIABLES
    pc,         \* pc[t]: index of thread t's next operation
    reg         \* reg[r]: value of register r (register names are unique across threads)

allVars == <<mem, sb, wr, faulted, pc, reg>>

(* Status codes a poll stores in a register; the litmus final predicate     *)
(* names them (SUCCESS, WR_FLUSH_ERR, ...). The same numbers in Java:       *)
(* dev.remora.spec.litmus.StatusCode.                                       *)
StatusCode(s) ==
    CASE s = ""                -> 0
      [] s = "WR_FLUSH_ERR"    -> 1
      [] s = "REM_ACCESS_ERR"  -> 2
      [] s = "REM_INV_REQ_ERR" -> 3
      [] s = "LOC_PROT_ERR"    -> 4
      [] s = "RETRY_EXC_ERR"   -> 5

Op(t) == Prog[t][pc[t]]
Running(t) == pc[t] <= Len(Prog[t])
Step(t) == pc' = [pc EXCEPT ![t] = @ + 1]

Init ==
    /\ VerbsInit
    /\ pc = [t \in Threads |-> 1]
    /\ reg = [r \in Regs |-> 0]

ExecStore(t) ==
    /\ Op(t).op = "store"
    /\ CpuStore(t, Op(t).loc, Op(t).val)
    /\ Step(t) /\ UNCHANGED reg

ExecLoad(t) ==
    /\ Op(t).op = "load"
    /\ reg' = [reg EXCEPT ![Op(t).reg] = CpuLoad(t, Op(t).loc)]
    /\ Step(t) /\ UNCHANGED vars

ExecMFence(t) ==
    /\ Op(t).op = "mfence" /\ sb[t] = <<>>
    /\ Step(t) /\ UNCHANGED <<vars, reg>>

ExecLfaa(t) ==
    /\ Op(t).op = "lfaa"
    /\ CpuLockedAdd(t, Op(t).loc, Op(t).val)
    /\ reg' = IF Op(t).reg = "" THEN reg ELSE [reg EXCEPT ![Op(t).reg] = mem[Op(t).loc]]
    /\ Step(t)

ExecVerb(t) ==
    /\ Op(t).op = "verb"
    /\ Issue(Op(t).wr)
    /\ Step(t) /\ UNCHANGED reg

ExecPoll(t) ==
    /\ Op(t).op = "poll"
    /\ Poll(t, Op(t).node)
    /\ reg' = IF Op(t).reg = "" THEN reg
              ELSE [reg EXCEPT ![Op(t).reg] = StatusCode(wr[PollTarget(t, Op(t).node)].status)]
    /\ Step(t)

ExecWait(t) ==
    /\ Op(t).op = "wait"
    /\ Wait(t, Op(t).tag)
    /\ Step(t) /\ UNCHANGED reg

Thread(t) ==
    /\ Running(t) /\ ~Down(NodeOf[t])
    /\ \/ ExecStore(t) \/ ExecLoad(t) \/ ExecMFence(t) \/ ExecLfaa(t)
       \/ ExecVerb(t) \/ ExecPoll(t) \/ ExecWait(t)

(* Everything has run: threads of live nodes finished, store buffers        *)
(* drained, every WR completed and its effects settled. Final memory is     *)
(* read here.                                                               *)
Quiescent ==
    /\ \A t \in Threads : Down(NodeOf[t]) \/ (~Running(t) /\ sb[t] = <<>>)
    /\ NicQuiescent

(* Stuttering at the end, so that TLC's deadlock check reports only         *)
(* executions that get stuck before quiescence (for example a poll that can *)
(* never be satisfied).                                                     *)
Done == Quiescent /\ UNCHANGED allVars

Next ==
    \/ \E t \in Threads : Thread(t)
    \/ \E t \in Threads : Drain(t) /\ UNCHANGED <<pc, reg>>
    \/ \E k \in WRs : NicStep(k) /\ UNCHANGED <<pc, reg>>
    \/ \E f \in Faults : Fault(f) /\ UNCHANGED <<pc, reg>>
    \/ Done

Spec == Init /\ [][Next]_allVars
=============================================================================
