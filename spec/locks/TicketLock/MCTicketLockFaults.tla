------------------------- MODULE MCTicketLockFaults -------------------------
(***************************************************************************)
(* Models of TicketLockFaults: threads t1 on N1 and t2 on N2, next and     *)
(* serving on node H, tickets modulo 3 (two live tickets and, with one     *)
(* fault, one that nobody passes on fit).                                  *)
(***************************************************************************)
EXTENDS TicketLockFaults

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H"}                                \* their nodes and the lock's home
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCLocs == {"next", "serving"}                               \* the two lock words
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> 0]                           \* ticket 0 is served first
=============================================================================
