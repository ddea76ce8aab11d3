---- MODULE MCMcsLockFaults3Full ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockFaults3Full.cfg. *)
EXTENDS MCMcsLockFaults
====
