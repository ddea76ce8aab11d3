---- MODULE MCCuckooRepairBumpAllFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairBumpAllFull.cfg. *)
EXTENDS MCCuckooRepair
====
