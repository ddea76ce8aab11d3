--------------------------- MODULE MCRemoteBarrier ---------------------------
(***************************************************************************)
(* Models of RemoteBarrier: parties t1 on N1, t2 on N2 (t3 on N3 in the    *)
(* 3-party models), arrivals and state on node H, 2 rounds, the broken bit *)
(* 8 (generations 0..2), FETCH_ADD modulo 16 (at most 6 arrivals).         *)
(*   MCRemoteBarrier.cfg            2 parties, no deadlines: all hold,     *)
(*                                  EveryPartyPasses included              *)
(*   MCRemoteBarrierDeadline.cfg    the code, deadlines: BreakXorRelease   *)
(*                                  violated (a later round's break hides  *)
(*                                  an earlier round's release)            *)
(*   MCRemoteBarrierFixed.cfg       the generation tested first: safety    *)
(*                                  and LivePartiesEnd hold                *)
(*   MCRemoteBarrierCrash.cfg       the same, t2 may crash (budget 1)      *)
(*   MCRemoteBarrier3Full.cfg       3 parties, as MCRemoteBarrierFixed     *)
(*                                  (profile spec-full)                    *)
(*   MCRemoteBarrierResetBeforeFull.cfg the reset WRITE before the release *)
(*                                  CAS on one QP: holds (R7; spec-full)   *)
(*   MCRemoteBarrierResetAfter.cfg  the reset WRITE after the release CAS: *)
(*                                  EveryPartyPasses violated              *)
(*   MCRemoteBarrierCountPass.cfg   3 parties, waiters pass on the count:  *)
(*                                  BreakXorRelease violated               *)
(***************************************************************************)
EXTENDS RemoteBarrier

MCThreads == {"t1", "t2"}
MCNodes == {"N1", "N2", "H"}
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCThreads3 == {"t1", "t2", "t3"}
MCNodes3 == {"N1", "N2", "N3", "H"}
MCNodeOf3 == [t \in MCThreads3 |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCLocs == {"arrivals", "state"}
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> 0]          \* round 0, not broken, no arrivals
=============================================================================
