---- MODULE MCCasSpinLockOrphan ----
(* A model of MCCasSpinLockFaults.tla; see MCCasSpinLockOrphan.cfg. *)
EXTENDS MCCasSpinLockFaults
====
