---- MODULE MCMpscRingSkip ----
(* A model of MCMpscRing.tla; see MCMpscRingSkip.cfg. *)
EXTENDS MCMpscRing
====
