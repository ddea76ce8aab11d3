---- MODULE MCCuckooMapRemoveFirst ----
(* A model of MCCuckooMap.tla; see MCCuckooMapRemoveFirst.cfg. *)
EXTENDS MCCuckooMap
====
