---- MODULE MCTicketLockDropped ----
(* A model of MCTicketLockFaults.tla; see MCTicketLockDropped.cfg. *)
EXTENDS MCTicketLockFaults
====
