--------------------------- MODULE MCCasSpinLock ---------------------------
(***************************************************************************)
(* Model of CasSpinLock: threads t1 on N1, t2 on N2 and t3 on N3, the lock *)
(* word on node H, the critical-section word d on node D. The .cfg files   *)
(* pick the release (Ordered) and whether a home-CPU thread takes part     *)
(* (HomeCpu).                                                              *)
(*   MCCasSpinLock.cfg        ordered release, 3 remote threads: all hold   *)
(*   MCCasSpinLockWeak.cfg    unlockWeak: Publication violated (LK1)        *)
(*   MCCasSpinLockUnsafe.cfg  t1 on H with CPU locked CAS: MutualExclusion  *)
(*                            violated (R14)                                *)
(***************************************************************************)
EXTENDS CasSpinLock

MCThreads == {"t1", "t2", "t3"}                             \* three contending threads
MCNodes == {"N1", "N2", "N3", "H", "D"}                     \* their nodes, the lock's home, the data node
MCNodeOf == [t \in MCThreads |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCHomeCpuNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "H" ELSE MCNodeOf[t]]   \* t1 runs on the home node
MCLocs == {"lock", "d"}                                     \* the lock word and the CS word
MCHomeOf == [l \in MCLocs |-> IF l = "lock" THEN "H" ELSE "D"]
MCInitMem == [l \in MCLocs |-> 0]                           \* lock free, d = 0
MCId == [t \in MCThreads |-> CASE t = "t1" -> 1 [] t = "t2" -> 2 [] OTHER -> 3]   \* owner ids
=============================================================================
