---------------------------- MODULE MCCasRegister ----------------------------
(***************************************************************************)
(* Model of CasRegister: threads t1 on N1, t2 on N2, x on H, values {0,1}. *)
(*   MCCasRegister.cfg            2 operations per thread: holds           *)
(*   MCCasRegisterMixedWrite.cfg  with WRITE-based sets: CasLinearizable   *)
(*                                violated (R14)                           *)
(***************************************************************************)
EXTENDS CasRegister

MCThreads == {"t1", "t2"}
MCNodes == {"N1", "N2", "H"}
MCNodeOf == [t \in MCThreads |-> IF t = "t1" THEN "N1" ELSE "N2"]
MCLocs == {"x"}
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> 0]
=============================================================================
