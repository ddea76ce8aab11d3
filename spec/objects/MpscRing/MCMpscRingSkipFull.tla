---- MODULE MCMpscRingSkipFull ----
(* A model of MCMpscRing.tla; see MCMpscRingSkipFull.cfg. *)
EXTENDS MCMpscRing
====
