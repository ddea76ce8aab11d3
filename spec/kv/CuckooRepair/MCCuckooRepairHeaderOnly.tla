---- MODULE MCCuckooRepairHeaderOnly ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairHeaderOnly.cfg. *)
EXTENDS MCCuckooRepair
====
