---- MODULE MCReadWriteLockFaultsLive ----
(* A model of MCReadWriteLockFaults.tla; see MCReadWriteLockFaultsLive.cfg. *)
EXTENDS MCReadWriteLockFaults
====
