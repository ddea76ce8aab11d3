---- MODULE MCMcsLockFaultsFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockFaultsFull.cfg. *)
EXTENDS MCMcsLockFaults
====
