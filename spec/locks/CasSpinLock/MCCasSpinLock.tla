--------------------------- MODULE MCCasSpinLock ---------------------------
(***************************************************************************)
(* Model of CasSpinLock: threads t1 on N1 and t2 on N2, the lock word on   *)
(* node H, the critical-section word d on node D. The .cfg files pick the  *)
(* release (Ordered) and whether a home-CPU thread takes part (HomeCpu).   *)
(*   MCCasSpinLock.cfg        ordered release, remote threads: all hold     *)
(*   MCCasSpinLockWeak.cfg    unlockWeak: Publication violated (LK1)        *)
(*   MCCasSpinLockUnsafe.cfg  t1 on H with CPU locked CAS: MutualExclusion  *)
(*                            violated (R14)                                *)
(***************************************************************************)
EXTENDS CasSpinLock

MCThreads == {"t1", "t2"}                                   \* two contending threads
MCNodes == {"N1", "N2", "H", "D"}                           \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCHomeCpuNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "H" ELSE "N2"]   \* t1 runs on the home node
MCLocs == {"lock", "d"}                                     \* the lock word and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "lock" THEN "H" ELSE "D"]
MCInitMem == [l \in MCLocs |-> 0]                           \* lock free, d = 0
MCId == [t \in MCThreads |-> IF t = "t1" THEN 1 ELSE 2]     \* owner ids
=============================================================================
