----------------------------- MODULE MCSpscRing -----------------------------
(***************************************************************************)
(* Models of SpscRing: 2 slots, 4 messages (the last two wrap around); the *)
(* producer prod on node P (prod2, its second endpoint, also on P), the    *)
(* consumer cons on node C, which holds the ring.                          *)
(*   MCSpscRing.cfg        records and tail on one QP: everything holds    *)
(*   MCSpscRingSplitQp.cfg the tail on another QP: NoStaleRead violated    *)
(***************************************************************************)
EXTENDS SpscRing

MCThreads == {"prod", "prod2", "cons"}
MCNodes == {"P", "C"}
MCNodeOf == [t \in MCThreads |-> IF t = "cons" THEN "C" ELSE "P"]
MCLenLoc == [i \in 0 .. 1 |-> IF i = 0 THEN "len0" ELSE "len1"]
MCPayLoc == [i \in 0 .. 1 |-> IF i = 0 THEN "pay0" ELSE "pay1"]
MCLocs == {"tail", "head", "len0", "len1", "pay0", "pay1"}
MCHomeOf == [l \in MCLocs |-> "C"]
MCInitMem == [l \in MCLocs |-> 0]           \* 0: never written
=============================================================================
