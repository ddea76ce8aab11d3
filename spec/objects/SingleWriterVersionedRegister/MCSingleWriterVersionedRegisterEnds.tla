---- MODULE MCSingleWriterVersionedRegisterEnds ----
(* A model of MCSingleWriterVersionedRegister.tla; see MCSingleWriterVersionedRegisterEnds.cfg. *)
EXTENDS MCSingleWriterVersionedRegister
====
