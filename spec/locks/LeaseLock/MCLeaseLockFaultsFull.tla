---- MODULE MCLeaseLockFaultsFull ----
(* The spec-full model of MCLeaseLockFaults.tla; see MCLeaseLockFaultsFull.cfg. *)
EXTENDS MCLeaseLockFaults
====
