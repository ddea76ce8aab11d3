---------------------------- MODULE MCCuckooRepair ----------------------------
(***************************************************************************)
(* Models of CuckooRepair: writer c on N1 (it may crash), reader and       *)
(* repairer g on N2; repairer r on N3 (it may crash: ChainFull,            *)
(* TakeoverFirst; it does not: SplitFull); writer d on N4 (the race        *)
(* models); the table on H: 3 rows of 1 slot. Keys X = 1 (rows 1, 2),      *)
(* Y = 2 (rows 2, 3), Z = 3 (rows 1, 2); X = 1 in row 1, Y = 1 in row 2,   *)
(* row 3 empty. The kick: put Z = 1 along the path 1 -> 2 -> 3 (Z into     *)
(* row 1, X moves to row 2, Y to row 3: two moves, three rows held). Each  *)
(* .cfg says what its model differs in, its first line what TLC must say.  *)
(***************************************************************************)
EXTENDS CuckooRepair

MCThreads == {"c", "g"}
MCThreads3 == {"c", "g", "r"}
MCThreadsW == {"c", "d", "g"}
MCAll == {"c", "d", "g", "r"}
MCNodes == {"N1", "N2", "N3", "N4", "H"}
MCNodeOf == [t \in MCAll |-> CASE t = "c" -> "N1" [] t = "g" -> "N2" [] t = "r" -> "N3" [] OTHER -> "N4"]
MCClientNo == [t \in MCAll |-> CASE t = "c" -> 1 [] t = "g" -> 2 [] t = "r" -> 3 [] OTHER -> 4]
MCLoggers == {"c", "g"}
MCLoggers3 == {"c", "g", "r"}
MCRows == 1..3
MCLocsOf(L) == {LK(r) : r \in MCRows} \cup {VR(r) : r \in MCRows} \cup {KW(r) : r \in MCRows}
               \cup {DW(r) : r \in MCRows} \cup {LG(t, i) : t \in L, i \in 1..2}
MCLocs == MCLocsOf(MCLoggers)
MCLocs3 == MCLocsOf(MCLoggers3)
MCLocsW == MCLocsOf({"c", "d", "g"})
MCHomeOf == [l \in MCLocs |-> "H"]
MCHomeOf3 == [l \in MCLocs3 |-> "H"]
MCHomeOfW == [l \in MCLocsW |-> "H"]
MCInitOf(L) == [l \in L |-> CASE l = KW(1) -> Enc(0, 1) [] l = DW(1) -> Enc(0, 1)
                                  [] l = KW(2) -> Enc(0, 2) [] l = DW(2) -> Enc(0, 1)
                                  [] OTHER -> 0]
MCInitMem == MCInitOf(MCLocs)
MCInitMem3 == MCInitOf(MCLocs3)
MCInitMemW == MCInitOf(MCLocsW)
MCKeyRows == [k \in 1..3 |-> CASE k = 1 -> {1, 2} [] k = 2 -> {2, 3} [] OTHER -> {1, 2}]
Kick == [kind |-> "put", key |-> 3, val |-> 1, path |-> <<1, 2, 3>>]
Kick1 == [kind |-> "put", key |-> 3, val |-> 1, path |-> <<2, 3>>]
UpdX == [kind |-> "put", key |-> 1, val |-> 2, path |-> <<>>]
DelY == [kind |-> "del", key |-> 2, val |-> 0, path |-> <<>>]
DelX == [kind |-> "del", key |-> 1, val |-> 0, path |-> <<>>]
MCOpsKick == [t \in MCAll |-> IF t = "c" THEN <<Kick>> ELSE <<>>]
MCOpsRace == [t \in MCAll |-> CASE t = "c" -> <<Kick>> [] t = "d" -> <<DelY>> [] OTHER -> <<>>]
MCOpsRace2 == [t \in MCAll |-> CASE t = "c" -> <<Kick>> [] t = "d" -> <<UpdX>> [] OTHER -> <<>>]
MCOpsAll == [t \in MCAll |-> IF t = "c" THEN <<UpdX, Kick, DelX>> ELSE <<>>]
MCOpsDelUpd == [t \in MCAll |-> IF t = "c" THEN <<DelY, UpdX>> ELSE <<>>]
=============================================================================
