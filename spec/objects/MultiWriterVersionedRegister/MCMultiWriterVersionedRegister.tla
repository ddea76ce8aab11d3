------------------- MODULE MCMultiWriterVersionedRegister -------------------
(***************************************************************************)
(* Model of MultiWriterVersionedRegister: writers w1 on N1, w2 on N2, a    *)
(* reader r1 on N3, the register (c and the data words) on H.              *)
(*   MCMultiWriterVersionedRegister.cfg          2 data words, one set per *)
(*                                               writer, two gets: holds   *)
(*   MCMultiWriterVersionedRegisterTakeover.cfg  takeovers after the lease *)
(*                                               and a crash of w2, one    *)
(*                                               get: NoMix and            *)
(*                                               ValueWritten hold         *)
(*   MCMultiWriterVersionedRegisterTakeoverFull.cfg  the same, two gets   *)
(*   MCMultiWriterVersionedRegisterNoCas.cfg     writers take the word by  *)
(*                                               READ and WRITE: NoMix     *)
(*                                               violated                  *)
(***************************************************************************)
EXTENDS MultiWriterVersionedRegister

MCThreads == {"w1", "w2", "r1"}
MCWriters == {"w1", "w2"}
MCNodes == {"N1", "N2", "N3", "H"}
MCNodeOf == [t \in MCThreads |-> CASE t = "w1" -> "N1" [] t = "w2" -> "N2" [] OTHER -> "N3"]
MCData == <<"h", "d1">>                     \* the header word and one value word
MCLocs == {"c", "h", "d1"}
MCHomeOf == [l \in MCLocs |-> "H"]
MCInitMem == [l \in MCLocs |-> 0]           \* control 0, the empty value tagged 0
=============================================================================
