---- MODULE MCCasSpinLockOwnRelease ----
(* A model of MCCasSpinLockFaults.tla; see MCCasSpinLockOwnRelease.cfg. *)
EXTENDS MCCasSpinLockFaults
====
