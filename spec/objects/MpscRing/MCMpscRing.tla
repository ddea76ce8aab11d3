----------------------------- MODULE MCMpscRing -----------------------------
(***************************************************************************)
(* Models of MpscRing: producers p1, p2, 2 messages each, 2 slots (each    *)
(* slot is used twice).                                                    *)
(*   MCMpscRing.cfg          the code, no faults: the safety properties    *)
(*                           hold                                          *)
(*   MCMpscRingFull.cfg      the same with AllDelivered (spec-full)        *)
(*   MCMpscRingNoCommit.cfg  no commit words (the consumer trusts the      *)
(*                           tail): NoStaleRead violated                   *)
(*   MCMpscRingSkip.cfg      1 slot, 1 message each, one give-up or crash  *)
(*                           of p2, the bounded skip under its timing      *)
(*                           assumption: safety holds                      *)
(*   MCMpscRingSkipFull.cfg  the same with 2 slots, 2 messages each        *)
(*                           (profile spec-full)                           *)
(*   MCMpscRingSkipLate.cfg  the skip without the timing assumption:       *)
(*                           OkNotSkipped violated                         *)
(*   MCMpscRingSkipLateData.cfg  the same, 1 slot, NoStaleRead alone: the  *)
(*                           late WRITEs land over the next lap's message  *)
(*                           (the documented risk)                         *)
(***************************************************************************)
EXTENDS MpscRing

MCProducers == {"p1", "p2"}
MCPBase == [pr \in MCProducers |-> IF pr = "p1" THEN 10 ELSE 20]
=============================================================================
