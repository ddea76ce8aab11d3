---- MODULE MCCuckooMapKick2Full ----
(* A model of MCCuckooMap.tla; see MCCuckooMapKick2Full.cfg. *)
EXTENDS MCCuckooMap
====
