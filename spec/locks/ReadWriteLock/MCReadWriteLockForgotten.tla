---- MODULE MCReadWriteLockForgotten ----
(* A model of MCReadWriteLockFaults.tla; see MCReadWriteLockForgotten.cfg. *)
EXTENDS MCReadWriteLockFaults
====
