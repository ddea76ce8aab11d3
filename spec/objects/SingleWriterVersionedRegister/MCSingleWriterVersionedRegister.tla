------------------- MODULE MCSingleWriterVersionedRegister -------------------
(***************************************************************************)
(* Model of SingleWriterVersionedRegister: writer w on N1, readers r1 on   *)
(* N2 (and r2 on N3 in the Full model), the register on H.                 *)
(*   MCSingleWriterVersionedRegister.cfg         2 words, 2 sets, 2 gets:  *)
(*                                               holds                     *)
(*   MCSingleWriterVersionedRegister3Full.cfg    3 words, 2 readers: holds *)
(*   MCSingleWriterVersionedRegisterSeqlock.cfg  the classic seqlock:      *)
(*                                               NoMix violated            *)
(*   MCSingleWriterVersionedRegisterEnds.cfg     3 words, a reader that    *)
(*                                               checks only the end      *)
(*                                               words: NoMix violated     *)
(***************************************************************************)
EXTENDS SingleWriterVersionedRegister

MCThreads == {"w", "r1"}
MCThreads2 == {"w", "r1", "r2"}
MCNodes == {"N1", "N2", "N3", "H"}
MCNodeOf == [t \in MCThreads2 |-> CASE t = "w" -> "N1" [] t = "r1" -> "N2" [] OTHER -> "N3"]
MCData2 == <<"h", "d1">>                    \* the header word and one value word
MCData3 == <<"h", "d1", "d2">>
MCLocs2 == {"h", "d1"}
MCLocs3 == {"h", "d1", "d2"}
MCLocsSeqlock == {"h", "d1", "vf", "vb"}
MCHomeOf == [l \in MCLocs3 \cup MCLocsSeqlock |-> "H"]
MCInitMem2 == [l \in MCLocs2 |-> 0]            \* the empty value, tag 0
MCInitMem3 == [l \in MCLocs3 |-> 0]
MCInitMemSeqlock == [l \in MCLocsSeqlock |-> 0]
=============================================================================
