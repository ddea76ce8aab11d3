---- MODULE MCMcsLockFaultsSlotsFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockFaultsSlotsFull.cfg. *)
EXTENDS MCMcsLockFaults
====
