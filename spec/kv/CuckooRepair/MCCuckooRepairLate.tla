---- MODULE MCCuckooRepairLate ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairLate.cfg. *)
EXTENDS MCCuckooRepair
====
