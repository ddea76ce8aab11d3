---- MODULE MCCasSpinLockFaultsFull ----
(* A model of MCCasSpinLockFaults.tla; see MCCasSpinLockFaultsFull.cfg. *)
EXTENDS MCCasSpinLockFaults
====
