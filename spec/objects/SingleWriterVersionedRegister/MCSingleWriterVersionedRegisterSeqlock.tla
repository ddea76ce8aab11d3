---- MODULE MCSingleWriterVersionedRegisterSeqlock ----
(* A model of MCSingleWriterVersionedRegister.tla; see MCSingleWriterVersionedRegisterSeqlock.cfg. *)
EXTENDS MCSingleWriterVersionedRegister
====
