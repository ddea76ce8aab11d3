--------------------------- MODULE BlockingVerbs ---------------------------
(***************************************************************************)
(* The RDMA model of ../rdma/Verbs.tla, specialised to the blocking client *)
(* of dev.remora.verbs.Endpoint that every lock in locks/ is written with: *)
(* a thread posts one verb and waits for its completion before it posts   *)
(* the next (readLong, writeLong, cas, faa, flush all do).                  *)
(*                                                                         *)
(* Why not INSTANCE Verbs directly: Verbs describes work requests by a     *)
(* static CONSTANT table Wr and orders them by index on a QP; a looping    *)
(* lock issues an unbounded number of WRs whose operands (expected values, *)
(* tickets, generations) are computed at run time. Wr cannot be replaced   *)
(* by a state expression (SANY: "level ... must be at most 0"), and a      *)
(* recycled slot with a lower index blocks later WRs of its QP. So this    *)
(* module keeps Verbs' state and sub-action rules and drops only what a    *)
(* blocking client cannot exercise:                                        *)
(*                                                                         *)
(*  Verbs.tla                    here (t a thread, n a node)               *)
(*  mem, sb (TSO, R1)            mem, sb: the same                         *)
(*  doorbell in sb (R2)          a post needs sb[t] = <<>>: equivalent for *)
(*                               a thread that awaits the WR it posted     *)
(*  put, inline, ON_ACK (R3,R11) PostPut appends the word to pend[t][n]    *)
(*                               and completes at once (the ack); Place    *)
(*                               lands it later. ON_ACK is the weaker knob *)
(*  R6 (put->put, one QP)        pend[t][n] is FIFO                        *)
(*  R7 (put->get/atomic, one QP) a get or an atomic read phase needs       *)
(*                               pend[t][n] = <<>>                         *)
(*  get (R4)                     remote read; the local write and the CQE  *)
(*                               are folded into completion: the result    *)
(*                               word is private and read after the CQE    *)
(*  atomic phases (R9,R14,R16)   AtomicRead / AtomicWrite, as in Verbs; a  *)
(*                               failed CAS has no write phase; rao: one   *)
(*                               atomic window per node; CPU stores, CPU   *)
(*                               locked CAS and placements may land inside *)
(*                               a window unless ATOMIC_CAP = "GLOB"       *)
(*  R8, R10, R13                 no effect: at most one WR of a thread is  *)
(*                               outstanding, so only acked puts can still *)
(*                               be in flight (R10: other QPs' puts are    *)
(*                               never waited for)                         *)
(*  R18 tearing                  every word is 8 bytes: nothing to tear    *)
(*                               (Verbs' per-word steps of a transfer are  *)
(*                               one step for a one-word transfer)         *)
(*  R17, R20 errors and faults   not here: specs that EXTEND this module   *)
(*                               assume no request fails, times out or     *)
(*                               loses its peer; BlockingFaults.tla, which *)
(*                               EXTENDS it, adds them                     *)
(*                                                                         *)
(* Words hold integers; FAA is modulo WordMod, a small stand-in for the   *)
(* 2^64 wrap-around of the real words (used by TicketLock).               *)
(*                                                                         *)
(* How to break it: drop the QPEmpty conjunct of GetExec and the ordered   *)
(* release of every lock spec loses Publication (the flush READ no longer  *)
(* waits for the critical section's WRITE).                                *)
(***************************************************************************)
EXTENDS Integers, Sequences

CONSTANTS
    Threads,        \* the set of threads
    Nodes,          \* the set of nodes
    NodeOf,         \* NodeOf[t]: the node thread t runs on
    Locs,           \* the set of 8-byte words
    HomeOf,         \* HomeOf[l]: the node whose memory holds word l
    InitMem,        \* InitMem[l]: the initial value of word l
    ATOMIC_CAP,     \* "HCA": remote atomics atomic only among themselves (R14); "GLOB": also against CPUs (R15)
    WordMod         \* arithmetic of FAA is modulo WordMod (the model's word size)

ASSUME ATOMIC_CAP \in {"HCA", "GLOB"} /\ WordMod \in Nat \ {0}

VARIABLES
    mem,    \* mem[l]: the value of word l in its home node's memory
    sb,     \* sb[t]: thread t's store buffer of [loc, val], oldest first (R1)
    pend,   \* pend[t][n]: puts of t acknowledged but not yet placed at n, in posting order (R6, R11)
    op      \* op[t]: thread t's outstanding get or atomic, or NoOp

nicVars == <<mem, sb, pend, op>>

(* The outstanding-verb record; st is "posted", "window" (an atomic between *)
(* its read and write phases) or "done" (completed, result in old).          *)
NoOp == [kind |-> "none", st |-> "done", loc |-> "none", cmp |-> 0, val |-> 0, old |-> 0]
GetOp(l) == [NoOp EXCEPT !.kind = "get", !.st = "posted", !.loc = l]
CasOp(l, c, v) == [NoOp EXCEPT !.kind = "cas", !.st = "posted", !.loc = l, !.cmp = c, !.val = v]
FaaOp(l, v) == [NoOp EXCEPT !.kind = "faa", !.st = "posted", !.loc = l, !.val = v]

TypeOK ==
    /\ mem \in [Locs -> Int]
    /\ sb \in [Threads -> Seq([loc : Locs, val : Int])]
    /\ pend \in [Threads -> [Nodes -> Seq([loc : Locs, val : Int])]]
    /\ \A t \in Threads : op[t].kind \in {"none", "get", "cas", "faa"}
                          /\ op[t].st \in {"posted", "window", "done"}

NicInit ==
    /\ mem = InitMem
    /\ sb = [t \in Threads |-> <<>>]
    /\ pend = [t \in Threads |-> [n \in Nodes |-> <<>>]]
    /\ op = [t \in Threads |-> NoOp]

(***************************************************************************)
(* What a protocol step may use.                                           *)
(***************************************************************************)
(* t may post a verb: its stores are drained (R2) and no verb is outstanding. *)
CanPost(t) == sb[t] = <<>> /\ op[t].kind = "none"
(* t's outstanding verb has completed; Result(t) is the value it returned.   *)
Completed(t) == op[t].kind # "none" /\ op[t].st = "done"
Result(t) == op[t].old

(* Post an inline WRITE of v to l; it is acknowledged (complete) at once.    *)
PostPut(t, l, v) == pend' = [pend EXCEPT ![t][HomeOf[l]] = Append(@, [loc |-> l, val |-> v])]
(* Two WRITEs posted one after the other (the second after the first's ack). *)
PostPut2(t, l1, v1, l2, v2) ==
    LET p1 == [pend EXCEPT ![t][HomeOf[l1]] = Append(@, [loc |-> l1, val |-> v1])]
    IN  pend' = [p1 EXCEPT ![t][HomeOf[l2]] = Append(@, [loc |-> l2, val |-> v2])]

(* CPU access of thread t to a word of its own node (R1).                    *)
CpuLoad(t, l) ==
    LET hits == {i \in 1..Len(sb[t]) : sb[t][i].loc = l}
    IN  IF hits = {} THEN mem[l] ELSE sb[t][CHOOSE i \in hits : \A j \in hits : j <= i].val
CpuStore(t, l, v) == sb' = [sb EXCEPT ![t] = Append(@, [loc |-> l, val |-> v])]

(***************************************************************************)
(* NIC and memory-system steps.                                            *)
(***************************************************************************)
QPEmpty(t, n) == pend[t][n] = <<>>
AtomicNew(o) == IF o.kind = "cas" THEN o.val ELSE (o.old + o.val) % WordMod
WindowAt(n) == \E u \in Threads : op[u].st = "window" /\ HomeOf[op[u].loc] = n

(* A get's remote read, after t's earlier puts to that node are placed (R7). *)
GetExec(t) ==
    /\ op[t].kind = "get" /\ op[t].st = "posted"
    /\ QPEmpty(t, HomeOf[op[t].loc])
    /\ op' = [op EXCEPT ![t].st = "done", ![t].old = mem[op[t].loc]]
    /\ UNCHANGED <<mem, sb, pend>>

(* An atomic's read phase (R7, R9, rao). Under GLOB the write phase is fused  *)
(* with it (R15); a failed CAS writes nothing (R16).                         *)
AtomicRead(t) ==
    LET o == op[t]
        n == HomeOf[o.loc]
        old == mem[o.loc]
        writes == o.kind = "faa" \/ old = o.cmp
        o2 == [o EXCEPT !.old = old]
    IN
    /\ o.kind \in {"cas", "faa"} /\ o.st = "posted"
    /\ QPEmpty(t, n) /\ ~WindowAt(n)
    /\ IF writes /\ ATOMIC_CAP = "HCA"
       THEN /\ op' = [op EXCEPT ![t] = [o2 EXCEPT !.st = "window"]]
            /\ UNCHANGED mem
       ELSE /\ op' = [op EXCEPT ![t] = [o2 EXCEPT !.st = "done"]]
            /\ mem' = IF writes THEN [mem EXCEPT ![o.loc] = AtomicNew(o2)] ELSE mem
    /\ UNCHANGED <<sb, pend>>

(* The write phase: whatever landed in the window is overwritten (R14).      *)
AtomicWrite(t) ==
    /\ op[t].st = "window"
    /\ mem' = [mem EXCEPT ![op[t].loc] = AtomicNew(op[t])]
    /\ op' = [op EXCEPT ![t].st = "done"]
    /\ UNCHANGED <<sb, pend>>

(* The oldest acknowledged put of t to n lands (R6); it may land inside an  *)
(* atomic window at n (R14).                                                *)
Place(t, n) ==
    /\ pend[t][n] # <<>>
    /\ mem' = [mem EXCEPT ![Head(pend[t][n]).loc] = Head(pend[t][n]).val]
    /\ pend' = [pend EXCEPT ![t][n] = Tail(@)]
    /\ UNCHANGED <<sb, op>>

(* The oldest store of t's buffer reaches memory (R1); it may land inside an *)
(* atomic window (R14).                                                      *)
Drain(t) ==
    /\ sb[t] # <<>>
    /\ mem' = [mem EXCEPT ![Head(sb[t]).loc] = Head(sb[t]).val]
    /\ sb' = [sb EXCEPT ![t] = Tail(@)]
    /\ UNCHANGED <<pend, op>>

NicStep ==
    \E t \in Threads : \/ GetExec(t) \/ AtomicRead(t) \/ AtomicWrite(t) \/ Drain(t)
                       \/ \E n \in Nodes : Place(t, n)

(* Fairness of the memory system, per thread: the NIC and the store buffer  *)
(* keep working on t's pending verbs, stores and puts (one weak-fairness    *)
(* condition for all of them: each is enabled until it happens, and a      *)
(* blocked thread posts nothing new, so none of them is starved by the     *)
(* others); an atomic read phase that is enabled infinitely often happens  *)
(* (the responder serves queued atomics, rao). Few fairness conditions     *)
(* keep TLC's liveness check fast.                                         *)
MemStep(t) == GetExec(t) \/ AtomicWrite(t) \/ Drain(t) \/ \E n \in Nodes : Place(t, n)
NicFairness ==
    \A t \in Threads : WF_nicVars(MemStep(t)) /\ SF_nicVars(AtomicRead(t))

(* Exported, as Verbs.tla's: an atomic's word is undisturbed inside its window. *)
NoTornAtomicWord ==
    \A t \in Threads : op[t].st = "window" => mem[op[t].loc] = op[t].old
=============================================================================
