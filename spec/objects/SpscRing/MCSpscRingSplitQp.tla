---- MODULE MCSpscRingSplitQp ----
(* A model of MCSpscRing.tla; see MCSpscRingSplitQp.cfg. *)
EXTENDS MCSpscRing
====
