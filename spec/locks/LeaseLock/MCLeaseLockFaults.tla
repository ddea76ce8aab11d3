------------------------- MODULE MCLeaseLockFaults -------------------------
(***************************************************************************)
(* Models of LeaseLockFaults: threads t1 on N1 and t2 on N2, the lease     *)
(* word on node H, the fenced register on node R.                          *)
(*   MCLeaseLockFaults.cfg          clocks (rates 1 or 2 per Tick), lease  *)
(*                                  3, margin 2, generations up to 3, one  *)
(*                                  renewal per holding, one fault of any  *)
(*                                  kind (either thread may crash): the    *)
(*                                  safety properties hold                 *)
(*   MCLeaseLockCrash.cfg           the same clocks, t2 may crash:         *)
(*                                  TakeoverAfterCrash holds               *)
(*   MCLeaseLockFaultsFencing.cfg   no clocks, the fenced register, one    *)
(*                                  fault of any kind: LeaseSafety holds   *)
(*   MCLeaseLockResolveByRead.cfg   an unknown acquisition resolved by     *)
(*                                  reading the word: UniqueTokens         *)
(*                                  violated                               *)
(***************************************************************************)
EXTENDS LeaseLockFaults, TLC

CONSTANTS t1, t2                                            \* model values: the two threads

MCThreads == {t1, t2}                                       \* two contending threads
MCNodes == {"N1", "N2", "H", "R"}                           \* their nodes, the lock's, the register's
MCNodeOf == [t \in MCThreads |-> IF t = t1 THEN "N1" ELSE "N2"]
MCLocs == {"w", "reg"}                                      \* the lease word, the register
MCHomeOf == [l \in MCLocs |-> IF l = "w" THEN "H" ELSE "R"]
MCInitMem == [l \in MCLocs |-> 0]                           \* generation 0 (free), register token 0
MCVal == [t \in MCThreads |-> IF t = t1 THEN 1 ELSE 2]      \* the value each thread writes to the register
MCRates == {1, 2}                                           \* clock units per Tick: rates within a factor of 2
MCSymmetry == Permutations(MCThreads)                       \* where Val does not tell them apart
=============================================================================
