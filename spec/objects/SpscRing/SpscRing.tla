------------------------------ MODULE SpscRing ------------------------------
(***************************************************************************)
(* dev.remora.objects.SpscRing: one producer on node P WRITEs records and  *)
(* then the tail into the ring, which lives in the consumer's memory (node *)
(* C); the consumer reads it with CPU loads and stores its head there; the *)
(* producer READs the head when its cached copy says the ring is full.     *)
(*                                                                         *)
(* Protocol (positions count records here; the code counts bytes, with     *)
(* variable-length records and a pad at the end of a lap: this model has   *)
(* fixed two-word records, a length word and a payload word, Cap slots):   *)
(*   producer, message m = 0 .. Msgs - 1, new tail p = m + 1:              *)
(*     if p - cachedHead > Cap: READ head into cachedHead (on the data     *)
(*     QP, R7); if it is still full the offer is FULL and is retried;      *)
(*     else post on one QP a two-word WRITE of record m into slot m % Cap  *)
(*     and a one-word WRITE of the tail := p. The WRITEs are acknowledged  *)
(*     at once (R11, ON_ACK, the weaker setting) and land later: the words *)
(*     of one WRITE one by one in any order (R18), the WRITEs of one QP in *)
(*     posting order (R6).                                                 *)
(*   consumer (TSO, R1; the NIC writes memory, R5): when head = its cached *)
(*     tail, load the tail; when head < tail, load the record's length     *)
(*     word, then its payload word (two steps: placements may come         *)
(*     between), deliver, and store head := head + 1 (a store-buffered    *)
(*     CPU store, after the loads, R1).                                    *)
(* Record m's words hold m + 1 (0: never written).                          *)
(*                                                                         *)
(* Checked: TypeOK; NoStaleRead (every word the consumer loads for         *)
(* position h is record h's: it never reads an unwritten, half-written or  *)
(* previous-lap record); FifoDelivery (the messages delivered are 0, 1, 2, *)
(* ... in order: no loss, no duplicate); AllDelivered (liveness: every     *)
(* message is delivered). Capacity 2 slots, 4 messages: the third and the  *)
(* fourth wrap into slots 0 and 1, each after a READ of the head.          *)
(*                                                                         *)
(* How to break it: SplitQp = TRUE posts the tail WRITE on a second QP     *)
(* (Producer.attachUnsafeSplitQueuePairs): nothing orders the two QPs     *)
(* (R10), the tail lands before the record and the consumer loads a word  *)
(* that was never written (NoStaleRead fails).                             *)
(*                                                                         *)
(* The RDMA layer is written here (the WRITE queues wq and wq2, Place): a  *)
(* multi-word WRITE is a set of words placed one at a time, the head WRITE *)
(* of a queue first. The producer's head READ executes once its QP's       *)
(* earlier WRITEs are placed (R7) and returns memory, not the consumer's   *)
(* store buffer (R5).                                                      *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Cap,        \* slots
    Msgs,       \* messages the producer offers
    SplitQp     \* TRUE: the tail WRITE goes on another QP than the records (unsafe)

ASSUME Cap \in Nat \ {0} /\ Msgs \in Nat /\ SplitQp \in BOOLEAN

Slots == 0 .. (Cap - 1)
TailLoc == <<"tail", 0>>
HeadLoc == <<"head", 0>>
Locs == {TailLoc, HeadLoc} \cup {<<"len", i>> : i \in Slots} \cup {<<"pay", i>> : i \in Slots}
Word == [loc : Locs, val : Int]

VARIABLES
    mem,        \* the consumer's memory
    wq,         \* the producer's data QP: acknowledged WRITEs not yet placed, each a set of words, oldest first
    wq2,        \* the second QP (SplitQp only): the tail WRITEs
    ptail,      \* the producer's tail: messages published
    phead,      \* the producer's cached head
    ppc,        \* "idle" or "read" (a READ of the head is posted)
    chead,      \* the consumer's head
    ctail,      \* the consumer's cached tail
    cpc,        \* "idle" or "len" (the length word is loaded)
    clen,       \* the length word loaded
    csb,        \* the consumer's store buffer (its head stores), oldest first (R1)
    got,        \* ghost: the payloads delivered, in order
    bad         \* ghost: some loaded record word was not that position's record

vars == <<mem, wq, wq2, ptail, phead, ppc, chead, ctail, cpc, clen, csb, got, bad>>

TypeOK ==
    /\ mem \in [Locs -> Int]
    /\ wq \in Seq(SUBSET Word) /\ wq2 \in Seq(SUBSET Word)
    /\ ptail \in 0 .. Msgs /\ phead \in 0 .. Msgs /\ ppc \in {"idle", "read"}
    /\ chead \in 0 .. Msgs /\ ctail \in 0 .. Msgs /\ cpc \in {"idle", "len"}
    /\ csb \in Seq(0 .. Msgs) /\ got \in Seq(Int) /\ bad \in BOOLEAN

Init ==
    /\ mem = [l \in Locs |-> 0]
    /\ wq = <<>> /\ wq2 = <<>>
    /\ ptail = 0 /\ phead = 0 /\ ppc = "idle"
    /\ chead = 0 /\ ctail = 0 /\ cpc = "idle" /\ clen = 0 /\ csb = <<>>
    /\ got = <<>> /\ bad = FALSE

(***************************************************************************)
(* Producer.                                                               *)
(***************************************************************************)
Record(m) == {[loc |-> <<"len", m % Cap>>, val |-> m + 1], [loc |-> <<"pay", m % Cap>>, val |-> m + 1]}
TailWrite(p) == {[loc |-> TailLoc, val |-> p]}

Offer ==
    LET p == ptail + 1 IN
    /\ ppc = "idle" /\ ptail < Msgs
    /\ IF p - phead > Cap
       THEN /\ ppc' = "read"
            /\ UNCHANGED <<wq, wq2, ptail>>
       ELSE /\ IF SplitQp
               THEN \* R10: records and tail on two QPs, unordered (the unsafe variant).
                    /\ wq' = Append(wq, Record(ptail))
                    /\ wq2' = Append(wq2, TailWrite(p))
               ELSE \* R6: the tail WRITE follows the record WRITE on the same QP, so it lands after every word.
                    /\ wq' = Append(Append(wq, Record(ptail)), TailWrite(p))
                    /\ UNCHANGED wq2
            /\ ptail' = p
            /\ UNCHANGED ppc
    /\ UNCHANGED <<mem, phead, chead, ctail, cpc, clen, csb, got, bad>>

(* The READ of the head executes after the data QP's earlier WRITEs are     *)
(* placed (R7) and sees memory, not the consumer's store buffer (R5). If    *)
(* the ring is still full, the offer answers FULL and the caller retries.   *)
ReadHead ==
    /\ ppc = "read" /\ wq = <<>>
    /\ phead' = mem[HeadLoc]
    /\ ppc' = "idle"
    /\ UNCHANGED <<mem, wq, wq2, ptail, chead, ctail, cpc, clen, csb, got, bad>>

Producer == Offer \/ ReadHead

(***************************************************************************)
(* Consumer.                                                               *)
(***************************************************************************)
(* R6: the tail is placed after the records it covers; R18: one word.      *)
LoadTail ==
    /\ cpc = "idle" /\ chead = ctail
    /\ ctail' = mem[TailLoc]
    /\ UNCHANGED <<mem, wq, wq2, ptail, phead, ppc, chead, cpc, clen, csb, got, bad>>

(* R1, R5: this load follows the tail's load and reads memory.             *)
LoadLen ==
    /\ cpc = "idle" /\ chead < ctail
    /\ clen' = mem[<<"len", chead % Cap>>]
    /\ cpc' = "len"
    /\ UNCHANGED <<mem, wq, wq2, ptail, phead, ppc, chead, ctail, csb, got, bad>>

LoadPayload ==
    LET v == mem[<<"pay", chead % Cap>>] IN
    /\ cpc = "len"
    /\ got' = Append(got, v)
    /\ bad' = (bad \/ clen # chead + 1 \/ v # chead + 1)
    /\ chead' = chead + 1
    \* R1: the store of the head follows the loads of the record it frees (TSO keeps stores after loads).
    /\ csb' = Append(csb, chead + 1)
    /\ cpc' = "idle"
    /\ UNCHANGED <<mem, wq, wq2, ptail, phead, ppc, ctail, clen>>

Consumer == LoadTail \/ LoadLen \/ LoadPayload

(***************************************************************************)
(* Memory system.                                                          *)
(***************************************************************************)
(* One word of the oldest WRITE of a QP lands: any word of it (R18), no     *)
(* word of a later WRITE of that QP before (R6).                            *)
Place ==
    \/ /\ wq # <<>>
       /\ \E w \in Head(wq) :
            /\ mem' = [mem EXCEPT ![w.loc] = w.val]
            /\ wq' = IF Head(wq) = {w} THEN Tail(wq) ELSE [wq EXCEPT ![1] = @ \ {w}]
       /\ UNCHANGED wq2
    \/ /\ wq2 # <<>>
       /\ \E w \in Head(wq2) :
            /\ mem' = [mem EXCEPT ![w.loc] = w.val]
            /\ wq2' = IF Head(wq2) = {w} THEN Tail(wq2) ELSE [wq2 EXCEPT ![1] = @ \ {w}]
       /\ UNCHANGED wq
Placement == Place /\ UNCHANGED <<ptail, phead, ppc, chead, ctail, cpc, clen, csb, got, bad>>

Drain ==
    /\ csb # <<>>
    /\ mem' = [mem EXCEPT ![HeadLoc] = Head(csb)]
    /\ csb' = Tail(csb)
    /\ UNCHANGED <<wq, wq2, ptail, phead, ppc, chead, ctail, cpc, clen, got, bad>>

Finished == ptail = Msgs /\ chead = Msgs /\ wq = <<>> /\ wq2 = <<>> /\ csb = <<>> /\ UNCHANGED vars

Next == Producer \/ Consumer \/ Placement \/ Drain \/ Finished

Spec == Init /\ [][Next]_vars /\ WF_vars(Producer) /\ WF_vars(Consumer) /\ WF_vars(Placement) /\ WF_vars(Drain)

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
NoStaleRead == ~bad
FifoDelivery == \A i \in 1 .. Len(got) : got[i] = i
AllDelivered == <>(Len(got) = Msgs)
=============================================================================
