---- MODULE MCMcsLockReleaseFirst ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockReleaseFirst.cfg. *)
EXTENDS MCMcsLockFaults
====
