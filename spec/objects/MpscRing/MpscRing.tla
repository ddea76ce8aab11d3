------------------------------ MODULE MpscRing ------------------------------
(***************************************************************************)
(* dev.remora.objects.MpscRing: producers on their own nodes reserve a     *)
(* position with FETCH_ADD(tail, 1) and commit it with the slot's sequence *)
(* word; the ring lives in the consumer's memory, and the consumer reads   *)
(* it with CPU loads and stores its head (and skip marks) there.           *)
(*                                                                         *)
(* Protocol, producer pr, messages k = 0 .. Msgs - 1:                      *)
(*   FETCH_ADD(tail, 1) -> p; while p - cachedHead >= Slots: READ head     *)
(*   (on its QP: R7); then post on its one QP a two-word WRITE (length,    *)
(*   payload) into slot p % Slots and a one-word WRITE seq := p + 1 (the   *)
(*   commit). The WRITEs are acknowledged at once (R11, ON_ACK) and land   *)
(*   later: the words of one WRITE one by one in any order (R18), the      *)
(*   WRITEs of one QP in posting order (R6), nothing across QPs (R10).     *)
(*   The offer then returns OK.                                            *)
(* Consumer (TSO, R1; the NIC writes memory, R5), at head h: load seq of   *)
(* slot h % Slots; if it is h + 1 load the length, then the payload, then  *)
(* store head := h + 1. Otherwise (Skips only) load the tail; if the tail  *)
(* is past h the position is reserved and uncommitted and may be skipped:  *)
(* store seq := -(h + 1) and head := h + 1.                                *)
(* A message's words hold its value (producer p1: 11, 12, ...; p2: 21, 22, *)
(* ...; 0: never written).                                                  *)
(*                                                                         *)
(* Checked: TypeOK; NoStaleRead (every word the consumer loads for         *)
(* position h is the message reserved at h: it never reads an uncommitted, *)
(* half-written or previous-lap slot); PerProducerFifo (each producer's    *)
(* messages are delivered in its order, none twice, none missing before    *)
(* the last delivered; a message given up and offered again is the same   *)
(* message); OkNotSkipped (no message whose offer returned OK is skipped); *)
(* AllDelivered (liveness, no faults: every message is delivered).         *)
(*                                                                         *)
(* Faults and the bounded skip (Skips = TRUE): at most FaultBudget events, *)
(* each either a producer giving up a reservation before posting (its      *)
(* half skip timeout passed: offer FULL, the caller offers the message     *)
(* again with a new reservation) or a crash of a Crashable producer (it    *)
(* stops; WRITEs of offers that returned OK still land; those of the offer *)
(* in progress land, or its commit is lost). The offer's acknowledgement   *)
(* is then a step of its own (Acked). Timing = TRUE is the timing          *)
(* assumption: the consumer skips only a position given up before posting  *)
(* or left uncommitted by a crash, once no WRITE of a crashed producer is  *)
(* still in flight (WRITEs posted in time land before the skip timeout, or *)
(* never). Timing = FALSE: any reserved, uncommitted position may be       *)
(* skipped, in-flight WRITEs included (the documented risk).               *)
(*                                                                         *)
(* How to break it: Design = "tail" drops the commit words: the consumer   *)
(* trusts the tail (loads it, and reads the slot once the tail is past     *)
(* its head): it reads a reserved slot before its WRITEs land (NoStaleRead *)
(* fails). Timing = FALSE: a producer's WRITEs are in flight when the      *)
(* consumer skips, and the offer returns OK (OkNotSkipped fails; the late  *)
(* WRITEs can also land in a reused slot: NoStaleRead, when checked alone).*)
(*                                                                         *)
(* Abstractions: the FETCH_ADD is one step (the tail is changed by remote *)
(* atomics only, so nothing can land inside its window; its R7 wait for   *)
(* the producer's earlier WRITEs is dropped, which only adds behaviours);  *)
(* the RDMA layer is written here (per-producer WRITE queues, Place);      *)
(* clocks are not modelled.                                                *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Producers,      \* the producers
    Slots,          \* slots of the ring
    Msgs,           \* messages each producer offers
    Design,         \* "commit" (the code) or "tail" (no commit words)
    Skips,          \* TRUE: give-ups, crashes and the consumer's skip
    Timing,         \* TRUE: the skip's timing assumption holds
    FaultBudget,    \* give-ups and crashes in one behaviour
    Crashable,      \* producers that may crash
    PBase           \* PBase[pr]: producer pr's message k has value PBase[pr] + k + 1

ASSUME /\ Slots \in Nat \ {0} /\ Msgs \in Nat /\ Design \in {"commit", "tail"}
       /\ Skips \in BOOLEAN /\ Timing \in BOOLEAN /\ FaultBudget \in Nat /\ Crashable \subseteq Producers

SlotSet == 0 .. (Slots - 1)
MaxPos == Cardinality(Producers) * Msgs + (IF Skips THEN FaultBudget ELSE 0)
PosSet == 0 .. (MaxPos - 1)
TailLoc == <<"tail", 0>>
HeadLoc == <<"head", 0>>
SeqLoc(i) == <<"seq", i>>
LenLoc(i) == <<"len", i>>
PayLoc(i) == <<"pay", i>>
Locs == {TailLoc, HeadLoc} \cup {SeqLoc(i) : i \in SlotSet} \cup {LenLoc(i) : i \in SlotSet}
        \cup {PayLoc(i) : i \in SlotSet}
Word == [loc : Locs, val : Int]
Val(pr, k) == PBase[pr] + k + 1

VARIABLES
    mem,        \* the consumer's memory
    wq,         \* wq[pr]: pr's QP: acknowledged WRITEs not yet placed, each a set of words, oldest first
    ppc,        \* ppc[pr]: "idle", "wait" (holds a reservation), "read" (READ of the head posted),
                \*   "posted" (message and commit posted, not yet acknowledged), "done"
    pk,         \* pk[pr]: the message pr is offering
    ppos,       \* ppos[pr]: its reservation
    pcache,     \* pcache[pr]: its cached head
    crashed,    \* crashed producers
    budget,     \* faults left
    chead,      \* the consumer's head
    cpc,        \* "idle", "tail" (seq loaded, not committed), "len", "pay"
    clen,       \* the length word loaded
    csb,        \* the consumer's store buffer of [loc, val], oldest first (R1)
    resv,       \* ghost: resv[p], the value of the message reserved at p (0: none)
    abandoned,  \* ghost: positions given up or left by a crash before their WRITEs were posted
    skipped,    \* ghost: positions the consumer skipped
    okPos,      \* ghost: the positions whose offer returned OK
    got,        \* ghost: the values delivered, in order
    bad         \* ghost: some loaded slot word was not the reserved message's

vars == <<mem, wq, ppc, pk, ppos, pcache, crashed, budget, chead, cpc, clen, csb, resv, abandoned, skipped,
          okPos, got, bad>>
prodVars == <<ppc, pk, ppos, pcache, crashed, budget>>
consVars == <<chead, cpc, clen, csb, skipped, got, bad>>

TypeOK ==
    /\ mem \in [Locs -> Int]
    /\ wq \in [Producers -> Seq(SUBSET Word)]
    /\ ppc \in [Producers -> {"idle", "wait", "read", "posted", "done"}]
    /\ pk \in [Producers -> 0 .. Msgs] /\ ppos \in [Producers -> Nat] /\ pcache \in [Producers -> Nat]
    /\ crashed \subseteq Crashable /\ budget \in 0 .. FaultBudget
    /\ chead \in 0 .. MaxPos /\ cpc \in {"idle", "tail", "len", "pay"} /\ clen \in Int
    /\ csb \in Seq(Word) /\ resv \in [PosSet -> Int]
    /\ abandoned \subseteq PosSet /\ skipped \subseteq PosSet /\ okPos \subseteq PosSet
    /\ got \in Seq(Int) /\ bad \in BOOLEAN

Init ==
    /\ mem = [l \in Locs |-> 0]
    /\ wq = [pr \in Producers |-> <<>>]
    /\ ppc = [pr \in Producers |-> IF Msgs = 0 THEN "done" ELSE "idle"]
    /\ pk = [pr \in Producers |-> 0] /\ ppos = [pr \in Producers |-> 0] /\ pcache = [pr \in Producers |-> 0]
    /\ crashed = {} /\ budget = FaultBudget
    /\ chead = 0 /\ cpc = "idle" /\ clen = 0 /\ csb = <<>>
    /\ resv = [p \in PosSet |-> 0] /\ abandoned = {} /\ skipped = {} /\ okPos = {}
    /\ got = <<>> /\ bad = FALSE

(***************************************************************************)
(* Producers.                                                              *)
(***************************************************************************)
Live(pr) == pr \notin crashed

(* rao: the FETCH_ADDs are serialised, so reservations are distinct (R14).  *)
Reserve(pr) ==
    LET p == mem[TailLoc] IN
    /\ Live(pr) /\ ppc[pr] = "idle"
    /\ mem' = [mem EXCEPT ![TailLoc] = p + 1]
    /\ resv' = [resv EXCEPT ![p] = Val(pr, pk[pr])]
    /\ ppos' = [ppos EXCEPT ![pr] = p]
    /\ ppc' = [ppc EXCEPT ![pr] = "wait"]
    /\ UNCHANGED <<wq, pk, pcache, crashed, budget, consVars, abandoned, okPos>>

Message(pr) == {[loc |-> LenLoc(ppos[pr] % Slots), val |-> Val(pr, pk[pr])],
                [loc |-> PayLoc(ppos[pr] % Slots), val |-> Val(pr, pk[pr])]}
Commit(pr) == {[loc |-> SeqLoc(ppos[pr] % Slots), val |-> ppos[pr] + 1]}

(* Both WRITEs are acknowledged (R11, ON_ACK: not necessarily placed): the  *)
(* offer returns OK. Without faults this is one step with the posting (a    *)
(* crash is the only thing that can come between them).                     *)
Ack(pr) ==
    /\ okPos' = okPos \cup {ppos[pr]}
    /\ pk' = [pk EXCEPT ![pr] = @ + 1]
    /\ ppc' = [ppc EXCEPT ![pr] = IF pk[pr] + 1 = Msgs THEN "done" ELSE "idle"]

(* The slot is free: post the message and its commit; not free: READ the   *)
(* head.                                                                    *)
Write(pr) ==
    /\ Live(pr) /\ ppc[pr] = "wait"
    /\ IF ppos[pr] - pcache[pr] < Slots
       THEN \* R6: the commit WRITE follows the message WRITE on the same QP, so it lands after all its words.
            /\ wq' = [wq EXCEPT ![pr] = Append(Append(@, Message(pr)), Commit(pr))]
            /\ IF Skips THEN ppc' = [ppc EXCEPT ![pr] = "posted"] /\ UNCHANGED <<pk, okPos>> ELSE Ack(pr)
       ELSE /\ ppc' = [ppc EXCEPT ![pr] = "read"]
            /\ UNCHANGED <<wq, pk, okPos>>
    /\ UNCHANGED <<mem, ppos, pcache, crashed, budget, consVars, resv, abandoned>>

Acked(pr) ==
    /\ Live(pr) /\ ppc[pr] = "posted"
    /\ Ack(pr)
    /\ UNCHANGED <<mem, wq, ppos, pcache, crashed, budget, consVars, resv, abandoned>>

(* R7: the READ executes after the producer's earlier WRITEs are placed; it *)
(* sees memory, not the consumer's store buffer (R5).                       *)
ReadHead(pr) ==
    /\ Live(pr) /\ ppc[pr] = "read" /\ wq[pr] = <<>>
    /\ pcache' = [pcache EXCEPT ![pr] = mem[HeadLoc]]
    /\ ppc' = [ppc EXCEPT ![pr] = "wait"]
    /\ UNCHANGED <<mem, wq, pk, ppos, crashed, budget, consVars, resv, abandoned, okPos>>

(* The half skip timeout passed before posting: FULL; the caller offers the *)
(* same message again.                                                      *)
GiveUp(pr) ==
    /\ Skips /\ budget > 0 /\ Live(pr) /\ ppc[pr] = "wait"
    /\ budget' = budget - 1
    /\ abandoned' = abandoned \cup {ppos[pr]}
    /\ ppc' = [ppc EXCEPT ![pr] = "idle"]
    /\ UNCHANGED <<mem, wq, pk, ppos, pcache, crashed, consVars, resv, okPos>>

(* The producer's node crashes: it stops. WRITEs of earlier offers were     *)
(* acknowledged and still land; the WRITEs of an offer not yet acknowledged *)
(* land or not: here either all of them land, or the commit is lost (the    *)
(* message's words may land, which covers their being lost too). A          *)
(* reservation left uncommitted for good is abandoned.                      *)
Crash(pr) ==
    /\ Skips /\ budget > 0 /\ pr \in Crashable /\ Live(pr)
    /\ budget' = budget - 1
    /\ crashed' = crashed \cup {pr}
    /\ \/ /\ abandoned' = IF ppc[pr] \in {"wait", "read"} THEN abandoned \cup {ppos[pr]} ELSE abandoned
          /\ UNCHANGED wq
       \/ /\ ppc[pr] = "posted" /\ wq[pr] # <<>> /\ wq[pr][Len(wq[pr])] = Commit(pr)
          /\ wq' = [wq EXCEPT ![pr] = SubSeq(@, 1, Len(@) - 1)]
          /\ abandoned' = abandoned \cup {ppos[pr]}
    /\ UNCHANGED <<mem, ppc, pk, ppos, pcache, consVars, resv, okPos>>

Producer(pr) == Reserve(pr) \/ Write(pr) \/ Acked(pr) \/ ReadHead(pr)

(***************************************************************************)
(* Consumer.                                                               *)
(***************************************************************************)
(* A CPU load sees the thread's own latest buffered store, else memory (R1). *)
Load(l) == LET hits == {i \in 1 .. Len(csb) : csb[i].loc = l}
           IN IF hits = {} THEN mem[l] ELSE csb[CHOOSE i \in hits : \A j \in hits : j <= i].val
Slot == chead % Slots

LoadSeq ==
    /\ cpc = "idle" /\ chead < MaxPos
    /\ IF Design = "commit"
       THEN \* R6: a commit is placed after its message; R18: one aligned word, never torn.
            IF Load(SeqLoc(Slot)) = chead + 1 THEN cpc' = "len"
            ELSE IF Skips THEN cpc' = "tail" ELSE UNCHANGED cpc
       ELSE \* Design "tail": the consumer trusts the tail (no commit words).
            IF Load(TailLoc) > chead THEN cpc' = "len" ELSE UNCHANGED cpc
    /\ UNCHANGED <<mem, wq, prodVars, chead, clen, csb, resv, abandoned, skipped, okPos, got, bad>>

(* R1, R5: these loads follow the sequence's load and read memory.          *)
LoadLen ==
    /\ cpc = "len"
    /\ clen' = Load(LenLoc(Slot))
    /\ cpc' = "pay"
    /\ UNCHANGED <<mem, wq, prodVars, chead, csb, resv, abandoned, skipped, okPos, got, bad>>

LoadPay ==
    LET v == Load(PayLoc(Slot)) IN
    /\ cpc = "pay"
    /\ got' = Append(got, v)
    /\ bad' = (bad \/ clen # resv[chead] \/ v # resv[chead] \/ resv[chead] = 0)
    /\ chead' = chead + 1
    \* R1: the store of the head follows the loads of the slot it frees (TSO keeps stores after loads).
    /\ csb' = Append(csb, [loc |-> HeadLoc, val |-> chead + 1])
    /\ cpc' = "idle"
    /\ UNCHANGED <<mem, wq, prodVars, clen, resv, abandoned, skipped, okPos>>

(* Not committed: load the tail; reserved and (Timing) abandoned, with no   *)
(* WRITE of a crashed producer still in flight: skip.                       *)
LoadTailSkip ==
    /\ cpc = "tail"
    /\ cpc' = "idle"
    /\ IF Load(TailLoc) > chead /\ (Timing => chead \in abandoned /\ \A pr \in crashed : wq[pr] = <<>>)
       THEN \/ /\ csb' = csb \o <<[loc |-> SeqLoc(Slot), val |-> -(chead + 1)], [loc |-> HeadLoc, val |-> chead + 1]>>
               /\ chead' = chead + 1
               /\ skipped' = skipped \cup {chead}
            \/ UNCHANGED <<csb, chead, skipped>>   \* the skip timeout has not passed yet
       ELSE UNCHANGED <<csb, chead, skipped>>
    /\ UNCHANGED <<mem, wq, prodVars, clen, resv, abandoned, okPos, got, bad>>

Consumer == LoadSeq \/ LoadLen \/ LoadPay \/ LoadTailSkip

(***************************************************************************)
(* Memory system.                                                          *)
(***************************************************************************)
(* One word of the oldest WRITE of pr's QP lands: any word of it (R18), no  *)
(* word of a later WRITE of that QP before (R6), nothing ordered against    *)
(* other producers' QPs (R10). A crashed producer's WRITEs still land.      *)
Place(pr) ==
    /\ wq[pr] # <<>>
    /\ \E w \in Head(wq[pr]) :
         /\ mem' = [mem EXCEPT ![w.loc] = w.val]
         /\ wq' = [wq EXCEPT ![pr] = IF Head(@) = {w} THEN Tail(@) ELSE [@ EXCEPT ![1] = @ \ {w}]]
    /\ UNCHANGED <<prodVars, consVars, resv, abandoned, okPos>>

Drain ==
    /\ csb # <<>>
    /\ mem' = [mem EXCEPT ![Head(csb).loc] = Head(csb).val]
    /\ csb' = Tail(csb)
    /\ UNCHANGED <<wq, prodVars, chead, cpc, clen, resv, abandoned, skipped, okPos, got, bad>>

(* Every position was consumed or skipped: nothing is left to do.           *)
Finished == chead = MaxPos /\ UNCHANGED vars

Next ==
    \/ Finished
    \/ \E pr \in Producers : Producer(pr) \/ GiveUp(pr) \/ Crash(pr) \/ Place(pr)
    \/ Consumer \/ Drain

Spec == Init /\ [][Next]_vars /\ WF_vars(Consumer) /\ WF_vars(Drain)
        /\ \A pr \in Producers : WF_vars(Producer(pr)) /\ WF_vars(Place(pr))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
NoStaleRead == ~bad

Of(pr) == SelectSeq(got, LAMBDA v : v > PBase[pr] /\ v <= PBase[pr] + Msgs)
PerProducerFifo ==
    /\ \A pr \in Producers : \A i \in 1 .. Len(Of(pr)) : Of(pr)[i] = Val(pr, i - 1)
    /\ \A i \in 1 .. Len(got) : \E pr \in Producers : got[i] > PBase[pr] /\ got[i] <= PBase[pr] + Msgs

OkNotSkipped == skipped \cap okPos = {}

AllDelivered == <>(Len(got) = Cardinality(Producers) * Msgs)
=============================================================================
