---- MODULE MCMultiWriterVersionedRegisterNoCas ----
(* A model of MCMultiWriterVersionedRegister.tla; see MCMultiWriterVersionedRegisterNoCas.cfg. *)
EXTENDS MCMultiWriterVersionedRegister
====
