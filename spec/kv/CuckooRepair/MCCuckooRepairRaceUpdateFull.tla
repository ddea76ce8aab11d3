---- MODULE MCCuckooRepairRaceUpdateFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairRaceUpdateFull.cfg. *)
EXTENDS MCCuckooRepair
====
