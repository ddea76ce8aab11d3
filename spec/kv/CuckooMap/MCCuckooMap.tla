------------------------------ MODULE MCCuckooMap ------------------------------
(***************************************************************************)
(* Models of CuckooMap: writer w on N1, reader r1 on N2 (r2 on N3 in the    *)
(* Full model), the table on H; 2 rows of 1 slot of 2 words.               *)
(*   MCCuckooMap.cfg             a kick of X, 1 GET: holds                  *)
(*   MCCuckooMapUpdate.cfg       an update of X, 1 GET: holds               *)
(*   MCCuckooMapFull.cfg         an update then a kick, 1 GET: holds        *)
(*   MCCuckooMapKick2Full.cfg    update, kick, kick back, 2 GETs: holds     *)
(*   MCCuckooMapTagsOnly.cfg     the GET checks tags, not versions:         *)
(*                               NeverMiss violated                         *)
(*   MCCuckooMapEarlyUnlock.cfg  bumps and unlocks before the WRITEs:       *)
(*                               NeverMiss violated                         *)
(*   MCCuckooMapSourceFirst.cfg  the kick overwrites the source first:     *)
(*                               holds (the version check covers it)       *)
(*   MCCuckooMapNoCheck.cfg      the GET checks nothing: NoMix violated    *)
(*   MCCuckooMapRemoveFirst.cfg  the kick removes X, publishes that, then  *)
(*                               inserts X: NeverMiss violated             *)
(***************************************************************************)
EXTENDS CuckooMap

MCThreads == {"w", "r1"}
MCThreads2 == {"w", "r1", "r2"}
MCNodes == {"N1", "N2", "N3", "H"}
MCNodeOf == [t \in MCThreads2 |-> CASE t = "w" -> "N1" [] t = "r1" -> "N2" [] OTHER -> "N3"]
MCLocs == {"lk1", "v1", "k1", "d1", "lk2", "v2", "k2", "d2"}
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> IF l \in {"k1", "d1"} THEN 1 ELSE 0]   \* X with value 1 in row 1, tag 0
MCOps == <<"update", "kick">>
MCOpsKick == <<"kick">>
MCOpsUpdate == <<"update">>
MCOps3 == <<"update", "kick", "kick">>
=============================================================================
