---- MODULE MCReadWriteLockUnsafe ----
(* The unsafe model of MCReadWriteLock.tla; see MCReadWriteLockUnsafe.cfg. *)
EXTENDS MCReadWriteLock
====
