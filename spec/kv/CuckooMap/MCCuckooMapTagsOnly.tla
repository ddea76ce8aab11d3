---- MODULE MCCuckooMapTagsOnly ----
(* A model of MCCuckooMap.tla; see MCCuckooMapTagsOnly.cfg. *)
EXTENDS MCCuckooMap
====
