----------------------------- MODULE TornVerbs -----------------------------
(***************************************************************************)
(* Multi-word READs and WRITEs that tear (R18), for the blocking client of *)
(* BlockingVerbs: the layer of the object specs whose values span several *)
(* words (the versioned registers; the rings can use it too).             *)
(*                                                                         *)
(* Why it EXTENDS BlockingVerbs and not BlockingFaults: these models ask   *)
(* what a reader can see of writes in flight, which needs no verb to fail; *)
(* BlockingFaults' WRITEs wait for an acknowledgement that may not come,   *)
(* which doubles every WRITE's steps and buys nothing here. A writer that *)
(* crashes is a protocol step of the spec (the thread stops); its          *)
(* acknowledged WRITEs still land, as in BlockingFaults' Crash.            *)
(*                                                                         *)
(* Interface (t a thread, L a set of words on one node, W a function from  *)
(* such a set to values):                                                  *)
(*   CanPostT(t)        t may post: BlockingVerbs' CanPost and no READ of  *)
(*                      this layer outstanding                             *)
(*   StartRead(t, L)    post a READ of the words L                         *)
(*   ReadDone(t)        every word of t's READ has been read; Got(t)[l] is *)
(*                      the value read of word l; EndRead(t) clears it    *)
(*   StartWrite(t, W)   post an inline WRITE of W; like BlockingVerbs'     *)
(*                      PostPut it completes (is acknowledged) at once;   *)
(*                      StartWrites(t, <<W1, W2, ...>>) posts several in  *)
(*                      that order on one QP                               *)
(*   WritesPlaced(t, n) every WRITE of t to node n is fully placed         *)
(*   PlacesLast(t, n)   in a PlaceWord step of t to n: the word placed was *)
(*                      its WRITE's last (the WRITE is now fully placed)  *)
(*   TNicStep, TNicFairness, tornVars: the memory-system steps, their     *)
(*                      fairness, this layer's variables                   *)
(* A spec on this layer posts every WRITE, one word or more, with          *)
(* StartWrite (BlockingVerbs' pend stays empty), and its one-word READs    *)
(* and atomics with BlockingVerbs' op as before; they run through          *)
(* TGetExec and TAtomicRead here, which add R7 for this layer's WRITEs.    *)
(*                                                                         *)
(*  docs/memory-model.md   here                                            *)
(*  R18 (READ)             ReadWord(t, l): each word of a READ is read in  *)
(*                         a step of its own, in any order, interleaved    *)
(*                         with every other step: the READ is no snapshot  *)
(*  R18 (WRITE)            PlaceWord(t, n): each word of a WRITE lands in  *)
(*                         a step of its own, in any order                 *)
(*  R6                     tw[t][n] is FIFO: only the oldest WRITE of the  *)
(*                         QP places words, so a WRITE's first word lands  *)
(*                         after every word of the earlier WRITEs         *)
(*  R10                    nothing orders tw[t][n] against tw[u][m] for    *)
(*                         another QP: their words interleave              *)
(*  R3, R11 (ON_ACK)       a WRITE is inline and acknowledged when posted *)
(*                         (the source is copied then), placed later       *)
(*  R7                     a READ's words, a one-word READ and an atomic's *)
(*                         read phase wait until WritesPlaced(t, n)        *)
(*  R14                    a placed word may land inside an atomic window  *)
(*                         (as BlockingVerbs' Place)                       *)
(*  R4                     the READ's local writes are folded into Got:    *)
(*                         the thread reads them after ReadDone            *)
(*  aligned words          a word is one value: words never tear (R18)     *)
(*                                                                         *)
(* How to break it: drop WritesPlaced from TGetExec (a one-word READ no   *)
(* longer waits for the QP's WRITEs, R7): the single-writer versioned      *)
(* register's set returns before its WRITE is placed and                   *)
(* MCSingleWriterVersionedRegister fails SetLinearizable (checked by       *)
(* hand). R6 matters to writers with several WRITEs in flight on one QP    *)
(* (the seqlock twin's three, the rings').                                 *)
(***************************************************************************)
EXTENDS BlockingVerbs

VARIABLES
    tw,     \* tw[t][n]: t's WRITEs to n not yet fully placed, oldest first; each the set of its unplaced words
    tr      \* tr[t]: t's multi-word READ: [on |-> posted?, left |-> words not yet read, got |-> values read]

tornVars == <<tw, tr>>
allVars == <<nicVars, tornVars>>

NoRead == [on |-> FALSE, left |-> {}, got |-> [l \in Locs |-> 0]]

TornTypeOK ==
    /\ TypeOK
    /\ tw \in [Threads -> [Nodes -> Seq(SUBSET [loc : Locs, val : Int])]]
    /\ tr \in [Threads -> [on : BOOLEAN, left : SUBSET Locs, got : [Locs -> Int]]]
    /\ \A t \in Threads : pend[t] = [n \in Nodes |-> <<>>]   \* every WRITE goes through StartWrite

TornInit ==
    /\ NicInit
    /\ tw = [t \in Threads |-> [n \in Nodes |-> <<>>]]
    /\ tr = [t \in Threads |-> NoRead]

(***************************************************************************)
(* What a protocol step may use.                                           *)
(***************************************************************************)
CanPostT(t) == CanPost(t) /\ ~tr[t].on
WritesPlaced(t, n) == tw[t][n] = <<>>

(* Post a READ of the words L (all on one node).                           *)
StartRead(t, L) == tr' = [tr EXCEPT ![t] = [on |-> TRUE, left |-> L, got |-> [l \in Locs |-> 0]]]
ReadDone(t) == tr[t].on /\ tr[t].left = {}
Got(t) == tr[t].got
EndRead(t) == tr' = [tr EXCEPT ![t] = NoRead]

(* Post an inline WRITE of W (a function from words on one node to values); *)
(* it is acknowledged at once (R3, R11) and lands word by word later.       *)
Words(W) == {[loc |-> l, val |-> W[l]] : l \in DOMAIN W}
NodeOfWrite(W) == HomeOf[CHOOSE l \in DOMAIN W : TRUE]
StartWrite(t, W) == tw' = [tw EXCEPT ![t][NodeOfWrite(W)] = Append(@, Words(W))]
(* Several WRITEs, posted one after the other (each acknowledged at once),  *)
(* to one node: they land in this order (R6).                               *)
StartWrites(t, Ws) ==
    tw' = [tw EXCEPT ![t][NodeOfWrite(Ws[1])] = @ \o [i \in 1..Len(Ws) |-> Words(Ws[i])]]

(***************************************************************************)
(* Memory-system steps.                                                    *)
(***************************************************************************)
(* One word of t's READ is read, after t's earlier WRITEs to that node are  *)
(* placed (R7); the words go in any order, one step each (R18).             *)
ReadWord(t, l) ==
    /\ tr[t].on /\ l \in tr[t].left
    /\ WritesPlaced(t, HomeOf[l])
    /\ tr' = [tr EXCEPT ![t].left = @ \ {l}, ![t].got[l] = mem[l]]
    /\ UNCHANGED <<mem, sb, pend, op, tw>>

(* One word of the oldest WRITE of t to n lands, any of its words (R18);   *)
(* the next WRITE starts only when this one is fully placed (R6).          *)
PlaceWord(t, n) ==
    /\ tw[t][n] # <<>>
    /\ \E w \in Head(tw[t][n]) :
        /\ mem' = [mem EXCEPT ![w.loc] = w.val]
        /\ tw' = [tw EXCEPT ![t][n] = IF Head(@) = {w} THEN Tail(@) ELSE <<Head(@) \ {w}>> \o Tail(@)]
    /\ UNCHANGED <<sb, pend, op, tr>>
PlacesLast(t, n) == Len(tw'[t][n]) < Len(tw[t][n])

(* R6 is in the Head above: a later WRITE of the QP waits for this one.    *)

(* A one-word READ and an atomic's read phase also follow the QP's WRITEs  *)
(* of this layer (R7).                                                     *)
TGetExec(t) == GetExec(t) /\ WritesPlaced(t, HomeOf[op[t].loc]) /\ UNCHANGED tornVars
TAtomicRead(t) == AtomicRead(t) /\ WritesPlaced(t, HomeOf[op[t].loc]) /\ UNCHANGED tornVars
TOther(t) == (AtomicWrite(t) \/ Drain(t)) /\ UNCHANGED tornVars

TMemStep(t) ==
    \/ TGetExec(t) \/ TOther(t)
    \/ \E l \in Locs : ReadWord(t, l)
    \/ \E n \in Nodes : PlaceWord(t, n)
TNicStep == \E t \in Threads : TMemStep(t) \/ TAtomicRead(t)

(* As BlockingVerbs' NicFairness: the memory system keeps working on each  *)
(* thread's verbs; a read phase enabled infinitely often happens.          *)
TNicFairness == \A t \in Threads : WF_allVars(TMemStep(t)) /\ SF_allVars(TAtomicRead(t))
=============================================================================
