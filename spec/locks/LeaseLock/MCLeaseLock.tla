---------------------------- MODULE MCLeaseLock ----------------------------
(***************************************************************************)
(* Models of LeaseLock: threads t1 on N1 and t2 on N2, the lease word on   *)
(* node H, the fenced register on node R, the data word on node D. The     *)
(* .cfg files choose clocks or none, the lease, the margin and the         *)
(* switches of the unsafe twins:                                           *)
(*   MCLeaseLock.cfg               clocks (rates 1 or 2 per Tick, a WRITE  *)
(*                                 of d lands within 1 Tick), lease 3,     *)
(*                                 margin 2, generations up to 3, one      *)
(*                                 renewal per holding, the fixed          *)
(*                                 protocol: all hold                      *)
(*   MCLeaseLockFencing.cfg        no clocks (every timing), generations   *)
(*                                 up to 5, no renewal, fence and fenced   *)
(*                                 writes: all hold                        *)
(*   MCLeaseLockUnsafe.cfg         no clocks, a plain WRITE of the         *)
(*                                 register: LeaseSafety violated          *)
(*   MCLeaseLockWaitAfterRead.cfg  the reviewed takeover (the wait ends    *)
(*                                 after the READ, the CAS compares only   *)
(*                                 g): MutualExclusionWhileLeasesHold      *)
(*   MCLeaseLockMarginZero.cfg     margin 0:                               *)
(*                                 MutualExclusionWhileLeasesHold          *)
(*   MCLeaseLockRenewBlind.cfg     a renewal that ignores its CAS's        *)
(*                                 result: RenewalDetectsTakeover          *)
(*   MCLeaseLockPerHandleLease.cfg t1 trusts its own long lease, t2 waits  *)
(*                                 out its own short one:                  *)
(*                                 MutualExclusionWhileLeasesHold          *)
(***************************************************************************)
EXTENDS LeaseLock, TLC

CONSTANTS t1, t2                                            \* model values: the two threads

MCThreads == {t1, t2}                                       \* two contending threads
MCNodes == {"N1", "N2", "H", "R", "D"}                      \* their nodes, the lock's, the register's, the data's
MCNodeOf == [t \in MCThreads |-> IF t = t1 THEN "N1" ELSE "N2"]
MCLocs == {"w", "reg", "d"}                                 \* the lease word, the register, the data word
MCHomeOf == [l \in MCLocs |-> CASE l = "w" -> "H" [] l = "reg" -> "R" [] OTHER -> "D"]
MCInitMem == [l \in MCLocs |-> 0]                           \* generation 0 (free), register token 0, d 0
MCVal == [t \in MCThreads |-> IF t = t1 THEN 1 ELSE 2]      \* the value each thread writes to the register
MCRates == {1, 2}                                           \* clock units per Tick: rates within a factor of 2
MCHandleLease == [t \in MCThreads |-> IF t = t1 THEN 6 ELSE 3]   \* per-handle twin: t1's long lease, t2's short one

(* Where Val and HandleLease do not tell the threads apart (the models with *)
(* clocks and one lease), states that differ only by swapping t1 and t2 are *)
(* equivalent (no thread's node is ever the target of a verb).              *)
MCSymmetry == Permutations(MCThreads)
=============================================================================
