---- MODULE MCCuckooRepairSourceFirst ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairSourceFirst.cfg. *)
EXTENDS MCCuckooRepair
====
