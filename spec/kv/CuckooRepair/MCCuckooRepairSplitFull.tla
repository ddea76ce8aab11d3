---- MODULE MCCuckooRepairSplitFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairSplitFull.cfg. *)
EXTENDS MCCuckooRepair
====
