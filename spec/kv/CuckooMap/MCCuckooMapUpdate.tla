---- MODULE MCCuckooMapUpdate ----
(* A model of MCCuckooMap.tla; see MCCuckooMapUpdate.cfg. *)
EXTENDS MCCuckooMap
====
