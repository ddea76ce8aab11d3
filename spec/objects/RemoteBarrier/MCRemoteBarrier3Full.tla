---- MODULE MCRemoteBarrier3Full ----
(* A model of MCRemoteBarrier.tla; see MCRemoteBarrier3Full.cfg. *)
EXTENDS MCRemoteBarrier
====
