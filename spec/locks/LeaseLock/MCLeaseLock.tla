---------------------------- MODULE MCLeaseLock ----------------------------
(***************************************************************************)
(* Model of LeaseLock: threads t1 on N1 and t2 on N2, g on node H, the     *)
(* fenced register on node R, generations up to 5 (three acquisitions).    *)
(*   MCLeaseLock.cfg        fenced writes: all properties hold              *)
(*   MCLeaseLockUnsafe.cfg  plain WRITE, no fencing: LeaseSafety violated   *)
(***************************************************************************)
EXTENDS LeaseLock

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "R"}                           \* their nodes, the lock's home, the register's node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCLocs == {"g", "reg"}                                      \* the generation and the fenced register
MCHomeOf == [l \in MCLocs |-> IF l = "g" THEN "H" ELSE "R"]
MCInitMem == [l \in MCLocs |-> 0]                           \* generation 0 (free), register token 0
MCVal == [t \in MCThreads |-> IF t = "t1" THEN 1 ELSE 2]    \* the value each thread writes
=============================================================================
