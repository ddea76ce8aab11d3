---- MODULE MCLeaseLockUnsafe ----
(* The unsafe model of MCLeaseLock.tla; see MCLeaseLockUnsafe.cfg. *)
EXTENDS MCLeaseLock
====
