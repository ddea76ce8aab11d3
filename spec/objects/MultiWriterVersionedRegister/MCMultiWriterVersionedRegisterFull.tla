---- MODULE MCMultiWriterVersionedRegisterFull ----
(* A model of MCMultiWriterVersionedRegister.tla; see MCMultiWriterVersionedRegisterFull.cfg. *)
EXTENDS MCMultiWriterVersionedRegister
====
