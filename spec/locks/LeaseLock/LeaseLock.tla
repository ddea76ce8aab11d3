----------------------------- MODULE LeaseLock -----------------------------
(***************************************************************************)
(* LeaseLock and FencedRegister on the weak RDMA model (BlockingVerbs),    *)
(* with clocks: per-node clocks of bounded rate drift, a message delay     *)
(* bound, renewal, the waiter's lease wait and the takeover CAS as         *)
(* dev.remora.locks.LeaseLock does them.                                   *)
(*                                                                         *)
(* Words (LeaseLockDescriptor): w on Home, the lease word                  *)
(*   W(g, b) = g * BeatMod + b   (Java: generation:32 | beat:32)           *)
(* g odd = held (the holder's token is g), even = free; b counts the       *)
(* holder's renewals of g. Changed only by remote CAS, each expecting the  *)
(* whole word its poster last saw. reg on RegNode, the fenced register,    *)
(* token * Base + value (Java: token:32 | value:32). d on DataNode, a      *)
(* word the holder writes without fencing while it trusts its lease. The   *)
(* lease length is the lock's (LockLease, which every handle reads from    *)
(* the lock).                                                              *)
(*                                                                         *)
(* Protocol, per thread, in a loop:                                        *)
(*   tryLock : read the clock (pre), READ w, read the clock (post).        *)
(*             g even: CAS(w -> W(g+1, 0)).                                *)
(*             a word not seen before: remember it; the wait starts at     *)
(*             post (the READ read the word no later than that).           *)
(*             the same word again: if pre - start >= lease (the word was  *)
(*             unchanged over at least that span, as the READ read it      *)
(*             after pre), CAS(w -> W(g+2, 0)) expecting that same word    *)
(*             (takeover, LEASE_EXPIRED).                                  *)
(*             A holder's lease runs from a clock reading taken before     *)
(*             posting the CAS that installed its word.                    *)
(*   holding : any of: renew = CAS(W(g, b) -> W(g, b+1)), the lease then   *)
(*             runs from a reading before posting it, and a failure means  *)
(*             the lock was taken over (the handle stops holding);         *)
(*             release = CAS(W(g, b) -> W(g+1, 0)) once its WRITE of d has *)
(*             landed (the ordered release's flush, R7); with the          *)
(*             register: fence it (first, after a takeover), fenced        *)
(*             writes; with clocks: a WRITE of d while it trusts its       *)
(*             lease. The holder trusts its lease while its own clock      *)
(*             shows less than lease - Margin since its lease began, and   *)
(*             acts whether it trusts it or not (fencing must catch it).   *)
(*   fence   : READ reg; token > ours: refused (release); = ours: done;    *)
(*             else CAS(reg -> our token, same value), decided again on    *)
(*             what a failed CAS returned.                                 *)
(*   write   : READ reg; token > ours: refused (release); else             *)
(*             CAS(reg -> our token, our value), likewise.                 *)
(*                                                                         *)
(* Time (Timed = TRUE; the abstraction): real time advances in Tick steps. *)
(* Each Tick every node's clock advances by an amount in Rates (1 or 2 in  *)
(* the models: clock rates within a factor of 2 of each other, a drift far *)
(* larger than real clocks have, which keeps the numbers small). A thread  *)
(* keeps only the differences of its own clock that the protocol compares *)
(* with a constant, saturated at that constant: no node compares its clock *)
(* with another's, so nothing else about the clocks matters. A holder's    *)
(* WRITE of d lands within Delta Ticks of being posted (Tick waits for     *)
(* it); the verbs on w have no bound (the protocol needs none), and a      *)
(* thread may take any time between its steps (a stalled holder, a slow    *)
(* response). With Timed = FALSE there are no clocks: a waiter may         *)
(* take over whenever it sees g odd (every timing at once), which is how   *)
(* the fencing properties are checked.                                     *)
(*                                                                         *)
(* Properties: TypeOK, ProtoTypeOK, NoTornAtomicWord, UniqueTokens (no two *)
(* holders share a token), GenerationMonotone; with clocks:                *)
(*   MutualExclusionWhileLeasesHold: a holder that trusts its lease by its *)
(*     own clock holds the lock's current generation (nobody took over;    *)
(*     with unique tokens, no other holder trusts a lease then);           *)
(*   RenewalDetectsTakeover: a renewal the holder counts as successful     *)
(*     reached the home while the holder's generation was there;           *)
(*   EffectsInsideLease: a WRITE of d posted while its holder trusted its  *)
(*     lease lands while the holder's generation is the lock's (what the   *)
(*     Delta share of the margin buys);                                    *)
(* without clocks, with the register:                                      *)
(*   LeaseSafety: the register's token never decreases: no write with a    *)
(*     stale token lands after a newer holder's fence or write.            *)
(*                                                                         *)
(* How to break it (the unsafe twins, MCLeaseLock*.cfg):                   *)
(*   Register = "plain"        a plain WRITE of the register: LeaseSafety  *)
(*   WaitEnd = "afterRead", TakeoverCas = "generation" (the reviewed       *)
(*                             code): MutualExclusionWhileLeasesHold       *)
(*   Margin = 0                MutualExclusionWhileLeasesHold              *)
(*   RenewChecks = FALSE       RenewalDetectsTakeover                      *)
(*   PerHandleLease = TRUE     MutualExclusionWhileLeasesHold              *)
(***************************************************************************)
EXTENDS BlockingVerbs

CONSTANTS
    Home,           \* the node of the lease word w
    RegNode,        \* the node of the fenced register reg
    DataNode,       \* the node of the unfenced data word d
    Base,           \* reg = token * Base + value
    Val,            \* Val[t]: the value thread t writes to reg (0 < Val[t] < Base)
    MaxGen,         \* the largest generation the model installs
    MaxBeat,        \* renewals per holding
    Register,       \* "fenced": fence and fenced writes; "plain": a plain WRITE; "none": no register
    Timed,          \* TRUE: clocks; FALSE: a waiter may take over at any time
    LockLease,      \* the lease length stored in the lock, in clock units
    Margin,         \* the lock's margin, in clock units
    Rates,          \* how far a clock may advance in one Tick
    Delta,          \* a holder's WRITE of d lands within Delta Ticks of being posted
    WaitEnd,        \* "beforeRead" (the fix) or "afterRead": the clock reading that ends a wait
    TakeoverCas,    \* "word" (the fix): the takeover CAS expects the whole word; "generation": only g
    RenewChecks,    \* TRUE: a failed renewal CAS means taken over; FALSE: its result is ignored
    PerHandleLease, \* TRUE: each handle uses HandleLease[t] instead of LockLease
    HandleLease     \* HandleLease[t]: thread t's own lease length when PerHandleLease

BeatMod == MaxBeat + 1
W(g, b) == g * BeatMod + b
Gen(x) == x \div BeatMod
Beat(x) == x % BeatMod
Token(x) == x \div Base
None == -1

Lease(t) == IF PerHandleLease THEN HandleLease[t] ELSE LockLease
(* A thread's clock differences are compared only with these constants, so  *)
(* they saturate there: a wait at its lease, a lease's age at lease-Margin. *)
WaitCap(t) == Lease(t)
TrustCap(t) == IF Lease(t) > Margin THEN Lease(t) - Margin ELSE 0

ASSUME /\ \A t \in Threads : NodeOf[t] \notin {Home, RegNode, DataNode} /\ Val[t] \in 1..(Base - 1)
       /\ MaxGen % 2 = 1 /\ MaxBeat \in Nat
       /\ Register \in {"fenced", "plain", "none"} /\ Timed \in BOOLEAN
       /\ LockLease \in Nat \ {0} /\ Margin \in 0..(LockLease - 1)
       /\ Rates \subseteq Nat \ {0} /\ Delta \in Nat \ {0}
       /\ WaitEnd \in {"beforeRead", "afterRead"} /\ TakeoverCas \in {"word", "generation"}
       /\ RenewChecks \in BOOLEAN /\ PerHandleLease \in BOOLEAN

VARIABLES
    pc,         \* pc[t]: "idle", "rw", "acq", "h", "ff", "fc", "wr", "wc", "rn", "rel", "stop"
    tok,        \* tok[t]: the token held (0 when none)
    cur,        \* cur[t]: holding: the lease word as this holder last installed it; "acq": the CAS's expected word
    took,       \* took[t]: the outstanding acquisition is a takeover
    seen,       \* seen[t]: the held word this waiter last saw, or None
    waited,     \* waited[t]: clock units since the READ that first saw seen[t] completed
    pre,        \* pre[t]: the wait had lasted a lease when the outstanding READ of w was posted (the clock
                \*         reading before it; only its comparison with the lease is kept)
    age,        \* age[t]: clock units since the reading before the CAS that installed cur[t] (or, in "acq",
                \*         before the acquiring CAS)
    renAge,     \* renAge[t]: clock units since the reading before the outstanding renewal CAS
    putAge,     \* putAge[t]: Ticks since the pending WRITE of d was posted, until it lands
    putTok,     \* putTok[t]: the token of the holder that posted the pending WRITE of d (0: none)
    regSeen,    \* regSeen[t]: the register word the outstanding fenced CAS expects
    renewedOk   \* renewedOk[t]: t's renewals counted as successful since it acquired all found its generation

protoVars == <<pc, tok, cur, took, seen, waited, pre, age, renAge, putAge, putTok, regSeen, renewedOk>>
vars == <<nicVars, protoVars>>

Holding(t) == pc[t] \in {"h", "ff", "fc", "wr", "wc", "rn"}
TrustsLease(t) == Timed /\ Holding(t) /\ age[t] < Lease(t) - Margin

Init ==
    /\ NicInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ tok = [t \in Threads |-> 0]
    /\ cur = [t \in Threads |-> 0]
    /\ took = [t \in Threads |-> FALSE]
    /\ seen = [t \in Threads |-> None]
    /\ waited = [t \in Threads |-> 0]
    /\ pre = [t \in Threads |-> FALSE]
    /\ age = [t \in Threads |-> 0]
    /\ renAge = [t \in Threads |-> 0]
    /\ putAge = [t \in Threads |-> 0]
    /\ putTok = [t \in Threads |-> 0]
    /\ regSeen = [t \in Threads |-> 0]
    /\ renewedOk = [t \in Threads |-> TRUE]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
Set(f, t, v) == [f EXCEPT ![t] = v]
Sat(x, cap) == IF x > cap THEN cap ELSE x

(***************************************************************************)
(* Time.                                                                   *)
(***************************************************************************)
(* A holder's WRITE of d that has not landed holds time back once it has   *)
(* waited Delta Ticks. The verbs on w need no bound (the protocol does not  *)
(* rely on one), so they have none.                                         *)
PutPending(t) == pend[t][DataNode] # <<>>

Tick ==
    /\ Timed
    /\ \A t \in Threads : PutPending(t) => putAge[t] < Delta
    /\ \E a \in [Threads -> Rates] :
        /\ waited' = [t \in Threads |-> IF seen[t] = None THEN 0 ELSE Sat(waited[t] + a[t], WaitCap(t))]
        /\ age' = [t \in Threads |-> IF Holding(t) \/ pc[t] = "acq" THEN Sat(age[t] + a[t], TrustCap(t)) ELSE 0]
        /\ renAge' = [t \in Threads |-> IF pc[t] = "rn" THEN Sat(renAge[t] + a[t], TrustCap(t)) ELSE 0]
    /\ putAge' = [t \in Threads |-> IF PutPending(t) THEN putAge[t] + 1 ELSE 0]
    /\ UNCHANGED <<nicVars, pc, tok, cur, took, seen, pre, putTok, regSeen, renewedOk>>

(***************************************************************************)
(* tryLock.                                                                *)
(***************************************************************************)
(* The clock is read (pre), then the READ of w is posted.                   *)
ReadWord(t) ==
    /\ pc[t] = "idle" /\ CanPost(t)
    /\ SetOp(t, GetOp("w")) /\ Go(t, "rw")
    /\ pre' = Set(pre, t, waited[t] >= Lease(t))
    /\ UNCHANGED <<mem, sb, pend, tok, cur, took, seen, waited, age, renAge, putAge, putTok, regSeen, renewedOk>>

(* Post the acquiring CAS from e to n; the clock is read just before: the  *)
(* lease will run from here (age).                                          *)
PostAcquire(t, e, n, takeover) ==
    /\ SetOp(t, CasOp("w", e, n)) /\ Go(t, "acq")
    /\ cur' = Set(cur, t, e) /\ age' = Set(age, t, 0)
    /\ took' = Set(took, t, takeover /\ Register = "fenced")   \* only the fence needs to know

Stop(t) ==
    /\ SetOp(t, NoOp) /\ Go(t, "stop") /\ UNCHANGED <<cur, took, age>>
    /\ seen' = Set(seen, t, None) /\ waited' = Set(waited, t, 0)

(* The READ of w completed.                                                 *)
WordRead(t) ==
    LET v == Result(t)
        g == Gen(v)
        waitedOut == IF WaitEnd = "beforeRead" THEN pre[t] ELSE waited[t] >= Lease(t)
        expired == IF Timed THEN v = seen[t] /\ waitedOut ELSE TRUE
    IN
    /\ pc[t] = "rw" /\ Completed(t)
    /\ pre' = Set(pre, t, FALSE)
    /\ UNCHANGED <<mem, sb, pend, tok, renAge, putAge, putTok, regSeen, renewedOk>>
    /\ \/ /\ g % 2 = 0                                          \* free: acquire
          /\ IF g + 1 <= MaxGen THEN PostAcquire(t, v, W(g + 1, 0), FALSE) /\ UNCHANGED <<seen, waited>>
             ELSE Stop(t)
       \/ /\ g % 2 = 1 /\ Timed /\ v # seen[t]                  \* a new word: the wait starts (post)
          /\ seen' = Set(seen, t, v) /\ waited' = Set(waited, t, 0)
          /\ SetOp(t, NoOp) /\ Go(t, "idle")
          /\ UNCHANGED <<cur, took, age>>
       \/ /\ g % 2 = 1 /\ ~expired                              \* CONTENDED
          /\ SetOp(t, NoOp) /\ Go(t, "idle")
          /\ UNCHANGED <<cur, took, seen, waited, age>>
       \/ /\ g % 2 = 1 /\ expired                               \* take over
          /\ IF g + 2 > MaxGen THEN Stop(t)
             ELSE /\ UNCHANGED <<seen, waited>>
                  /\ IF TakeoverCas = "word" THEN PostAcquire(t, v, W(g + 2, 0), TRUE)
                     \* generation only: the CAS succeeds whatever the beat is by then; modelled as a CAS
                     \* that expects a guessed beat (the right guess is the generation-only CAS succeeding)
                     ELSE \E b \in 0..MaxBeat : PostAcquire(t, W(g, b), W(g + 2, 0), TRUE)

(* The acquiring CAS returned: on success the lease runs from the reading   *)
(* before it was posted.                                                    *)
Acquired(t) ==
    /\ pc[t] = "acq" /\ Completed(t)
    /\ took' = Set(took, t, FALSE)
    /\ renewedOk' = Set(renewedOk, t, TRUE)
    /\ IF Result(t) = cur[t]
       THEN /\ tok' = Set(tok, t, Gen(op[t].val)) /\ cur' = Set(cur, t, op[t].val)
            /\ seen' = Set(seen, t, None) /\ waited' = Set(waited, t, 0)
            /\ IF took[t] /\ Register = "fenced"
               THEN SetOp(t, GetOp("reg")) /\ Go(t, "ff")           \* LEASE_EXPIRED: fence first
               ELSE SetOp(t, NoOp) /\ Go(t, "h")
            /\ UNCHANGED age
       ELSE /\ SetOp(t, NoOp) /\ Go(t, "idle")                      \* the word changed: CONTENDED
            /\ cur' = Set(cur, t, 0) /\ age' = Set(age, t, 0)
            /\ UNCHANGED <<tok, seen, waited>>
    /\ UNCHANGED <<mem, sb, pend, pre, renAge, putAge, putTok, regSeen>>

(***************************************************************************)
(* Holding.                                                                *)
(***************************************************************************)
Keep == UNCHANGED <<tok, took, seen, waited, pre, renAge, putAge, putTok, renewedOk>>

(* Release: CAS(cur -> W(g+1, 0)); the handle stops trusting at once.       *)
PostRelease(t) == SetOp(t, CasOp("w", cur[t], W(tok[t] + 1, 0))) /\ Go(t, "rel")

(* A WRITE of d while the holder trusts its lease (one at a time).          *)
WriteData(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ TrustsLease(t) /\ ~PutPending(t)
    /\ PostPut(t, "d", 1)
    /\ putAge' = Set(putAge, t, 0) /\ putTok' = Set(putTok, t, tok[t])
    /\ UNCHANGED <<mem, sb, op, pc, cur, age, regSeen>>
    /\ UNCHANGED <<tok, took, seen, waited, pre, renAge, renewedOk>>

(* The register: a fenced write, or (the plain twin) a WRITE then release.  *)
StartWrite(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ Register # "none"
    /\ IF Register = "fenced"
       THEN SetOp(t, GetOp("reg")) /\ Go(t, "wr") /\ UNCHANGED pend
       ELSE PostPut(t, "reg", tok[t] * Base + Val[t]) /\ PostRelease(t)
    /\ UNCHANGED <<mem, sb, cur, age, regSeen>> /\ Keep

(* A fenced operation saw register word r (from its READ, or from its       *)
(* failed CAS): refuse, finish, or post the CAS.                            *)
FencedDecide(t, r, isFence) ==
    LET target == IF isFence THEN tok[t] * Base + (r % Base) ELSE tok[t] * Base + Val[t]
    IN
    IF Token(r) > tok[t]
    THEN PostRelease(t) /\ regSeen' = Set(regSeen, t, 0)                    \* STALE_TOKEN: stop, release
    ELSE IF isFence /\ Token(r) = tok[t]
    THEN SetOp(t, NoOp) /\ Go(t, "h") /\ regSeen' = Set(regSeen, t, 0)      \* already fenced
    ELSE /\ SetOp(t, CasOp("reg", r, target)) /\ regSeen' = Set(regSeen, t, r)
         /\ Go(t, IF isFence THEN "fc" ELSE "wc")

RegRead(t) ==
    /\ pc[t] \in {"ff", "wr"} /\ Completed(t)
    /\ FencedDecide(t, Result(t), pc[t] = "ff")
    /\ UNCHANGED <<mem, sb, pend, cur, age>> /\ Keep

RegCasDone(t) ==
    /\ pc[t] \in {"fc", "wc"} /\ Completed(t)
    /\ IF Result(t) = regSeen[t]
       THEN SetOp(t, NoOp) /\ Go(t, "h") /\ regSeen' = Set(regSeen, t, 0)
       ELSE FencedDecide(t, Result(t), pc[t] = "fc")           \* raced: decide again on what it found
    /\ UNCHANGED <<mem, sb, pend, cur, age>> /\ Keep

(* Renew: CAS(W(g, b) -> W(g, b+1)), the clock read just before (renAge).   *)
StartRenew(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ Beat(cur[t]) < MaxBeat
    /\ SetOp(t, CasOp("w", cur[t], cur[t] + 1)) /\ Go(t, "rn")
    /\ renAge' = Set(renAge, t, 0)
    /\ UNCHANGED <<mem, sb, pend, tok, cur, took, seen, waited, pre, age, putAge, putTok, regSeen, renewedOk>>

Renewed(t) ==
    /\ pc[t] = "rn" /\ Completed(t)
    /\ renAge' = Set(renAge, t, 0)
    /\ IF Result(t) = cur[t] \/ ~RenewChecks
       THEN /\ cur' = Set(cur, t, cur[t] + 1) /\ age' = Set(age, t, renAge[t])
            /\ renewedOk' = Set(renewedOk, t, renewedOk[t] /\ Gen(Result(t)) = tok[t])
            /\ SetOp(t, NoOp) /\ Go(t, "h")
            /\ UNCHANGED tok
       ELSE /\ SetOp(t, NoOp) /\ Go(t, "idle")                 \* taken over: the handle no longer holds
            /\ tok' = Set(tok, t, 0) /\ age' = Set(age, t, 0) /\ cur' = Set(cur, t, 0)
            /\ renewedOk' = Set(renewedOk, t, TRUE)
    /\ UNCHANGED <<mem, sb, pend, took, seen, waited, pre, putAge, putTok, regSeen>>

(* The ordered release, unlock(): its flush READ of D completes only once   *)
(* the WRITE of d is placed (R7), which the guard stands for.               *)
StartRelease(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ ~PutPending(t)
    /\ PostRelease(t)
    /\ UNCHANGED <<mem, sb, pend, cur, age, regSeen>> /\ Keep

(* The releasing CAS returned (it failed if the lock was taken over).       *)
Released(t) ==
    /\ pc[t] = "rel" /\ Completed(t)
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ tok' = Set(tok, t, 0) /\ age' = Set(age, t, 0) /\ cur' = Set(cur, t, 0)
    /\ renewedOk' = Set(renewedOk, t, TRUE)
    /\ UNCHANGED <<mem, sb, pend, took, seen, waited, pre, renAge, putAge, putTok, regSeen>>

Thread(t) ==
    \/ ReadWord(t) \/ WordRead(t) \/ Acquired(t)
    \/ WriteData(t) \/ StartWrite(t) \/ RegRead(t) \/ RegCasDone(t)
    \/ StartRenew(t) \/ Renewed(t) \/ StartRelease(t) \/ Released(t)

(* A NIC step; a WRITE of d that lands ends its delay count.                *)
Nic ==
    /\ NicStep
    /\ putAge' = [t \in Threads |-> IF pend'[t][DataNode] # <<>> THEN putAge[t] ELSE 0]
    /\ putTok' = [t \in Threads |-> IF pend'[t][DataNode] # <<>> THEN putTok[t] ELSE 0]
    /\ UNCHANGED <<pc, tok, cur, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>

(* Without clocks: every thread has stopped and the memory system is idle.  *)
Finished ==
    /\ ~Timed
    /\ \A t \in Threads : pc[t] = "stop" /\ sb[t] = <<>> /\ \A n \in Nodes : pend[t][n] = <<>>
    /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ Nic \/ Tick \/ Finished

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
ProtoTypeOK ==
    /\ pc \in [Threads -> {"idle", "rw", "acq", "h", "ff", "fc", "wr", "wc", "rn", "rel", "stop"}]
    /\ tok \in [Threads -> 0..MaxGen]
    /\ pre \in [Threads -> BOOLEAN] /\ renewedOk \in [Threads -> BOOLEAN]
    /\ \A t \in Threads : /\ waited[t] \in 0..WaitCap(t)
                          /\ age[t] \in 0..TrustCap(t) /\ renAge[t] \in 0..TrustCap(t)
                          /\ putAge[t] \in 0..Delta

UniqueTokens == \A t, u \in Threads : t # u /\ Holding(t) /\ Holding(u) => tok[t] # tok[u]

MutualExclusionWhileLeasesHold == \A t \in Threads : TrustsLease(t) => Gen(mem["w"]) = tok[t]

RenewalDetectsTakeover == \A t \in Threads : Holding(t) => renewedOk[t]

GenerationMonotone == [][Gen(mem'["w"]) >= Gen(mem["w"])]_vars
LeaseSafety == [][Token(mem'["reg"]) >= Token(mem["reg"])]_vars

(* When a holder's WRITE of d lands (leaves pend), its token is still the   *)
(* lock's generation.                                                       *)
EffectsInsideLease ==
    [][\A t \in Threads : PutPending(t) /\ pend'[t][DataNode] = <<>> => Gen(mem["w"]) = putTok[t]]_vars
=============================================================================
