---- MODULE MCMcsLockUnboundedUnlock ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockUnboundedUnlock.cfg. *)
EXTENDS MCMcsLockFaults
====
