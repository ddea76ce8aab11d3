---- MODULE MCCasSpinLockWeak ----
(* The Weak model of MCCasSpinLock.tla; see MCCasSpinLockWeak.cfg. *)
EXTENDS MCCasSpinLock
====
