---- MODULE MCTicketLockSkip ----
(* The Skip model of MCTicketLock.tla; see MCTicketLockSkip.cfg. *)
EXTENDS MCTicketLock
====
