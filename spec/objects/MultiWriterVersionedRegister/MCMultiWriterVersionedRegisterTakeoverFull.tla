---- MODULE MCMultiWriterVersionedRegisterTakeoverFull ----
(* A model of MCMultiWriterVersionedRegister.tla; see MCMultiWriterVersionedRegisterTakeoverFull.cfg. *)
EXTENDS MCMultiWriterVersionedRegister
====
