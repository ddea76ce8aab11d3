---------------------------- MODULE RemoteBarrier ----------------------------
(***************************************************************************)
(* dev.remora.objects.RemoteBarrier.await(timeout) on the weak RDMA model  *)
(* (BlockingFaults; FAULTS = {} is BlockingVerbs with WRITEs that wait for *)
(* their acknowledgement). Two words on the home H: arrivals (FETCH_ADD    *)
(* only) and state (generation, plus BrokenBit when broken; CAS only).     *)
(*                                                                         *)
(* Protocol, per party, for rounds 0 .. Rounds - 1 (Design = "ticket", the *)
(* code): FETCH_ADD(arrivals, 1) -> ticket; round = ticket / N, index =    *)
(* ticket % N. The last arrival (index N - 1) CASes state: round ->        *)
(* round + 1 and passes if it succeeded (BROKEN if the round was broken).  *)
(* Every other party READs state until it is broken (BROKEN) or past the   *)
(* round (PASSED); once its deadline has passed (DeadlinePasses, a step   *)
(* of its own, at any time while it waits) a READ that decides nothing is  *)
(* followed by CAS(state: round -> BrokenBit + round); the CAS's old value *)
(* says which came first, the release (PASSED) or not (BROKEN). A party    *)
(* that ends BROKEN stops (a broken barrier is not reused).                *)
(*                                                                         *)
(* Checked: FaultsTypeOK, NoTornAtomicWord; TicketRound (a party's ticket  *)
(* belongs to its own round: the count is never reset, and nobody arrives  *)
(* in round r + 1 before round r ended); NoEarlyPass (a party passes round *)
(* r only after the FETCH_ADDs of all N parties for round r took effect,   *)
(* a crashed party's included: so with a crash the live parties pass only  *)
(* rounds the crashed party arrived in); BreakXorRelease (no round has     *)
(* both a party that passed and a party that ended BROKEN); liveness:      *)
(* EveryPartyPasses (no deadlines, no faults: every party passes every     *)
(* round) and LivePartiesEnd (with deadlines, and a crash: every live      *)
(* party returns from every await it makes, PASSED or BROKEN).             *)
(*                                                                         *)
(* Found: a waiter that tests the broken bit first (Decide =             *)
(* "brokenFirst", RemoteBarrier.await as first written) fails             *)
(* BreakXorRelease once deadlines can pass (MCRemoteBarrierDeadline): t1  *)
(* passes round 0 and arrives in round 1 while t2, a waiter of round 0,   *)
(* has not yet seen the release; t1's deadline passes and it breaks round *)
(* 1 (state := BrokenBit + 1); t2's next READ sees the broken bit and t2  *)
(* returns BROKEN for round 0, which was released. The breaking CAS's old *)
(* value is read the same way. Decide = "generation" (PASSED when the     *)
(* generation is past the round, broken bit or not; BROKEN only when the  *)
(* round itself is broken) is what await does now, and it holds           *)
(* (MCRemoteBarrierFixed, MCRemoteBarrierCrash, MCRemoteBarrier3Full).     *)
(*                                                                         *)
(* How to break it: Design = "resetAfter" resets the count to 0 with a     *)
(* WRITE after the release CAS (so rounds need no division): a fast party *)
(* that saw the release arrives before the reset lands, its arrival is     *)
(* lost and the next round never completes (EveryPartyPasses fails).       *)
(* Design = "resetBefore" posts the reset WRITE before the release CAS on  *)
(* the same QP: R7 places it before the CAS's read phase, so it is safe.   *)
(* WaitOn = "count": waiters READ the arrival count and pass once it shows *)
(* N arrivals for their round, ignoring the state word: a waiter breaks    *)
(* the round, the last arrival's FETCH_ADD lands, and another waiter       *)
(* passes on the count (the release CAS would fail; BreakXorRelease fails, *)
(* 3 parties).                                                             *)
(*                                                                         *)
(* Abstractions: the flush of earlier WRITEs before arriving is not        *)
(* modelled (no data words); a party's deadline passes at most once per    *)
(* await; clocks are not modelled, any waiter may expire at any time.      *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Home,       \* the node of arrivals and state
    Rounds,     \* how many times each party calls await
    Design,     \* "ticket" (the code), "resetBefore", "resetAfter"
    WaitOn,     \* "state" (the code) or "count" (a broken waiter)
    Deadlines,  \* TRUE: a waiter's deadline may pass (and, under fairness, does)
    Decide,     \* "brokenFirst": a waiter tests the broken bit first; "generation": the generation first (the code)
    BrokenBit   \* the broken bit (any value above every generation)

VARIABLES
    pc,         \* pc[t]: "idle", "faa", "reset", "relcas", "reset2", "poll", "brkcas", "done"
    rnd,        \* rnd[t]: the awaits t has returned from (its local round)
    tk,         \* tk[t]: the old value t's FETCH_ADD returned
    expired,    \* expired[t]: the deadline of t's current await has passed
    arr,        \* ghost: arr[r], the parties whose FETCH_ADD for round r took effect
    outcome     \* ghost: outcome[t][r], "none", "passed" or "broken"

vars == <<allVerbVars, pc, rnd, tk, expired, arr, outcome>>
protoVars == <<pc, rnd, tk, expired, outcome>>

N == Cardinality(Threads)
RoundSet == 0 .. (Rounds - 1)

ASSUME /\ Design \in {"ticket", "resetBefore", "resetAfter"} /\ WaitOn \in {"state", "count"}
       /\ WaitOn = "count" => Design = "ticket"
       /\ Decide \in {"brokenFirst", "generation"} /\ Deadlines \in BOOLEAN /\ BrokenBit > Rounds /\ WordMod > N * Rounds
       /\ HomeOf["arrivals"] = Home /\ HomeOf["state"] = Home
       /\ \A t \in Threads : NodeOf[t] # Home

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ rnd = [t \in Threads |-> 0]
    /\ tk = [t \in Threads |-> 0]
    /\ expired = [t \in Threads |-> FALSE]
    /\ arr = [r \in RoundSet |-> {}]
    /\ outcome = [t \in Threads |-> [r \in RoundSet |-> "none"]]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
IsBroken(s) == s >= BrokenBit
Gen(s) == IF IsBroken(s) THEN s - BrokenBit ELSE s
(* Whether a state word read or replaced by a waiter of round r shows r      *)
(* released. "brokenFirst" tests the broken bit first, so a break of a      *)
(* LATER round (by a party that passed r and arrived again) hides r's        *)
(* release; "generation" (the code) looks at the generation first.          *)
ShowsRelease(s, r) == IF Decide = "brokenFirst" THEN ~IsBroken(s) /\ s > r ELSE Gen(s) > r
(* The round t's await belongs to, as t computes it.                         *)
Round(t) == IF Design = "ticket" THEN tk[t] \div N ELSE rnd[t]

(* t returns from its await: PASSED (ok) or BROKEN; it stops when broken or  *)
(* after its last round.                                                     *)
Finish(t, ok) ==
    /\ outcome' = [outcome EXCEPT ![t][rnd[t]] = IF ok THEN "passed" ELSE "broken"]
    /\ rnd' = [rnd EXCEPT ![t] = @ + 1]
    /\ Go(t, IF ok /\ rnd[t] + 1 < Rounds THEN "idle" ELSE "done")
    /\ expired' = [expired EXCEPT ![t] = FALSE]
    /\ Post(t, NoOp)
    /\ UNCHANGED tk

Arrive(t) ==
    /\ Live(t) /\ pc[t] = "idle" /\ CanPost(t)
    /\ Post(t, FaaOp("arrivals", 1)) /\ Go(t, "faa")
    /\ UNCHANGED <<rnd, tk, expired, outcome>>

Release(t, r) == Post(t, CasOp("state", r, r + 1)) /\ Go(t, "relcas")
WaitWord == IF WaitOn = "state" THEN "state" ELSE "arrivals"

Arrived(t) ==
    LET k == Result(t)
        last == IF Design = "ticket" THEN k % N = N - 1 ELSE k = N - 1
        r == IF Design = "ticket" THEN k \div N ELSE rnd[t]
    IN
    /\ Live(t) /\ pc[t] = "faa" /\ Completed(t)
    /\ tk' = [tk EXCEPT ![t] = k]
    /\ IF last
       THEN IF Design = "resetBefore"
            THEN Post(t, PutOp("arrivals", 0)) /\ Go(t, "reset")
            ELSE Release(t, r)
       ELSE Post(t, GetOp(WaitWord)) /\ Go(t, "poll")
    /\ UNCHANGED <<rnd, expired, outcome>>

(* resetBefore: the reset WRITE is acknowledged; the release CAS follows it  *)
(* on the same QP, so its read phase waits until the WRITE is placed (R7).   *)
ResetDone(t) ==
    /\ Live(t) /\ pc[t] = "reset" /\ Completed(t)
    /\ Release(t, Round(t))
    /\ UNCHANGED <<rnd, tk, expired, outcome>>

RelDone(t) ==
    /\ Live(t) /\ pc[t] = "relcas" /\ Completed(t)
    /\ IF Design = "resetAfter" /\ Result(t) = Round(t)
       THEN Post(t, PutOp("arrivals", 0)) /\ Go(t, "reset2") /\ UNCHANGED <<rnd, tk, expired, outcome>>
       ELSE Finish(t, Result(t) = Round(t))

Reset2Done(t) ==
    /\ Live(t) /\ pc[t] = "reset2" /\ Completed(t)
    /\ Finish(t, TRUE)

PollDone(t) ==
    LET s == Result(t)
        r == Round(t)
    IN
    /\ Live(t) /\ pc[t] = "poll" /\ Completed(t)
    /\ CASE WaitOn = "state" /\ ShowsRelease(s, r) -> Finish(t, TRUE)
         [] WaitOn = "state" /\ IsBroken(s) -> Finish(t, FALSE)
         [] WaitOn = "count" /\ s >= (r + 1) * N -> Finish(t, TRUE)
         [] expired[t] ->
              \* The same expected value as the release CAS: exactly one of the two succeeds (rao).
              Post(t, CasOp("state", r, BrokenBit + r)) /\ Go(t, "brkcas") /\ UNCHANGED <<rnd, tk, expired, outcome>>
         [] OTHER -> Post(t, GetOp(WaitWord)) /\ UNCHANGED <<pc, rnd, tk, expired, outcome>>

BrkDone(t) ==
    LET old == Result(t) IN
    /\ Live(t) /\ pc[t] = "brkcas" /\ Completed(t)
    /\ Finish(t, ShowsRelease(old, Round(t)))

DeadlinePasses(t) ==
    /\ Deadlines /\ Live(t) /\ pc[t] = "poll" /\ ~expired[t]
    /\ expired' = [expired EXCEPT ![t] = TRUE]
    /\ UNCHANGED <<allVerbVars, pc, rnd, tk, outcome>>

FairThread(t) ==
    /\ \/ Arrive(t) \/ Arrived(t) \/ ResetDone(t) \/ RelDone(t) \/ Reset2Done(t) \/ PollDone(t) \/ BrkDone(t)
       \/ DeadlinePasses(t)
    /\ UNCHANGED arr

(* The ghost count: t's FETCH_ADD reads arrivals in this NIC step (its read  *)
(* phase), or a crashed party's FETCH_ADD takes effect from its stray.       *)
DrawsNow(t) == op[t].kind = "faa" /\ op[t].st = "posted" /\ op'[t].st \in {"window", "done"}
StrayDraw(r) == r.puts = <<>> /\ r.last.kind = "faa" /\ r \notin stray' /\ mem'["arrivals"] # mem["arrivals"]
Drawn(t) == DrawsNow(t) \/ \E r \in stray : r.t = t /\ StrayDraw(r)
Draw == arr' = [r \in RoundSet |-> arr[r] \cup {t \in Threads : Drawn(t) /\ rnd[t] = r}]

Stopped == \A t \in Threads : pc[t] = "done" \/ ~Live(t)

Next ==
    \/ \E t \in Threads : FairThread(t)
    \/ \E t \in Threads : Crash(t) /\ UNCHANGED <<protoVars, arr>>
    \/ FaultsNicStep /\ Draw /\ UNCHANGED protoVars
    \/ Stopped /\ UNCHANGED vars

(* A deadline that may pass does pass (a fairness condition of its own: the *)
(* polling loop alone would satisfy the thread's).                          *)
Spec == Init /\ [][Next]_vars /\ FaultsFairness
        /\ \A t \in Threads : WF_vars(FairThread(t)) /\ WF_vars(DeadlinePasses(t) /\ UNCHANGED arr)

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
TicketRound ==
    Design = "ticket" => \A t \in Threads : pc[t] \in {"relcas", "poll", "brkcas"} => Round(t) = rnd[t]

NoEarlyPass == \A t \in Threads, r \in RoundSet : outcome[t][r] = "passed" => arr[r] = Threads

BreakXorRelease ==
    \A r \in RoundSet : ~((\E t \in Threads : outcome[t][r] = "passed") /\ (\E u \in Threads : outcome[u][r] = "broken"))

EveryPartyPasses == <>(\A t \in Threads, r \in RoundSet : outcome[t][r] = "passed")

LivePartiesEnd == \A t \in Threads : <>(pc[t] = "done" \/ ~Live(t))
=============================================================================
