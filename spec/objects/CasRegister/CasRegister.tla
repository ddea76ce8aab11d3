----------------------------- MODULE CasRegister -----------------------------
(***************************************************************************)
(* dev.remora.objects.CasRegister on the weak RDMA model (BlockingVerbs):  *)
(* a register word x on node Home changed only by remote CAS.              *)
(*                                                                         *)
(* Protocol, per thread, MaxOps operations, each one of:                   *)
(*   get             : READ x; last := the value read; return it.          *)
(*   compareAndSet(e, d): CAS(x, e, d) -> p; last := (p = e ? d : p);      *)
(*                     return p = e.                                       *)
(*   getAndSet(d)    : e := last; CAS(x, e, d) -> p until p = e, e := p    *)
(*                     after each failure; last := d; return p.            *)
(* (last is the handle's lastSeen; the Java's MAX_ATTEMPTS bound is not    *)
(* modelled: a CAS fails only when another succeeded.)                     *)
(* MixedWrite = TRUE (the unsafe twin) adds RemoteRegister's set(d) on the *)
(* same word, a WRITE and a flush READ, which the javadoc forbids.         *)
(*                                                                         *)
(* Checked: linearizability against an atomic register abs, by             *)
(* linearization points. A CAS that fails takes effect at its read phase   *)
(* (it writes nothing, R16); one that succeeds at its write phase, which   *)
(* follows the read phase with no other atomic between (rao, R14), so the  *)
(* value it compared is still abs there (NoTornAtomicWord): a READ that    *)
(* executes inside the window reads the old value and is linearized       *)
(* before it. CasLinearizable: a returning CAS returned abs as it was at   *)
(* its point, and succeeded iff that equalled its expected value. A get at *)
(* its READ (GetLinearizable). A set (twin only) at its WRITE's placement. *)
(*                                                                         *)
(* How to break it: MixedWrite = TRUE (MCCasRegisterMixedWrite.cfg): the   *)
(* WRITE lands inside a CAS's window (R14) and is overwritten; the CAS     *)
(* returns the value it read, not the set's value that abs held at its     *)
(* point (CasLinearizable).                                                *)
(***************************************************************************)
EXTENDS BlockingVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of x
    Vals,       \* the values operations use
    MaxOps,     \* operations per thread
    MixedWrite  \* TRUE: the unsafe twin with WRITE-based sets

ASSUME /\ ATOMIC_CAP = "HCA" /\ Locs = {"x"} /\ HomeOf["x"] = Home /\ InitMem["x"] \in Vals
       /\ \A t \in Threads : NodeOf[t] # Home /\ MixedWrite \in BOOLEAN

VARIABLES
    pc,         \* "idle", "get", "cas" (compareAndSet), "gas" (getAndSet's CAS), "setw" (WRITE posted), "setf"
    nops,       \* operations invoked
    last,       \* last[t]: the value t's handle saw last
    abs,        \* ghost: the atomic register
    lin,        \* ghost: lin[t], t's current operation has taken effect
    linRes      \* ghost: linRes[t], abs at t's point, before its effect

protoVars == <<pc, nops, last>>
ghostVars == <<abs, lin, linRes>>
vars == <<nicVars, protoVars, ghostVars>>

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ last = [t \in Threads |-> InitMem["x"]]
    /\ abs = InitMem["x"]
    /\ lin = [t \in Threads |-> FALSE]
    /\ linRes = [t \in Threads |-> 0]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Invoke(t) == /\ pc[t] = "idle" /\ nops[t] < MaxOps /\ CanPost(t)
             /\ nops' = [nops EXCEPT ![t] = @ + 1]
             /\ lin' = [lin EXCEPT ![t] = FALSE]
             /\ UNCHANGED <<mem, sb, last, abs, linRes>>

Start(t) ==
    /\ Invoke(t)
    /\ \/ SetOp(t, GetOp("x")) /\ Go(t, "get") /\ UNCHANGED pend
       \/ \E e, d \in Vals : SetOp(t, CasOp("x", e, d)) /\ Go(t, "cas") /\ UNCHANGED pend
       \/ \E d \in Vals : SetOp(t, CasOp("x", last[t], d)) /\ Go(t, "gas") /\ UNCHANGED pend
       \/ MixedWrite /\ \E d \in Vals : PostPut(t, "x", d) /\ Go(t, "setw") /\ UNCHANGED op

Learn(t, v) == last' = [last EXCEPT ![t] = v]
Idle(t) == SetOp(t, NoOp) /\ Go(t, "idle")

GetReturn(t) ==
    /\ pc[t] = "get" /\ Completed(t)
    /\ Learn(t, Result(t)) /\ Idle(t)
    /\ UNCHANGED <<mem, sb, pend, nops, ghostVars>>

CasReturn(t) ==
    /\ pc[t] = "cas" /\ Completed(t)
    /\ Learn(t, IF Result(t) = op[t].cmp THEN op[t].val ELSE Result(t)) /\ Idle(t)
    /\ UNCHANGED <<mem, sb, pend, nops, ghostVars>>

(* getAndSet: a failed CAS is retried expecting the value it returned: the *)
(* CAS that installed it is ordered before the retry (rao, R14).           *)
GasStep(t) ==
    /\ pc[t] = "gas" /\ Completed(t)
    /\ IF Result(t) = op[t].cmp
       THEN Learn(t, op[t].val) /\ Idle(t)
       ELSE SetOp(t, CasOp("x", Result(t), op[t].val)) /\ UNCHANGED <<pc, last>>
    /\ UNCHANGED <<mem, sb, pend, nops, ghostVars>>

(* The twin's set: the flush READ behind the WRITE on one QP (R7).         *)
SetAcked(t) ==
    /\ pc[t] = "setw" /\ SetOp(t, GetOp("x")) /\ Go(t, "setf")
    /\ UNCHANGED <<mem, sb, pend, nops, last, ghostVars>>
SetReturn(t) ==
    /\ pc[t] = "setf" /\ Completed(t) /\ Idle(t)
    /\ UNCHANGED <<mem, sb, pend, nops, last, ghostVars>>

Thread(t) == Start(t) \/ GetReturn(t) \/ CasReturn(t) \/ GasStep(t) \/ SetAcked(t) \/ SetReturn(t)

(* Linearization points. A CAS of getAndSet that fails is not its point.   *)
Point(t) == /\ lin' = [lin EXCEPT ![t] = TRUE]
            /\ linRes' = [linRes EXCEPT ![t] = abs]
Memory ==
    \E t \in Threads :
        \/ /\ GetExec(t)
           /\ IF pc[t] = "get" THEN Point(t) ELSE UNCHANGED <<lin, linRes>>
           /\ UNCHANGED abs
        \/ /\ AtomicRead(t)
           \* A compareAndSet that fails: its read phase is all it does.
           /\ IF pc[t] = "cas" /\ mem["x"] # op[t].cmp THEN Point(t) ELSE UNCHANGED <<lin, linRes>>
           /\ UNCHANGED abs
        \/ /\ AtomicWrite(t)
           /\ Point(t)
           /\ abs' = op[t].val
        \/ /\ Place(t, Home)
           /\ abs' = Head(pend[t][Home]).val
           /\ lin' = [lin EXCEPT ![t] = TRUE]
           /\ UNCHANGED linRes
        \/ Drain(t) /\ UNCHANGED ghostVars

Finished == (\A t \in Threads : pc[t] = "idle" /\ nops[t] = MaxOps) /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars /\ NicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
Returning(t, k) == pc[t] = k /\ Completed(t)
GetLinearizable == \A t \in Threads : Returning(t, "get") => lin[t] /\ Result(t) = linRes[t]
CasLinearizable ==
    \A t \in Threads :
        (Returning(t, "cas") \/ (Returning(t, "gas") /\ Result(t) = op[t].cmp))
            => lin[t] /\ Result(t) = linRes[t]
SetLinearizable == \A t \in Threads : Returning(t, "setf") => lin[t]
AbsIsMemory == abs = mem["x"]

AllReturn == <>[](\A t \in Threads : pc[t] = "idle")
=============================================================================
