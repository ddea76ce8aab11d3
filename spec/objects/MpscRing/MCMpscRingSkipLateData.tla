---- MODULE MCMpscRingSkipLateData ----
(* A model of MCMpscRing.tla; see MCMpscRingSkipLateData.cfg. *)
EXTENDS MCMpscRing
====
