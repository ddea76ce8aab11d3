---- MODULE MCLeaseLockPerHandleLease ----
(* A model of MCLeaseLock.tla; see MCLeaseLockPerHandleLease.cfg. *)
EXTENDS MCLeaseLock
====
