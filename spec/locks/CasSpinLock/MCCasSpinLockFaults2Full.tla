---- MODULE MCCasSpinLockFaults2Full ----
(* A model of MCCasSpinLockFaults.tla; see MCCasSpinLockFaults2Full.cfg. *)
EXTENDS MCCasSpinLockFaults
====
