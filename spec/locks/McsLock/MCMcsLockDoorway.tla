---- MODULE MCMcsLockDoorway ----
(* The Doorway model of MCMcsLock.tla; see MCMcsLockDoorway.cfg. *)
EXTENDS MCMcsLock
====
