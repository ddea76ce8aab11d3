---- MODULE MCRemoteBarrierResetAfter ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierResetAfter.cfg. *)
EXTENDS MCRemoteBarrier
====
