---- MODULE MCRemoteRegisterNoFlush ----
(* A model of MCRemoteRegister.tla; see MCRemoteRegisterNoFlush.cfg. *)
EXTENDS MCRemoteRegister
====
