---- MODULE MCMcsLockHandoverTimeoutFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockHandoverTimeoutFull.cfg. *)
EXTENDS MCMcsLockFaults
====
