---- MODULE MCMpscRingSkipLate ----
(* A model of MCMpscRing.tla; see MCMpscRingSkipLate.cfg. *)
EXTENDS MCMpscRing
====
