---- MODULE MCShardedCounterFull ----
(* A model of MCShardedCounter.tla; see MCShardedCounterFull.cfg. *)
EXTENDS MCShardedCounter
====
