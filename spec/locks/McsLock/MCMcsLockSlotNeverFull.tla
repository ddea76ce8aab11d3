---- MODULE MCMcsLockSlotNeverFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockSlotNeverFull.cfg. *)
EXTENDS MCMcsLockFaults
====
