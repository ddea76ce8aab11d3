--------------------------- MODULE MCShardedCounter ---------------------------
(***************************************************************************)
(* Model of ShardedCounter: writers w1 on N1 (shard s1 on H1) and w2 on N2 *)
(* (shard s2 on H2), a reader r1 on N3 that READs H1 then H2.              *)
(*   MCShardedCounter.cfg       increments (+1), two per writer, one get:  *)
(*                              holds                                      *)
(*   MCShardedCounterFull.cfg   the same with two gets: holds              *)
(*   MCShardedCounterMixed.cfg  adds of +5 (w1) and +7 (w2), one each, one *)
(*                              get: ReadLinearizable violated             *)
(***************************************************************************)
EXTENDS ShardedCounter

MCThreads == {"w1", "w2", "r1"}
MCWriters == {"w1", "w2"}
MCNodes == {"N1", "N2", "N3", "H1", "H2"}
MCNodeOf == [t \in MCThreads |-> CASE t = "w1" -> "N1" [] t = "w2" -> "N2" [] OTHER -> "N3"]
MCHomes == <<"H1", "H2">>
MCShards == {"s1", "s2"}
MCShardOf == [t \in MCWriters |-> IF t = "w1" THEN "s1" ELSE "s2"]
MCHomeOf == [s \in MCShards |-> IF s = "s1" THEN "H1" ELSE "H2"]
MCInitMem == [s \in MCShards |-> 0]
MCInc == [t \in MCWriters |-> 1]
MCMixed == [t \in MCWriters |-> IF t = "w1" THEN 5 ELSE 7]
=============================================================================
