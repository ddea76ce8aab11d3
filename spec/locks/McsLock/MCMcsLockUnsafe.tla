---- MODULE MCMcsLockUnsafe ----
(* The Unsafe model of MCMcsLock.tla; see MCMcsLockUnsafe.cfg. *)
EXTENDS MCMcsLock
====
