---- MODULE MCCuckooMapFull ----
(* A model of MCCuckooMap.tla; see MCCuckooMapFull.cfg. *)
EXTENDS MCCuckooMap
====
