---- MODULE MCMcsLockUnboundedUnlockFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockUnboundedUnlockFull.cfg. *)
EXTENDS MCMcsLockFaults
====
