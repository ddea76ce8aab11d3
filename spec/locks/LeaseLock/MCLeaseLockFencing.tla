---- MODULE MCLeaseLockFencing ----
(* A model of MCLeaseLock.tla; see MCLeaseLockFencing.cfg. *)
EXTENDS MCLeaseLock
====
