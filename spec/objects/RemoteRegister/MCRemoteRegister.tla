-------------------------- MODULE MCRemoteRegister --------------------------
(***************************************************************************)
(* Model of RemoteRegister: threads t1 on N1, t2 on N2 (t3 on N3 in the    *)
(* Full model), the register word x on node H.                             *)
(*   MCRemoteRegister.cfg         2 threads, 2 operations each: holds      *)
(*   MCRemoteRegister3Full.cfg    3 threads, 1 operation each: holds       *)
(*   MCRemoteRegisterNoFlush.cfg  set without the flush READ: NoStaleRead  *)
(*                                violated                                 *)
(***************************************************************************)
EXTENDS RemoteRegister

MCThreads == {"t1", "t2"}
MCThreads3 == {"t1", "t2", "t3"}
MCNodes == {"N1", "N2", "N3", "H"}
MCNodeOf == [t \in MCThreads3 |-> CASE t = "t1" -> "N1" [] t = "t2" -> "N2" [] OTHER -> "N3"]
MCLocs == {"x"}
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> 0]
=============================================================================
