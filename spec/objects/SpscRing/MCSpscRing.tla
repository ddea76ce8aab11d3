----------------------------- MODULE MCSpscRing -----------------------------
(***************************************************************************)
(* Models of SpscRing: 2 slots, 4 messages (the last two wrap around).     *)
(*   MCSpscRing.cfg        records and tail on one QP: everything holds    *)
(*   MCSpscRingSplitQp.cfg the tail on another QP: NoStaleRead violated    *)
(***************************************************************************)
EXTENDS SpscRing
=============================================================================
