---- MODULE MCCasRegisterMixedWrite ----
(* A model of MCCasRegister.tla; see MCCasRegisterMixedWrite.cfg. *)
EXTENDS MCCasRegister
====
