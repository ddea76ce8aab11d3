---- MODULE MCTicketLock3 ----
(* The 3-thread model of MCTicketLock.tla; see MCTicketLock3.cfg. *)
EXTENDS MCTicketLock
====
