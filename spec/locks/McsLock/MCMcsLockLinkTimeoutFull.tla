---- MODULE MCMcsLockLinkTimeoutFull ----
(* A model of MCMcsLockFaults.tla; see MCMcsLockLinkTimeoutFull.cfg. *)
EXTENDS MCMcsLockFaults
====
