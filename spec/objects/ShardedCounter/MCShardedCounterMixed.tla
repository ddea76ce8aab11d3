---- MODULE MCShardedCounterMixed ----
(* A model of MCShardedCounter.tla; see MCShardedCounterMixed.cfg. *)
EXTENDS MCShardedCounter
====
