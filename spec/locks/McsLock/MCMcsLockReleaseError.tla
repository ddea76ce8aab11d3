---- MODULE MCMcsLockReleaseError ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockReleaseError.cfg. *)
EXTENDS MCMcsLockFaults
====
