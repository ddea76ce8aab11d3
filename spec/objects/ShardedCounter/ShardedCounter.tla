---------------------------- MODULE ShardedCounter ----------------------------
(***************************************************************************)
(* dev.remora.objects.ShardedCounter on torn READs (TornVerbs): shard      *)
(* words on home nodes; each writer updates its own shard; readers sum.    *)
(*                                                                         *)
(* Protocol:                                                               *)
(*   add(Delta[t]) by writer t (MaxAdds times): one FETCH_ADD on its shard *)
(*            ShardOf[t].                                                  *)
(*   get      : for each home in Homes, in order, one READ of that home's *)
(*            shards (word by word, any order, R18; homes one after the   *)
(*            other, each READ on its own QP, R10); return the sum.        *)
(* Only remote atomics change the shards, so ATOMIC_CAP = "GLOB" has the   *)
(* same behaviours as "HCA" here (a READ inside an HCA window reads the    *)
(* old value, as one just before the fused step does) and fewer states.    *)
(*                                                                         *)
(* Checked, with each add linearized at its FETCH_ADD (count = the sum of *)
(* the shards, abs):                                                       *)
(*   ReadAtSomePoint: a get returns a value the count had at some instant *)
(*     between its invocation and its response (hist[t], the counts since *)
(*     the invocation). With every add at its FETCH_ADD and every get at  *)
(*     such an instant this is a linearization of the whole history.       *)
(*   ReadLinearizable, which depends on no chosen point: a get's value is  *)
(*     the sum of a set X of adds that contains every add that returned    *)
(*     before the get was invoked, only adds invoked before the get        *)
(*     returned, and with each add of X every add that returned before it *)
(*     was invoked. No linearization exists for a get that fails it.       *)
(* Both hold when every delta is +1: the count only grows, one at a time,  *)
(* so every value between the counts at the invocation and the response   *)
(* is the count at an instant in between.                                  *)
(*                                                                         *)
(* How to break it: deltas +5 and +7 (MCShardedCounterMixed.cfg): add(5)   *)
(* returns before add(7) is invoked, a get concurrent with both reads the  *)
(* first shard before add(5) and the second after add(7) and returns 7,   *)
(* which no linearization gives (0, 5, 12; ReadLinearizable).              *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Homes,      \* the home nodes in the order a get reads them
    Shards,     \* the shard words
    Writers,    \* the writer threads
    ShardOf,    \* ShardOf[t]: writer t's shard
    Delta,      \* Delta[t]: what each add of writer t adds
    MaxAdds,    \* adds per writer
    MaxReads    \* gets per reader

Readers == Threads \ Writers
Adds == Writers \X (1..MaxAdds)         \* <<t, k>>: the k-th add of t
ShardsAt(h) == {s \in Shards : HomeOf[s] = h}

ASSUME /\ ATOMIC_CAP = "GLOB" /\ Locs = Shards /\ Writers \subseteq Threads
       /\ \A t \in Writers : ShardOf[t] \in Shards /\ Delta[t] > 0
       /\ \A s \in Shards : InitMem[s] = 0 /\ HomeOf[s] \in {Homes[i] : i \in 1..Len(Homes)}
       /\ WordMod > MaxAdds * Cardinality(Writers) * 8

VARIABLES
    pc,         \* "idle", "add" (FETCH_ADD posted), "get" (READ of home hi[t] posted)
    nops,       \* operations invoked
    hi,         \* hi[t]: the home t's get is reading (an index into Homes)
    sum,        \* sum[t]: what t's get has summed of the homes before hi[t]
    abs,        \* ghost: the count
    hist,       \* ghost: hist[t], the counts since t's get was invoked
    status,     \* ghost: status[a], "none", "pending" or "done" for each add a
    prec,       \* ghost: prec[a], the adds that had returned when a was invoked
    doneAtInv   \* ghost: doneAtInv[t], the adds that had returned when t's get was invoked

protoVars == <<pc, nops, hi, sum, status, prec, doneAtInv>>
ghostVars == <<abs, hist>>
vars == <<allVars, protoVars, ghostVars>>

Init ==
    /\ TornInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ hi = [t \in Threads |-> 1]
    /\ sum = [t \in Threads |-> 0]
    /\ abs = 0
    /\ hist = [t \in Threads |-> {}]
    /\ status = [a \in Adds |-> "none"]
    /\ prec = [a \in Adds |-> {}]
    /\ doneAtInv = [t \in Threads |-> {}]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
DoneAdds == {a \in Adds : status[a] = "done"}
Cur(t) == <<t, nops[t]>>

AddInvoke(t) ==
    /\ t \in Writers /\ pc[t] = "idle" /\ nops[t] < MaxAdds /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1]
    /\ status' = [status EXCEPT ![<<t, nops[t] + 1>>] = "pending"]
    /\ prec' = [prec EXCEPT ![<<t, nops[t] + 1>>] = DoneAdds]
    /\ SetOp(t, FaaOp(ShardOf[t], Delta[t])) /\ Go(t, "add")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, hi, sum, doneAtInv, ghostVars>>

AddReturn(t) ==
    /\ pc[t] = "add" /\ Completed(t)
    /\ status' = [status EXCEPT ![Cur(t)] = "done"]
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, nops, hi, sum, prec, doneAtInv, ghostVars>>

GetInvoke(t) ==
    /\ t \in Readers /\ pc[t] = "idle" /\ nops[t] < MaxReads /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1]
    /\ hi' = [hi EXCEPT ![t] = 1] /\ sum' = [sum EXCEPT ![t] = 0]
    /\ doneAtInv' = [doneAtInv EXCEPT ![t] = DoneAdds]
    /\ hist' = [hist EXCEPT ![t] = {abs}]
    /\ StartRead(t, ShardsAt(Homes[1])) /\ Go(t, "get")
    /\ UNCHANGED <<mem, sb, pend, op, tw, status, prec, abs>>

HomeSum(t) == LET F[S \in SUBSET Shards] ==
                      IF S = {} THEN 0 ELSE LET s == CHOOSE s \in S : TRUE IN Got(t)[s] + F[S \ {s}]
              IN  F[ShardsAt(Homes[hi[t]])]

(* A home's READ is done: add its shards; READ the next home (after this  *)
(* READ completed: a READ on another QP is ordered by nothing else, R10).  *)
GetNext(t) ==
    /\ pc[t] = "get" /\ ReadDone(t) /\ hi[t] < Len(Homes)
    /\ sum' = [sum EXCEPT ![t] = @ + HomeSum(t)]
    /\ hi' = [hi EXCEPT ![t] = @ + 1]
    /\ StartRead(t, ShardsAt(Homes[hi[t] + 1]))
    /\ UNCHANGED <<mem, sb, pend, op, tw, pc, nops, status, prec, doneAtInv, ghostVars>>

Total(t) == sum[t] + HomeSum(t)
GetReturning(t) == t \in Readers /\ pc[t] = "get" /\ ReadDone(t) /\ hi[t] = Len(Homes)
GetReturn(t) ==
    /\ GetReturning(t)
    /\ EndRead(t) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, op, tw, nops, hi, sum, status, prec, doneAtInv, ghostVars>>

Thread(t) == AddInvoke(t) \/ AddReturn(t) \/ GetInvoke(t) \/ GetNext(t) \/ GetReturn(t)

(* An add takes effect at its FETCH_ADD (fused, GLOB): the count moves, and *)
(* every get in progress records the new count.                            *)
Memory ==
    \E t \in Threads :
        \/ /\ TAtomicRead(t)
           /\ abs' = abs + op[t].val
           /\ hist' = [u \in Threads |-> IF pc[u] = "get" THEN hist[u] \cup {abs + op[t].val} ELSE hist[u]]
        \/ (TGetExec(t) \/ TOther(t) \/ \E l \in Locs : ReadWord(t, l)) /\ UNCHANGED ghostVars

Finished == (\A t \in Threads : pc[t] = "idle" /\ nops[t] = IF t \in Writers THEN MaxAdds ELSE MaxReads)
            /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars /\ TNicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
SumOf(X) == LET F[S \in SUBSET Adds] ==
                    IF S = {} THEN 0 ELSE LET a == CHOOSE a \in S : TRUE IN Delta[a[1]] + F[S \ {a}]
            IN  F[X]
CountIsShards == abs = LET F[S \in SUBSET Shards] ==
                               IF S = {} THEN 0 ELSE LET s == CHOOSE s \in S : TRUE IN mem[s] + F[S \ {s}]
                       IN  F[Shards]

ReadAtSomePoint == \A t \in Threads : GetReturning(t) => Total(t) \in hist[t]

Invoked == {a \in Adds : status[a] # "none"}
ReadLinearizable ==
    \A t \in Threads :
        GetReturning(t) =>
            \E X \in SUBSET Invoked :
                /\ doneAtInv[t] \subseteq X
                /\ \A a \in X : prec[a] \subseteq X
                /\ SumOf(X) = Total(t)

AllReturn == <>[](\A t \in Threads : pc[t] = "idle")
=============================================================================
