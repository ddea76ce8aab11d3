---- MODULE MCRemoteBarrierFixed ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrierFixed.cfg. *)
EXTENDS MCRemoteBarrier
====
