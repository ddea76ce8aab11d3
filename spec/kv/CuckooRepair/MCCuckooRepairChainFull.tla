---- MODULE MCCuckooRepairChainFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairChainFull.cfg. *)
EXTENDS MCCuckooRepair
====
