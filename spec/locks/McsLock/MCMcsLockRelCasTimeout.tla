---- MODULE MCMcsLockRelCasTimeout ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockRelCasTimeout.cfg. *)
EXTENDS MCMcsLockFaults
====
