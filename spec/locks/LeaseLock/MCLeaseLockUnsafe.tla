---- MODULE MCLeaseLockUnsafe ----
(* A model of MCLeaseLock.tla; see MCLeaseLockUnsafe.cfg. *)
EXTENDS MCLeaseLock
====
