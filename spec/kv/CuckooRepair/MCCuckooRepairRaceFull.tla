---- MODULE MCCuckooRepairRaceFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairRaceFull.cfg. *)
EXTENDS MCCuckooRepair
====
