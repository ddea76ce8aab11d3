---- MODULE MCRemoteBarrierResetBefore ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierResetBefore.cfg. *)
EXTENDS MCRemoteBarrier
====
