---- MODULE MCMcsLock3Full ----
(* The 3-thread spec-full model of MCMcsLock.tla; see MCMcsLock3Full.cfg. *)
EXTENDS MCMcsLock
====
