---- MODULE MCLeaseLockFaultsFencing ----
(* A model of MCLeaseLockFaults.tla; see MCLeaseLockFaultsFencing.cfg. *)
EXTENDS MCLeaseLockFaults
====
