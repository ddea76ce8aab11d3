---- MODULE MCRemoteBarrierCrash ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierCrash.cfg. *)
EXTENDS MCRemoteBarrier
====
