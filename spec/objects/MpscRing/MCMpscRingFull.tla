---- MODULE MCMpscRingFull ----
(* A model of MCMpscRing.tla; see MCMpscRingFull.cfg. *)
EXTENDS MCMpscRing
====
