------------------------ MODULE MCReadWriteLockFaults ------------------------
(***************************************************************************)
(* Models of ReadWriteLockFaults: readers r1 on N1 and r2 on N2, writer w  *)
(* on N3, the state word on node H, the CS word d on node D. WordMod 32:   *)
(* 2 bits of readers, the writer bit, 2 bits of waiting writers (room for  *)
(* a leaked count).                                                        *)
(*   MCReadWriteLockFaults.cfg     amended, 1 fault of any kind (either    *)
(*                                 reader may crash): the safety           *)
(*                                 properties hold                         *)
(*   MCReadWriteLockFaultsLive.cfg amended, one reader, 1 fault of any     *)
(*                                 kind: safety and liveness hold          *)
(*   MCReadWriteLockLeak.cfg       old (a timed-out announcement retired   *)
(*                                 and taken as not made): ReaderProgress  *)
(*                                 violated (a leaked waiting count)       *)
(*   MCReadWriteLockForgotten.cfg  current (a timed-out acquiring CAS is   *)
(*                                 not kept): WriterProgress violated      *)
(***************************************************************************)
EXTENDS ReadWriteLockFaults, TLC

CONSTANTS r1, r2                                            \* model values: the two readers

MCReaders == {r1, r2}                                       \* two readers
MCWriters == {"w"}                                          \* one writer
MCThreads == MCReaders \cup MCWriters
MCReaders1 == {r1}                                          \* the twins: one reader
MCThreads1 == MCReaders1 \cup MCWriters
MCReaderSymmetry == Permutations(MCReaders)                 \* r1 and r2 are alike (both may crash)
MCNodes == {"N1", "N2", "N3", "H", "D"}                     \* thread nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> CASE t = r1 -> "N1" [] t = r2 -> "N2" [] OTHER -> "N3"]
MCLocs == {"state", "d"}                                    \* the lock word and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "state" THEN "H" ELSE "D"]
MCInitMem == [l \in MCLocs |-> 0]                           \* free, d = 0
=============================================================================
