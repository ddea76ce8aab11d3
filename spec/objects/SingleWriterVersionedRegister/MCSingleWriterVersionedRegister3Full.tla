---- MODULE MCSingleWriterVersionedRegister3Full ----
(* A model of MCSingleWriterVersionedRegister.tla; see MCSingleWriterVersionedRegister3Full.cfg. *)
EXTENDS MCSingleWriterVersionedRegister
====
