---- MODULE MCLeaseLockResolveByRead ----
(* A model of MCLeaseLockFaults.tla; see MCLeaseLockResolveByRead.cfg. *)
EXTENDS MCLeaseLockFaults
====
