---------------------------- MODULE MCTicketLock ----------------------------
(***************************************************************************)
(* Model of TicketLock: threads t1 on N1 and t2 on N2 (t3 on N3 in the     *)
(* 3-thread models), next and serving on node H, the critical-section word *)
(* d on node D, tickets modulo 3 (modulo 4 with 3 threads).                *)
(*   MCTicketLock.cfg        2 threads, ordered release: all properties    *)
(*                           hold, liveness included                        *)
(*   MCTicketLock3.cfg       3 threads: the safety properties, FifoOrder   *)
(*                           included, hold (CI)                            *)
(*   MCTicketLock3Full.cfg   3 threads, with liveness (profile spec-full)  *)
(*   MCTicketLockUnsafe.cfg  unlockWeak with Publication: violated (LK1)    *)
(*   MCTicketLockSkip.cfg    3 threads, the release skips a ticket:        *)
(*                           FifoOrder violated                             *)
(***************************************************************************)
EXTENDS TicketLock

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCThreads3 == {"t1", "t2", "t3"}                            \* three contending threads
MCNodes3 == {"N1", "N2", "N3", "H", "D"}
MCNodeOf3 == [t \in MCThreads3 |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCLocs == {"next", "serving", "d"}                          \* the two lock words and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "d" THEN "D" ELSE "H"]
MCInitMem == [l \in MCLocs |-> 0]                           \* ticket 0 is served first, d = 0
=============================================================================
