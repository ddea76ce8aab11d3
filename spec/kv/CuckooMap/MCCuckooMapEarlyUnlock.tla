---- MODULE MCCuckooMapEarlyUnlock ----
(* A model of MCCuckooMap.tla; see MCCuckooMapEarlyUnlock.cfg. *)
EXTENDS MCCuckooMap
====
