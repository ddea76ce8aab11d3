---- MODULE MCRemoteBarrierCountPass ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierCountPass.cfg. *)
EXTENDS MCRemoteBarrier
====
