---- MODULE MCRemoteRegister3Full ----
(* A model of MCRemoteRegister.tla; see MCRemoteRegister3Full.cfg. *)
EXTENDS MCRemoteRegister
====
