---- MODULE MCRemoteBarrierResetBeforeFull ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierResetBeforeFull.cfg. *)
EXTENDS MCRemoteBarrier
====
