---- MODULE MCReadWriteLockFull ----
(* The spec-full model of MCReadWriteLock.tla; see MCReadWriteLockFull.cfg. *)
EXTENDS MCReadWriteLock
====
