---- MODULE MCMcsLockReleaseTimeoutFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockReleaseTimeoutFull.cfg. *)
EXTENDS MCMcsLockFaults
====
