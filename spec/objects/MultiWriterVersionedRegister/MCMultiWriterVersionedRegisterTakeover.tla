---- MODULE MCMultiWriterVersionedRegisterTakeover ----
(* A model of MCMultiWriterVersionedRegister.tla; see MCMultiWriterVersionedRegisterTakeover.cfg. *)
EXTENDS MCMultiWriterVersionedRegister
====
