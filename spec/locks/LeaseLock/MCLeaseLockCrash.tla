---- MODULE MCLeaseLockCrash ----
(* A model of MCLeaseLockFaults.tla; see MCLeaseLockCrash.cfg. *)
EXTENDS MCLeaseLockFaults
====
