------------------------ MODULE MCCasSpinLockFaults ------------------------
(***************************************************************************)
(* Models of CasSpinLockFaults: threads t1 on N1, t2 on N2 (t3 on N3 in    *)
(* the 3-thread models), the lock word and the critical-section word e on  *)
(* node H, the critical-section word d on node D. The .cfg files pick the  *)
(* protocol (Fixed), the faults and their budget.                          *)
(***************************************************************************)
EXTENDS CasSpinLockFaults

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCThreads3 == {"t1", "t2", "t3"}                            \* three contending threads
MCNodes3 == {"N1", "N2", "N3", "H", "D"}
MCNodeOf3 == [t \in MCThreads3 |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCLocs == {"lock", "d", "e"}                                \* the lock word and the two CS words
MCHomeOf == [l \in MCLocs |-> IF l = "d" THEN "D" ELSE "H"]
MCInitMem == [l \in MCLocs |-> 0]                           \* lock free, d = e = 0
MCCsLocs == {"d", "e"}                                      \* a critical section updates one of them
MCCsLocsD == {"d"}                                          \* only d (the twins that need no home word)
MCId == [t \in MCThreads3 |-> CASE t = "t1" -> 1 [] t = "t2" -> 2 [] OTHER -> 3]
=============================================================================
