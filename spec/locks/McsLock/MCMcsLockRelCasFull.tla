---- MODULE MCMcsLockRelCasFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockRelCasFull.cfg. *)
EXTENDS MCMcsLockFaults
====
