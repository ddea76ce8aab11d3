---- MODULE MCCuckooMapNoCheck ----
(* A model of MCCuckooMap.tla; see MCCuckooMapNoCheck.cfg. *)
EXTENDS MCCuckooMap
====
