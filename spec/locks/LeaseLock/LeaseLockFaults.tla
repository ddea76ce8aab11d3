--------------------------- MODULE LeaseLockFaults ---------------------------
(***************************************************************************)
(* dev.remora.locks.LeaseLock (and FencedRegister) under timeouts, QP      *)
(* errors and a crashed holder (BlockingFaults). The protocol and the time *)
(* abstraction are LeaseLock.tla's with its fixed choices (the wait ends   *)
(* before the READ, the takeover CAS expects the whole word, a failed      *)
(* renewal means taken over, the lease is the lock's), without the         *)
(* unfenced data word d (EffectsInsideLease is LeaseLock.tla's).           *)
(*                                                                         *)
(* Words: w on Home, W(g, b) = g * BeatMod + b (g odd = held, the          *)
(* holder's token); reg on RegNode, token * Base + value, changed only by  *)
(* CAS. Per thread, in a loop: READ w; g even: CAS(w -> W(g+1, 0)); the    *)
(* same held word for a lease: CAS(w -> W(g+2, 0)) (takeover, then fence); *)
(* holding: renew CAS(W(g, b) -> W(g, b+1)), fenced writes (READ reg, CAS), *)
(* release CAS(W(g, b) -> W(g+1, 0)).                                      *)
(*                                                                         *)
(* Faults (what the Java does with them):                                  *)
(*  - the acquiring CAS times out: it stays unsettled (pending); the       *)
(*    handle's next attempt settles it (the same completion, waited for    *)
(*    later) and holds the lock if it installed its word, the lease        *)
(*    running from the reading before the CAS was posted (age keeps        *)
(*    running).                                                            *)
(*  - the acquiring CAS fails (QP error, outcome unknown): the handle does *)
(*    not hold the lock and does not look (Resolve = "none"); if the CAS   *)
(*    lands later (a stray) the word is held by nobody who renews it, and  *)
(*    a waiter (the handle itself included) takes over after a lease.      *)
(*    Resolve = "read" (the twin): the handle READs w and holds the lock   *)
(*    if w is the word its CAS would install.                              *)
(*  - the renewal CAS times out: it stays unsettled; the next renew() or   *)
(*    release settles it (a wait); renew() throws meanwhile, the lease     *)
(*    still running from the reading before the previous successful CAS.   *)
(*  - the renewal CAS fails (QP error): the handle READs w; the renewed    *)
(*    word (only this holder installs it) means it landed; otherwise       *)
(*    renew() throws and the handle holds the lock with the word it knew   *)
(*    (a stray renewal that lands later makes its next renewal or its      *)
(*    release fail: it counts the lock as taken over, which is safe).      *)
(*  - a fenced CAS on reg (fence or write) times out or fails:             *)
(*    FencedRegister throws and forgets it; the CAS may still land, and     *)
(*    nothing orders it against the handle's later verbs to other nodes    *)
(*    (a timeout is modelled as retiring the QP: its CAS becomes a stray,  *)
(*    which only adds behaviours). The caller releases the lock.           *)
(*  - a client in Crashable crashes (holding or not).                      *)
(*                                                                         *)
(* Checked: FaultsTypeOK, ProtoTypeOK, UniqueTokens, GenerationMonotone;   *)
(* with clocks MutualExclusionWhileLeasesHold, RenewalDetectsTakeover and  *)
(* TakeoverAfterCrash (liveness: once a client has crashed, every live     *)
(* client eventually holds the lock, unless the generations ran out);      *)
(* without clocks (a waiter may take over whenever it sees the word held)  *)
(* LeaseSafety with the fenced register.                                   *)
(***************************************************************************)
EXTENDS BlockingFaults

CONSTANTS
    Home,           \* the node of the lease word w
    RegNode,        \* the node of the fenced register reg
    Base,           \* reg = token * Base + value
    Val,            \* Val[t]: the value thread t writes to reg (0 < Val[t] < Base)
    MaxGen,         \* the largest generation the model installs
    MaxBeat,        \* renewals per holding
    Register,       \* "fenced": fence and fenced writes; "none": no register
    Timed,          \* TRUE: clocks; FALSE: a waiter may take over at any time
    LockLease,      \* the lease length stored in the lock, in clock units
    Margin,         \* the lock's margin, in clock units
    Rates,          \* how far a clock may advance in one Tick
    Resolve         \* an acquiring CAS with an unknown outcome: "none" (the Java) or "read" (the twin)

BeatMod == MaxBeat + 1
W(g, b) == g * BeatMod + b
Gen(x) == x \div BeatMod
Beat(x) == x % BeatMod
Token(x) == x \div Base
None == -1
TrustCap == LockLease - Margin

ASSUME /\ \A t \in Threads : NodeOf[t] \notin {Home, RegNode} /\ Val[t] \in 1..(Base - 1)
       /\ HomeOf["w"] = Home /\ HomeOf["reg"] = RegNode
       /\ MaxGen % 2 = 1 /\ MaxBeat \in Nat /\ Register \in {"fenced", "none"} /\ Timed \in BOOLEAN
       /\ LockLease \in Nat \ {0} /\ Margin \in 1..(LockLease - 1) /\ Rates \subseteq Nat \ {0}
       /\ Resolve \in {"none", "read"} /\ ~RETIRE_ON_TIMEOUT /\ ~TRACK_PUBLICATION

VARIABLES
    pc,         \* pc[t]: "idle", "rw", "acq", "acqU", "acqR", "h", "ff", "fc", "wr", "wc", "rn", "rnU", "rnR",
                \*        "rel", "stop"
    tok,        \* tok[t]: the token held (0 when none)
    cur,        \* cur[t]: holding: the lease word as this holder last installed it; acquiring: the CAS's expected word
    nxt,        \* nxt[t]: acquiring: the word the CAS installs
    took,       \* took[t]: the outstanding acquisition is a takeover (fence first)
    seen,       \* seen[t]: the held word this waiter last saw, or None
    waited,     \* waited[t]: clock units since the READ that first saw seen[t] completed (saturated)
    pre,        \* pre[t]: the wait had lasted a lease when the outstanding READ of w was posted
    age,        \* age[t]: clock units since the reading before the CAS that installed cur[t] (saturated)
    renAge,     \* renAge[t]: clock units since the reading before the outstanding renewal CAS
    regSeen,    \* regSeen[t]: the register word the outstanding fenced CAS expects
    renewedOk   \* renewedOk[t]: t's renewals counted as successful since it acquired all found its generation

protoVars == <<pc, tok, cur, nxt, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>
vars == <<allVerbVars, protoVars>>

Holding(t) == Live(t) /\ pc[t] \in {"h", "ff", "fc", "wr", "wc", "rn", "rnU", "rnR"}
TrustsLease(t) == Timed /\ Holding(t) /\ age[t] < TrustCap

Init ==
    /\ FaultsInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ tok = [t \in Threads |-> 0]
    /\ cur = [t \in Threads |-> 0]
    /\ nxt = [t \in Threads |-> 0]
    /\ took = [t \in Threads |-> FALSE]
    /\ seen = [t \in Threads |-> None]
    /\ waited = [t \in Threads |-> 0]
    /\ pre = [t \in Threads |-> FALSE]
    /\ age = [t \in Threads |-> 0]
    /\ renAge = [t \in Threads |-> 0]
    /\ regSeen = [t \in Threads |-> 0]
    /\ renewedOk = [t \in Threads |-> TRUE]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
Set(f, t, v) == [f EXCEPT ![t] = v]
Sat(x, cap) == IF x > cap THEN cap ELSE x
Done(t) == Completed(t) \/ Failed(t)

(***************************************************************************)
(* Time (LeaseLock.tla's Tick without the data word's delay bound).        *)
(***************************************************************************)
Tick ==
    /\ Timed
    /\ \E a \in [Threads -> Rates] :
        /\ waited' = [t \in Threads |-> IF seen[t] = None THEN 0 ELSE Sat(waited[t] + a[t], LockLease)]
        /\ age' = [t \in Threads |-> IF Holding(t) \/ pc[t] \in {"acq", "acqU", "acqR"}
                                     THEN Sat(age[t] + a[t], TrustCap) ELSE 0]
        /\ renAge' = [t \in Threads |-> IF pc[t] \in {"rn", "rnU", "rnR"} THEN Sat(renAge[t] + a[t], TrustCap) ELSE 0]
    /\ UNCHANGED <<allVerbVars, pc, tok, cur, nxt, took, seen, pre, regSeen, renewedOk>>

(***************************************************************************)
(* tryLock.                                                                *)
(***************************************************************************)
ReadWord(t) ==
    /\ pc[t] = "idle" /\ CanPost(t)
    /\ Post(t, GetOp("w")) /\ Go(t, "rw")
    /\ pre' = Set(pre, t, waited[t] >= LockLease)
    /\ UNCHANGED <<tok, cur, nxt, took, seen, waited, age, renAge, regSeen, renewedOk>>

(* Post the acquiring CAS from e to n; the lease will run from here (age).  *)
PostAcquire(t, e, n, takeover) ==
    /\ Post(t, CasOp("w", e, n)) /\ Go(t, "acq")
    /\ cur' = Set(cur, t, e) /\ nxt' = Set(nxt, t, n) /\ age' = Set(age, t, 0)
    /\ took' = Set(took, t, takeover /\ Register = "fenced")

Stop(t) ==
    /\ Post(t, NoOp) /\ Go(t, "stop") /\ UNCHANGED <<cur, nxt, took, age>>
    /\ seen' = Set(seen, t, None) /\ waited' = Set(waited, t, 0)

WordRead(t) ==
    LET v == Result(t)
        g == Gen(v)
        expired == IF Timed THEN v = seen[t] /\ pre[t] ELSE TRUE
    IN
    /\ pc[t] = "rw"
    /\ pre' = Set(pre, t, FALSE)
    /\ UNCHANGED <<tok, renAge, regSeen, renewedOk>>
    /\ \/ /\ Failed(t) /\ Post(t, NoOp) /\ Go(t, "idle")                     \* a READ that failed: try again
          /\ UNCHANGED <<cur, nxt, took, seen, waited, age>>
       \/ /\ Completed(t) /\ g % 2 = 0                                       \* free: acquire
          /\ IF g + 1 <= MaxGen THEN PostAcquire(t, v, W(g + 1, 0), FALSE) /\ UNCHANGED <<seen, waited>>
             ELSE Stop(t)
       \/ /\ Completed(t) /\ g % 2 = 1 /\ Timed /\ v # seen[t]               \* a new word: the wait starts
          /\ seen' = Set(seen, t, v) /\ waited' = Set(waited, t, 0)
          /\ Post(t, NoOp) /\ Go(t, "idle")
          /\ UNCHANGED <<cur, nxt, took, age>>
       \/ /\ Completed(t) /\ g % 2 = 1 /\ (Timed => v = seen[t]) /\ ~expired  \* CONTENDED
          /\ Post(t, NoOp) /\ Go(t, "idle")
          /\ UNCHANGED <<cur, nxt, took, seen, waited, age>>
       \/ /\ Completed(t) /\ g % 2 = 1 /\ expired                            \* take over
          /\ IF g + 2 > MaxGen THEN Stop(t)
             ELSE PostAcquire(t, v, W(g + 2, 0), TRUE) /\ UNCHANGED <<seen, waited>>

(* The handle holds the word nxt[t], its lease running since age.           *)
Holds(t) ==
    /\ tok' = Set(tok, t, Gen(nxt[t])) /\ cur' = Set(cur, t, nxt[t])
    /\ seen' = Set(seen, t, None) /\ waited' = Set(waited, t, 0)
    /\ renewedOk' = Set(renewedOk, t, TRUE) /\ took' = Set(took, t, FALSE)
    /\ IF took[t] THEN Post(t, GetOp("reg")) /\ Go(t, "ff") ELSE Post(t, NoOp) /\ Go(t, "h")
NotHeld(t) ==
    /\ Post(t, NoOp) /\ Go(t, "idle")
    /\ cur' = Set(cur, t, 0) /\ age' = Set(age, t, 0) /\ took' = Set(took, t, FALSE)
    /\ UNCHANGED <<tok, seen, waited, renewedOk>>

(* The acquiring CAS returned (or, unsettled, was settled by the next       *)
(* attempt); an error: not held (Resolve = "none"), or READ w ("read").     *)
Acquired(t) ==
    /\ pc[t] = "acq"
    /\ \/ Completed(t) /\ Result(t) = cur[t] /\ Holds(t) /\ UNCHANGED age
       \/ Completed(t) /\ Result(t) # cur[t] /\ NotHeld(t)
       \/ /\ Failed(t) /\ Resolve = "read" /\ Post(t, GetOp("w")) /\ Go(t, "acqR")
          /\ UNCHANGED <<tok, cur, took, seen, waited, age, renewedOk>>
       \/ Failed(t) /\ Resolve = "none" /\ NotHeld(t)
    /\ UNCHANGED <<nxt, pre, renAge, regSeen>>

(* The twin: the word its CAS would install means "mine".                   *)
AcquireResolved(t) ==
    /\ pc[t] = "acqR"
    /\ \/ Completed(t) /\ Result(t) = nxt[t] /\ Holds(t) /\ UNCHANGED age
       \/ Completed(t) /\ Result(t) # nxt[t] /\ NotHeld(t)
       \/ Failed(t) /\ NotHeld(t)
    /\ UNCHANGED <<nxt, pre, renAge, regSeen>>

AcqTimeOut(t) ==
    /\ pc[t] = "acq" /\ TimeOut(t) /\ Go(t, "acqU")
    /\ UNCHANGED <<tok, cur, nxt, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>
AcqResume(t) ==
    /\ pc[t] = "acqU" /\ Go(t, "acq")
    /\ UNCHANGED <<allVerbVars, tok, cur, nxt, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>

(***************************************************************************)
(* Holding.                                                                *)
(***************************************************************************)
Keep == UNCHANGED <<tok, nxt, took, seen, waited, pre, renAge, renewedOk>>

PostRelease(t) == Post(t, CasOp("w", cur[t], W(tok[t] + 1, 0))) /\ Go(t, "rel")

StartWrite(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ Register = "fenced"
    /\ Post(t, GetOp("reg")) /\ Go(t, "wr")
    /\ UNCHANGED <<cur, age, regSeen>> /\ Keep

FencedDecide(t, r, isFence) ==
    LET target == IF isFence THEN tok[t] * Base + (r % Base) ELSE tok[t] * Base + Val[t]
    IN
    IF Token(r) > tok[t]
    THEN PostRelease(t) /\ regSeen' = Set(regSeen, t, 0)                    \* STALE_TOKEN: stop, release
    ELSE IF isFence /\ Token(r) = tok[t]
    THEN Post(t, NoOp) /\ Go(t, "h") /\ regSeen' = Set(regSeen, t, 0)      \* already fenced
    ELSE /\ Post(t, CasOp("reg", r, target)) /\ regSeen' = Set(regSeen, t, r)
         /\ Go(t, IF isFence THEN "fc" ELSE "wc")

(* A READ of reg; one that fails ends the operation: the caller releases.   *)
RegRead(t) ==
    /\ pc[t] \in {"ff", "wr"}
    /\ \/ Completed(t) /\ FencedDecide(t, Result(t), pc[t] = "ff")
       \/ Failed(t) /\ PostRelease(t) /\ UNCHANGED regSeen
    /\ UNCHANGED <<cur, age>> /\ Keep

(* The fenced CAS; one that fails (or times out) throws: the caller         *)
(* releases, and the CAS may still land.                                    *)
RegCasDone(t) ==
    /\ pc[t] \in {"fc", "wc"}
    /\ \/ Completed(t) /\ Result(t) = regSeen[t] /\ Post(t, NoOp) /\ Go(t, "h") /\ regSeen' = Set(regSeen, t, 0)
       \/ Completed(t) /\ Result(t) # regSeen[t] /\ FencedDecide(t, Result(t), pc[t] = "fc")
       \/ Failed(t) /\ PostRelease(t) /\ regSeen' = Set(regSeen, t, 0)
    /\ UNCHANGED <<cur, age>> /\ Keep

(* A fenced CAS's wait times out: FencedRegister forgets it (retired).      *)
RegTimeOut(t) ==
    /\ pc[t] \in {"fc", "wc"} /\ CanTimeOut(t)
    /\ budget' = budget - 1
    /\ Break(t, RegNode, "timedout")
    /\ UNCHANGED <<crashed>> /\ UNCHANGED protoVars

StartRenew(t) ==
    /\ pc[t] = "h" /\ CanPost(t) /\ Beat(cur[t]) < MaxBeat
    /\ Post(t, CasOp("w", cur[t], cur[t] + 1)) /\ Go(t, "rn")
    /\ renAge' = Set(renAge, t, 0)
    /\ UNCHANGED <<tok, cur, nxt, took, seen, waited, pre, age, regSeen, renewedOk>>

(* The renewal CAS returned; an error: READ w.                              *)
Renewed(t) ==
    /\ pc[t] = "rn"
    /\ \/ /\ Completed(t) /\ Result(t) = cur[t]
          /\ cur' = Set(cur, t, cur[t] + 1) /\ age' = Set(age, t, renAge[t])
          /\ renewedOk' = Set(renewedOk, t, renewedOk[t] /\ Gen(Result(t)) = tok[t])
          /\ Post(t, NoOp) /\ Go(t, "h") /\ UNCHANGED tok
       \/ /\ Completed(t) /\ Result(t) # cur[t]                 \* taken over: the handle no longer holds
          /\ Post(t, NoOp) /\ Go(t, "idle")
          /\ tok' = Set(tok, t, 0) /\ age' = Set(age, t, 0) /\ cur' = Set(cur, t, 0)
          /\ renewedOk' = Set(renewedOk, t, TRUE)
       \/ /\ Failed(t) /\ Post(t, GetOp("w")) /\ Go(t, "rnR")
          /\ UNCHANGED <<tok, cur, age, renewedOk>>
    /\ UNCHANGED <<nxt, took, seen, waited, pre, renAge, regSeen>>

(* The READ after a renewal with an unknown outcome: the renewed word means *)
(* it landed; anything else: renew() throws, the handle keeps what it knew. *)
RenewResolved(t) ==
    /\ pc[t] = "rnR"
    /\ \/ /\ Completed(t) /\ Result(t) = cur[t] + 1
          /\ cur' = Set(cur, t, cur[t] + 1) /\ age' = Set(age, t, renAge[t])
       \/ /\ ~(Completed(t) /\ Result(t) = cur[t] + 1)
          /\ UNCHANGED <<cur, age>>
    /\ Post(t, NoOp) /\ Go(t, "h")
    /\ UNCHANGED <<tok, nxt, took, seen, waited, pre, renAge, regSeen, renewedOk>>

RenTimeOut(t) ==
    /\ pc[t] = "rn" /\ TimeOut(t) /\ Go(t, "rnU")
    /\ UNCHANGED <<tok, cur, nxt, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>
RenResume(t) ==
    /\ pc[t] = "rnU" /\ Go(t, "rn")
    /\ UNCHANGED <<allVerbVars, tok, cur, nxt, took, seen, waited, pre, age, renAge, regSeen, renewedOk>>

StartRelease(t) ==
    /\ pc[t] = "h" /\ CanPost(t)
    /\ PostRelease(t)
    /\ UNCHANGED <<cur, age, regSeen>> /\ Keep

(* The releasing CAS returned (it failed if the lock was taken over).       *)
Released(t) ==
    /\ pc[t] = "rel" /\ Done(t)
    /\ Post(t, NoOp) /\ Go(t, "idle")
    /\ tok' = Set(tok, t, 0) /\ age' = Set(age, t, 0) /\ cur' = Set(cur, t, 0)
    /\ renewedOk' = Set(renewedOk, t, TRUE)
    /\ UNCHANGED <<nxt, took, seen, waited, pre, renAge, regSeen>>

Thread(t) ==
    Live(t) /\
    \/ ReadWord(t) \/ WordRead(t) \/ Acquired(t) \/ AcquireResolved(t) \/ AcqResume(t)
    \/ StartWrite(t) \/ RegRead(t) \/ RegCasDone(t)
    \/ StartRenew(t) \/ Renewed(t) \/ RenewResolved(t) \/ RenResume(t)
    \/ StartRelease(t) \/ Released(t)
Faults(t) == Live(t) /\ (AcqTimeOut(t) \/ RenTimeOut(t) \/ RegTimeOut(t))

(* QP errors strike the acquiring and renewal CASes and the fenced CASes.   *)
QpWhere(t, n) ==
    /\ op[t].kind = "cas" /\ op[t].st = "posted"
    /\ \/ n = Home /\ pc[t] \in {"acq", "rn"}
       \/ n = RegNode /\ pc[t] \in {"fc", "wc"}

(* Without clocks: every live thread has stopped and nothing is in flight.  *)
Finished ==
    /\ ~Timed
    /\ \A t \in Threads : pc[t] = "stop" \/ ~Live(t)
    /\ stray = {}
    /\ UNCHANGED vars

Next ==
    \/ \E t \in Threads : Thread(t) \/ Faults(t)
    \/ \E t \in Threads : Crash(t) /\ UNCHANGED protoVars
    \/ FaultsNicStepWhere(QpWhere) /\ UNCHANGED protoVars
    \/ Tick /\ UNCHANGED faultVars
    \/ Finished

Spec == Init /\ [][Next]_vars
(* For the liveness check: the memory system, every live thread and time    *)
(* go on.                                                                   *)
FairSpec == Spec /\ FaultsFairness /\ WF_vars(Tick) /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
ProtoTypeOK ==
    /\ pc \in [Threads -> {"idle", "rw", "acq", "acqU", "acqR", "h", "ff", "fc", "wr", "wc", "rn", "rnU", "rnR",
                           "rel", "stop"}]
    /\ tok \in [Threads -> 0..MaxGen]
    /\ pre \in [Threads -> BOOLEAN] /\ renewedOk \in [Threads -> BOOLEAN]
    /\ \A t \in Threads : waited[t] \in 0..LockLease /\ age[t] \in 0..TrustCap /\ renAge[t] \in 0..TrustCap

UniqueTokens == \A t, u \in Threads : t # u /\ Holding(t) /\ Holding(u) => tok[t] # tok[u]

MutualExclusionWhileLeasesHold == \A t \in Threads : TrustsLease(t) => Gen(mem["w"]) = tok[t]

RenewalDetectsTakeover == \A t \in Threads : Holding(t) => renewedOk[t]

GenerationMonotone == [][Gen(mem'["w"]) >= Gen(mem["w"])]_vars
LeaseSafety == [][Token(mem'["reg"]) >= Token(mem["reg"])]_vars

(* Once a client has crashed, every live client eventually holds the lock   *)
(* (or the model's generations ran out: it stops).                          *)
TakeoverAfterCrash ==
    \A t \in Threads : (crashed # {} /\ Live(t)) ~> (Holding(t) \/ pc[t] = "stop")
=============================================================================
