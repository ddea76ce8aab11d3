-------------------------- MODULE MCReadWriteLock --------------------------
(***************************************************************************)
(* Model of the read-write lock: readers r1 on N1 and r2 on N2, writer w   *)
(* on N3 (on H in the unsafe model), the state word on node H, the CS     *)
(* word d on node D.                                                       *)
(*   MCReadWriteLock.cfg        the safety properties (CI)                  *)
(*   MCReadWriteLockFull.cfg    also the liveness ones (profile spec-full)  *)
(*   MCReadWriteLockUnsafe.cfg  CPU release by a home writer: Exclusion    *)
(*                              violated (R14)                              *)
(***************************************************************************)
EXTENDS ReadWriteLock

MCReaders == {"r1", "r2"}                                   \* two readers
MCWriters == {"w"}                                          \* one writer
MCThreads == MCReaders \cup MCWriters
MCNodes == {"N1", "N2", "N3", "H", "D"}                     \* thread nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> CASE t = "r1" -> "N1" [] t = "r2" -> "N2" [] OTHER -> "N3"]
MCHomeWriterNodeOf == [t \in MCThreads |-> CASE t = "r1" -> "N1" [] t = "r2" -> "N2" [] OTHER -> "H"]
MCLocs == {"state", "d"}                                    \* the lock word and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "state" THEN "H" ELSE "D"]
MCInitMem == [l \in MCLocs |-> 0]                           \* free, d = 0
=============================================================================
