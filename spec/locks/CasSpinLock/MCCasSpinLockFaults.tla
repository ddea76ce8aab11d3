------------------------ MODULE MCCasSpinLockFaults ------------------------
(***************************************************************************)
(* Models of CasSpinLockFaults: threads t1 on N1 and t2 on N2, the lock    *)
(* word and the critical-section word e on node H, the critical-section    *)
(* word d on node D. The .cfg files pick the protocol (Design), the faults *)
(* and their budget. (Three threads with every fault pass a million        *)
(* states: not checked.)                                                   *)
(***************************************************************************)
EXTENDS CasSpinLockFaults

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCLocs == {"lock", "d", "e"}                                \* the lock word and the two CS words
MCHomeOf == [l \in MCLocs |-> IF l = "d" THEN "D" ELSE "H"]
MCInitMem == [l \in MCLocs |-> 0]                           \* lock free, d = e = 0
MCCsLocs == {"d", "e"}                                      \* a critical section updates one of them
MCCsLocsD == {"d"}                                          \* only d (the twins that need no home word)
MCId == [t \in MCThreads |-> IF t = "t1" THEN 1 ELSE 2]     \* owner ids
=============================================================================
