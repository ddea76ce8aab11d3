---- MODULE MCRemoteBarrierDeadline ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierDeadline.cfg. *)
EXTENDS MCRemoteBarrier
====
