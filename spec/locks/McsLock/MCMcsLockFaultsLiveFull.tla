---- MODULE MCMcsLockFaultsLiveFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockFaultsLiveFull.cfg. *)
EXTENDS MCMcsLockFaults
====
