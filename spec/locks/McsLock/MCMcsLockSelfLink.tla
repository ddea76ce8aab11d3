---- MODULE MCMcsLockSelfLink ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockSelfLink.cfg. *)
EXTENDS MCMcsLockFaults
====
