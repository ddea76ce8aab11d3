---- MODULE MCCuckooRepairTakeoverFirst ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairTakeoverFirst.cfg. *)
EXTENDS MCCuckooRepair
====
