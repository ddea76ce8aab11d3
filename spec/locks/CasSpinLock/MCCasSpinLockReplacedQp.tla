---- MODULE MCCasSpinLockReplacedQp ----
(* A model of MCCasSpinLockFaults.tla; see MCCasSpinLockReplacedQp.cfg. *)
EXTENDS MCCasSpinLockFaults
====
