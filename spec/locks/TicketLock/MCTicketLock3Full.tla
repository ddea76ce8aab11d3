---- MODULE MCTicketLock3Full ----
(* The 3-thread spec-full model of MCTicketLock.tla; see MCTicketLock3Full.cfg. *)
EXTENDS MCTicketLock
====
