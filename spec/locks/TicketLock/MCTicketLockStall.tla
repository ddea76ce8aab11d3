---- MODULE MCTicketLockStall ----
(* A model of MCTicketLockFaults.tla; see MCTicketLockStall.cfg. *)
EXTENDS MCTicketLockFaults
====
