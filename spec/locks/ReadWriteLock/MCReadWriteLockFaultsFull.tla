---- MODULE MCReadWriteLockFaultsFull ----
(* The spec-full model of MCReadWriteLockFaults.tla; see MCReadWriteLockFaultsFull.cfg. *)
EXTENDS MCReadWriteLockFaults
====
