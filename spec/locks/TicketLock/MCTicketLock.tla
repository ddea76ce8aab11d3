---------------------------- MODULE MCTicketLock ----------------------------
(***************************************************************************)
(* Model of TicketLock: threads t1 on N1 and t2 on N2, next and serving on *)
(* node H, the critical-section word d on node D, tickets modulo 3.        *)
(*   MCTicketLock.cfg        ordered release: all properties hold           *)
(*   MCTicketLockUnsafe.cfg  unlockWeak with Publication: violated (LK1)    *)
(***************************************************************************)
EXTENDS TicketLock

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCLocs == {"next", "serving", "d"}                          \* the two lock words and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "d" THEN "D" ELSE "H"]
MCInitMem == [l \in MCLocs |-> 0]                           \* ticket 0 is served first, d = 0
=============================================================================
