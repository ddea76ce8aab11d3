---- MODULE MCCuckooRepairOpsFull ----
(* A model of MCCuckooRepair.tla; see MCCuckooRepairOpsFull.cfg. *)
EXTENDS MCCuckooRepair
====
