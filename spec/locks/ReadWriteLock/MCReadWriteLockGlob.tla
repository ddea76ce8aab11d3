---- MODULE MCReadWriteLockGlob ----
(* The GLOB model of MCReadWriteLock.tla; see MCReadWriteLockGlob.cfg. *)
EXTENDS MCReadWriteLock
====
