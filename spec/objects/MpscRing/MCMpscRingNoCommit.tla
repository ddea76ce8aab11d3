---- MODULE MCMpscRingNoCommit ----
(* A model of MCMpscRing.tla; see MCMpscRingNoCommit.cfg. *)
EXTENDS MCMpscRing
====
