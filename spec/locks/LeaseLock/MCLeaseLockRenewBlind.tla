---- MODULE MCLeaseLockRenewBlind ----
(* A model of MCLeaseLock.tla; see MCLeaseLockRenewBlind.cfg. *)
EXTENDS MCLeaseLock
====
