---- MODULE MCLeaseLockMarginZero ----
(* A model of MCLeaseLock.tla; see MCLeaseLockMarginZero.cfg. *)
EXTENDS MCLeaseLock
====
