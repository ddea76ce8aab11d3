---- MODULE MCCuckooRepairUnlockOnly ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairUnlockOnly.cfg. *)
EXTENDS MCCuckooRepair
====
