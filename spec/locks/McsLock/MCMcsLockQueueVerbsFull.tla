---- MODULE MCMcsLockQueueVerbsFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockQueueVerbsFull.cfg. *)
EXTENDS MCMcsLockFaults
====
