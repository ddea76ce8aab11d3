---- MODULE MCCuckooRepairUnlockOnlySourceFirst ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairUnlockOnlySourceFirst.cfg. *)
EXTENDS MCCuckooRepair
====
