---- MODULE MCCuckooMapSourceFirst ----
(* A model of MCCuckooMap.tla; see MCCuckooMapSourceFirst.cfg. *)
EXTENDS MCCuckooMap
====
