--------------------------- MODULE MCMcsLockFaults ---------------------------
(***************************************************************************)
(* Models of McsLockFaults: threads t1 on N1 and t2 on N2 (ids 1, 2; t3 on *)
(* N3 in the three-thread models), each with its queue node at home, the  *)
(* tail and the slots on node H, the CS word d on node D. The .cfg files   *)
(* pick the knobs, the faults and the verbs they may hit.                  *)
(***************************************************************************)
EXTENDS McsLockFaults

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCId == [t \in MCThreads |-> IF t = "t1" THEN 1 ELSE 2]     \* queue index + 1
MCQLocked == [t \in MCThreads |-> "locked_" \o t]           \* queue-node words
MCQNext == [t \in MCThreads |-> "next_" \o t]
MCSlot == [t \in MCThreads |-> "slot_" \o t]                \* slot words on H
MCLocs == {"tail", "d", "locked_t1", "next_t1", "locked_t2", "next_t2", "slot_t1", "slot_t2"}
MCHomeOf == [l \in MCLocs |-> CASE l \in {"tail", "slot_t1", "slot_t2"} -> "H" [] l = "d" -> "D"
                                 [] l \in {"locked_t1", "next_t1"} -> "N1" [] OTHER -> "N2"]
MCInitMem == [l \in MCLocs |-> 0]                           \* tail free, queue nodes and slots zero, d = 0

MCThreads3 == {"t1", "t2", "t3"}                            \* three contending threads
MCNodes3 == {"N1", "N2", "N3", "H", "D"}
MCNodeOf3 == [t \in MCThreads3 |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCId3 == [t \in MCThreads3 |-> CASE t = "t1" -> 1 [] t = "t2" -> 2 [] OTHER -> 3]
MCQLocked3 == [t \in MCThreads3 |-> "locked_" \o t]
MCQNext3 == [t \in MCThreads3 |-> "next_" \o t]
MCSlot3 == [t \in MCThreads3 |-> "slot_" \o t]
MCLocs3 == MCLocs \cup {"locked_t3", "next_t3", "slot_t3"}
MCHomeOf3 == [l \in MCLocs3 |-> CASE l \in {"tail", "slot_t1", "slot_t2", "slot_t3"} -> "H" [] l = "d" -> "D"
                                   [] l \in {"locked_t1", "next_t1"} -> "N1"
                                   [] l \in {"locked_t2", "next_t2"} -> "N2" [] OTHER -> "N3"]
MCInitMem3 == [l \in MCLocs3 |-> 0]
=============================================================================
