---- MODULE MCCasSpinLockUnsafe ----
(* The Unsafe model of MCCasSpinLock.tla; see MCCasSpinLockUnsafe.cfg. *)
EXTENDS MCCasSpinLock
====
