---- MODULE MCMcsLockSlotEpoch ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockSlotEpoch.cfg. *)
EXTENDS MCMcsLockFaults
====
