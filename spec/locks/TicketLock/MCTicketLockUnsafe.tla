---- MODULE MCTicketLockUnsafe ----
(* The unsafe model of MCTicketLock.tla; see MCTicketLockUnsafe.cfg. *)
EXTENDS MCTicketLock
====
