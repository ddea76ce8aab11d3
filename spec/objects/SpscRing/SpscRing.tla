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
(* Checked: RingTypeOK; NoStaleRead (every word the consumer loads for         *)
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
(* The RDMA layer is TornVerbs (on BlockingVerbs): StartWrites posts the   *)
(* record and the tail on the producer's QP, PlaceWord lands them word by  *)
(* word; the split-QP twin posts the tail through a second thread of the   *)
(* producer (Producer.attachUnsafeSplitQueuePairs' second endpoint), whose *)
(* QP nothing orders against the first (R10). The head READ is a one-word  *)
(* READ (TGetExec: after the QP's WRITEs, R7) and sees memory, not the     *)
(* consumer's store buffer (R5). The consumer uses CpuLoad and CpuStore.   *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Cap,        \* slots
    Msgs,       \* messages the producer offers
    SplitQp,    \* TRUE: the tail WRITE goes on another QP than the records (unsafe)
    Prod,       \* the producer thread
    Prod2,      \* the producer's second endpoint (SplitQp only)
    Cons,       \* the consumer thread, on the ring's node
    Ring,       \* the consumer's node
    TailLoc,    \* the tail word
    HeadLoc,    \* the head word
    LenLoc,     \* LenLoc[i]: the length word of slot i
    PayLoc      \* PayLoc[i]: the payload word of slot i

ASSUME /\ Cap \in Nat \ {0} /\ Msgs \in Nat /\ SplitQp \in BOOLEAN
       /\ Threads = {Prod, Prod2, Cons} /\ NodeOf[Cons] = Ring /\ NodeOf[Prod] # Ring
       /\ \A l \in Locs : HomeOf[l] = Ring

VARIABLES
    ptail,      \* the producer's tail: messages published
    phead,      \* the producer's cached head
    ppc,        \* "idle" or "read" (a READ of the head is posted)
    chead,      \* the consumer's head
    ctail,      \* the consumer's cached tail
    cpc,        \* "idle" or "len" (the length word is loaded)
    clen,       \* the length word loaded
    got,        \* ghost: the payloads delivered, in order
    bad         \* ghost: some loaded record word was not that position's record

protoVars == <<ptail, phead, ppc, chead, ctail, cpc, clen, got, bad>>
vars == <<allVars, protoVars>>

RingTypeOK ==
    /\ TornTypeOK
    /\ ptail \in 0 .. Msgs /\ phead \in 0 .. Msgs /\ ppc \in {"idle", "read"}
    /\ chead \in 0 .. Msgs /\ ctail \in 0 .. Msgs /\ cpc \in {"idle", "len"}
    /\ got \in Seq(Int) /\ bad \in BOOLEAN

Init ==
    /\ TornInit
    /\ ptail = 0 /\ phead = 0 /\ ppc = "idle"
    /\ chead = 0 /\ ctail = 0 /\ cpc = "idle" /\ clen = 0
    /\ got = <<>> /\ bad = FALSE

(***************************************************************************)
(* Producer.                                                               *)
(***************************************************************************)
(* Record m's two words, and the tail word, as TornVerbs WRITEs.            *)
Record(m) == [l \in {LenLoc[m % Cap], PayLoc[m % Cap]} |-> m + 1]
TailWrite(p) == [l \in {TailLoc} |-> p]

Offer ==
    LET p == ptail + 1 IN
    /\ ppc = "idle" /\ ptail < Msgs /\ CanPostT(Prod)
    /\ IF p - phead > Cap
       THEN /\ op' = [op EXCEPT ![Prod] = GetOp(HeadLoc)]
            /\ ppc' = "read"
            /\ UNCHANGED <<tw, ptail>>
       ELSE /\ IF SplitQp
               THEN \* R10: records and tail on two QPs, unordered (the unsafe variant).
                    tw' = [tw EXCEPT ![Prod][Ring] = Append(@, Words(Record(ptail))),
                                     ![Prod2][Ring] = Append(@, Words(TailWrite(p)))]
               ELSE \* R6: the tail WRITE follows the record WRITE on the same QP, so it lands after every word.
                    StartWrites(Prod, <<Record(ptail), TailWrite(p)>>)
            /\ ptail' = p
            /\ UNCHANGED <<op, ppc>>
    /\ UNCHANGED <<mem, sb, pend, tr, phead, chead, ctail, cpc, clen, got, bad>>

(* The READ of the head completed (it ran after the QP's earlier WRITEs     *)
(* were placed, R7, and saw memory, R5). If the ring is still full, the     *)
(* offer answers FULL and the caller retries.                               *)
HeadRead ==
    /\ ppc = "read" /\ Completed(Prod)
    /\ phead' = Result(Prod)
    /\ op' = [op EXCEPT ![Prod] = NoOp]
    /\ ppc' = "idle"
    /\ UNCHANGED <<mem, sb, pend, tornVars, ptail, chead, ctail, cpc, clen, got, bad>>

Producer == Offer \/ HeadRead

(***************************************************************************)
(* Consumer.                                                               *)
(***************************************************************************)
(* R6: the tail is placed after the records it covers; R18: one word.      *)
LoadTail ==
    /\ cpc = "idle" /\ chead = ctail
    /\ ctail' = CpuLoad(Cons, TailLoc)
    /\ UNCHANGED <<allVars, ptail, phead, ppc, chead, cpc, clen, got, bad>>

(* R1, R5: this load follows the tail's load and reads memory.             *)
LoadLen ==
    /\ cpc = "idle" /\ chead < ctail
    /\ clen' = CpuLoad(Cons, LenLoc[chead % Cap])
    /\ cpc' = "len"
    /\ UNCHANGED <<allVars, ptail, phead, ppc, chead, ctail, got, bad>>

LoadPayload ==
    LET v == CpuLoad(Cons, PayLoc[chead % Cap]) IN
    /\ cpc = "len"
    /\ got' = Append(got, v)
    /\ bad' = (bad \/ clen # chead + 1 \/ v # chead + 1)
    /\ chead' = chead + 1
    \* R1: the store of the head follows the loads of the record it frees (TSO keeps stores after loads).
    /\ CpuStore(Cons, HeadLoc, chead + 1)
    /\ cpc' = "idle"
    /\ UNCHANGED <<mem, pend, op, tornVars, ptail, phead, ppc, ctail, clen>>

Consumer == LoadTail \/ LoadLen \/ LoadPayload

Finished ==
    /\ ptail = Msgs /\ chead = Msgs /\ \A t \in Threads : tw[t][Ring] = <<>> /\ sb[Cons] = <<>>
    /\ UNCHANGED vars

Next == Producer \/ Consumer \/ (TNicStep /\ UNCHANGED protoVars) \/ Finished

Spec == Init /\ [][Next]_vars /\ TNicFairness /\ WF_vars(Producer) /\ WF_vars(Consumer)

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
NoStaleRead == ~bad
FifoDelivery == \A i \in 1 .. Len(got) : got[i] = i
AllDelivered == <>(Len(got) = Msgs)
=============================================================================
