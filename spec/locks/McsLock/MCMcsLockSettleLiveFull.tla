---- MODULE MCMcsLockSettleLiveFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockSettleLiveFull.cfg. *)
EXTENDS MCMcsLockFaults
====
