---- MODULE MCReadWriteLockLeak ----
(* A model of MCReadWriteLockFaults.tla; see MCReadWriteLockLeak.cfg. *)
EXTENDS MCReadWriteLockFaults
====
