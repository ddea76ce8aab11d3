---- MODULE MCLeaseLockWaitAfterRead ----
(* A model of MCLeaseLock.tla; see MCLeaseLockWaitAfterRead.cfg. *)
EXTENDS MCLeaseLock
====
