-------------------- MODULE MultiWriterVersionedRegister --------------------
(***************************************************************************)
(* dev.remora.objects.MultiWriterVersionedRegister on torn READs and       *)
(* WRITEs (TornVerbs): the control word c and Len(Data) data words on node *)
(* Home; writer threads Writers, reader threads the others.                *)
(*                                                                         *)
(* A data word holds a tag and a part of the value: tag * Base + id, where *)
(* id names the set that wrote it (each set has its own id: 1, 2, ... in   *)
(* invocation order), so a reader can tell two writes apart even when     *)
(* their tags are equal (which only the unsafe twin allows).               *)
(*                                                                         *)
(* Protocol (Take = "cas", the code), set by writer t, guess e = the       *)
(* control value t saw last (0 at first):                                  *)
(*   take   : e even: CAS(c, e, e+1); it succeeded: the tag is e+1; else   *)
(*            e := the value it returned. e odd: READ c, e := the value    *)
(*            read (with Lease, or take the write over: CAS(c, e, e+2),    *)
(*            the tag e+2 if it succeeded).                                *)
(*   write  : one WRITE of every data word := tag * Base + id, then the    *)
(*            release CAS(c, tag, tag+1) on the same QP, whose read phase  *)
(*            executes after the WRITE is placed (R7); it failed: the      *)
(*            write was taken over (WriteOvertakenException, outcome       *)
(*            unknown).                                                    *)
(*   get    : one READ of the data words (word by word, any order, R18);   *)
(*            accept if every word carries one tag, else READ again.       *)
(* Take = "write" (the unsafe twin): no CAS; READ c, and if even v, WRITE  *)
(* c := v+1, the data tagged v+1 and c := v+2 (three WRITEs on one QP),   *)
(* then a flush READ: two writers that read the same v both write tag v+1. *)
(* Lease = TRUE (the fault model): a writer that finds c odd may take the  *)
(* write over at any time (no clocks: every expiry any timing allows), and *)
(* a writer in Crashable may crash once (it stops; its posted verbs and    *)
(* acknowledged WRITEs still take effect, which covers a crash before     *)
(* posting them too).                                                      *)
(*                                                                         *)
(* Checked:                                                                *)
(*   NoMix: a get returns one write's words (one id), never a mix.         *)
(*   ValueWritten: a get returns the value of some set that was invoked    *)
(*     (or the initial empty value).                                       *)
(*   Without Lease, linearizability against an atomic register abs: a set  *)
(*     takes effect when its WRITE's last word is placed and returns after *)
(*     that (SetLinearizable); a get at its accepted READ's last word read, *)
(*     returning abs there (GetLinearizable): writers hand over through c  *)
(*     (rao, R14), and the release CAS follows the WRITE (R7), so the      *)
(*     writes land in tag order; NoStaleRead as in RemoteRegister.tla.     *)
(*   With Lease, NoMix and ValueWritten only: an overtaken slow writer's   *)
(*     WRITE may land after its successor's (the javadoc's caveat).        *)
(*                                                                         *)
(* How to break it: Take = "write" (MC...NoCas.cfg): two writers take tag *)
(* 1 together, their WRITEs' words interleave (R10, two QPs) and a reader  *)
(* accepts words of both (NoMix).                                          *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of the register
    Data,       \* the data words, a sequence of Locs (the header word first)
    Writers,    \* the writer threads
    Take,       \* "cas" (the code) or "write" (the unsafe twin)
    Lease,      \* TRUE: takeovers of an odd control value and crashes (the fault model)
    Crashable,  \* the writers that may crash (with Lease)
    MaxWrites,  \* sets per writer
    MaxReads,   \* gets per reader
    Base        \* a data word is tag * Base + id

Readers == Threads \ Writers
DataSet == {Data[i] : i \in 1..Len(Data)}
MaxId == Cardinality(Writers) * MaxWrites

ASSUME /\ Take \in {"cas", "write"} /\ Lease \in BOOLEAN /\ Writers \subseteq Threads
       /\ Locs = DataSet \cup {"c"} /\ \A l \in Locs : HomeOf[l] = Home /\ InitMem[l] = 0
       /\ \A t \in Threads : NodeOf[t] # Home
       /\ Base > MaxId

VARIABLES
    pc,         \* "idle", "cas" (take CAS posted), "spin" (READ c posted), "rel" (WRITE, release CAS posted),
                \* "rdc" (Take = "write": READ c posted), "flush" (Take = "write": flush READ posted),
                \* "get" (READ of the data posted), "crashed"
    nops,       \* operations invoked
    guess,      \* guess[t]: the control value t expects (its CAS's expected value)
    tag,        \* tag[t]: the tag t's current write holds
    id,         \* id[t]: the id of t's current set
    nextId,     \* the next set's id
    crashes,    \* crashes so far
    abs,        \* ghost: the atomic register (the id of the last write that took effect)
    lin,        \* ghost: lin[t], t's current set has taken effect
    linRes,     \* ghost: linRes[t], abs when t's READ read its last word
    returned,   \* ghost: the ids whose set returned (not overtaken)
    before,     \* ghost: before[i], the ids whose set had returned when set i was invoked
    seen        \* ghost: seen[t], the ids whose set had returned when t's get was invoked

protoVars == <<pc, nops, guess, tag, id, nextId, crashes, returned, before, seen>>
ghostVars == <<abs, lin, linRes>>
vars == <<allVars, protoVars, ghostVars>>

Init ==
    /\ TornInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ guess = [t \in Threads |-> 0]
    /\ tag = [t \in Threads |-> 0]
    /\ id = [t \in Threads |-> 0]
    /\ nextId = 1
    /\ crashes = 0
    /\ abs = 0
    /\ lin = [t \in Threads |-> FALSE]
    /\ linRes = [t \in Threads |-> 0]
    /\ returned = {}
    /\ before = [i \in 1..MaxId |-> {}]
    /\ seen = [t \in Threads |-> {}]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
DataTo(t, g) == [l \in DataSet |-> g * Base + id[t]]
Guess(t, e) == guess' = [guess EXCEPT ![t] = e]
Word(t) == <<mem, sb, pend, tw, tr>>

(* The next step of take with the guess e: CAS if even, READ c if odd.     *)
TakeStep(t, e) ==
    IF e % 2 = 0
    THEN SetOp(t, CasOp("c", e, e + 1)) /\ Go(t, "cas")
    ELSE SetOp(t, GetOp("c")) /\ Go(t, "spin")

SetInvoke(t) ==
    /\ t \in Writers /\ pc[t] = "idle" /\ nops[t] < MaxWrites /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1]
    /\ id' = [id EXCEPT ![t] = nextId]
    /\ nextId' = nextId + 1
    /\ before' = [before EXCEPT ![nextId] = returned]
    /\ lin' = [lin EXCEPT ![t] = FALSE]
    /\ IF Take = "cas" THEN TakeStep(t, guess[t]) ELSE SetOp(t, GetOp("c")) /\ Go(t, "rdc")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, guess, tag, crashes, returned, seen, abs, linRes>>

(* Take: the write is ours with tag g: WRITE the data, then the release    *)
(* CAS on the same QP, after the WRITE is placed (R7).                     *)
Write(t, g) ==
    /\ tag' = [tag EXCEPT ![t] = g]
    /\ StartWrite(t, DataTo(t, g))
    /\ SetOp(t, CasOp("c", g, g + 1)) /\ Go(t, "rel")

(* A take CAS completed (the expected value was even).                     *)
CasDone(t) ==
    /\ pc[t] = "cas" /\ Completed(t)
    /\ IF Result(t) = op[t].cmp
       THEN Write(t, op[t].val) /\ UNCHANGED guess
       ELSE Guess(t, Result(t)) /\ TakeStep(t, Result(t)) /\ UNCHANGED <<tw, tag>>
    /\ UNCHANGED <<mem, sb, pend, tr, nops, id, nextId, crashes, returned, before, seen, ghostVars>>

(* A READ of c completed: CAS if even, READ again if odd; with Lease, or   *)
(* take the odd value's write over.                                        *)
SpinDone(t) ==
    /\ pc[t] = "spin" /\ Completed(t)
    /\ Guess(t, Result(t))
    /\ \/ TakeStep(t, Result(t))
       \/ Lease /\ Result(t) % 2 = 1 /\ SetOp(t, CasOp("c", Result(t), Result(t) + 2)) /\ Go(t, "cas")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, nops, tag, id, nextId, crashes, returned, before, seen, ghostVars>>

(* The release CAS completed: set returns; or it failed (overtaken: it     *)
(* throws, outcome unknown, and is not counted as returned).               *)
ReleaseDone(t) ==
    /\ pc[t] = "rel" /\ Completed(t)
    /\ IF Result(t) = tag[t]
       THEN Guess(t, tag[t] + 1) /\ returned' = returned \cup {id[t]}
       ELSE Guess(t, Result(t)) /\ UNCHANGED returned
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, nops, tag, id, nextId, crashes, before, seen, ghostVars>>

(* Take = "write": READ c; even v: WRITE c := v+1, the data, c := v+2 on   *)
(* one QP (R6), then a flush READ (R7); odd: READ again.                   *)
UnsafeRead(t) ==
    /\ pc[t] = "rdc" /\ Completed(t)
    /\ IF Result(t) % 2 = 0
       THEN /\ tag' = [tag EXCEPT ![t] = Result(t) + 1]
            /\ StartWrites(t, <<[l \in {"c"} |-> Result(t) + 1], DataTo(t, Result(t) + 1),
                                [l \in {"c"} |-> Result(t) + 2]>>)
            /\ SetOp(t, GetOp("c")) /\ Go(t, "flush")
       ELSE SetOp(t, GetOp("c")) /\ UNCHANGED <<pc, tw, tag>>
    /\ UNCHANGED <<mem, sb, pend, tr, nops, guess, id, nextId, crashes, returned, before, seen, ghostVars>>
UnsafeDone(t) ==
    /\ pc[t] = "flush" /\ Completed(t)
    /\ returned' = returned \cup {id[t]}
    /\ SetOp(t, NoOp) /\ Go(t, "idle")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, nops, guess, tag, id, nextId, crashes, before, seen, ghostVars>>

(* With Lease: a writer of Crashable stops, once in a behaviour.           *)
Crash(t) ==
    /\ Lease /\ t \in Crashable /\ crashes = 0 /\ pc[t] \notin {"idle", "crashed"}
    /\ crashes' = 1 /\ Go(t, "crashed")
    /\ UNCHANGED <<allVars, nops, guess, tag, id, nextId, returned, before, seen, ghostVars>>

GetInvoke(t) ==
    /\ t \in Readers /\ pc[t] = "idle" /\ nops[t] < MaxReads /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1]
    /\ seen' = [seen EXCEPT ![t] = returned]
    /\ StartRead(t, DataSet) /\ Go(t, "get")
    /\ UNCHANGED <<mem, sb, pend, op, tw, guess, tag, id, nextId, crashes, returned, before, ghostVars>>

TagOf(w) == w \div Base
IdOf(w) == w % Base
Accept(t) == \A i \in 1..Len(Data) : TagOf(Got(t)[Data[i]]) = TagOf(Got(t)[Data[1]])

GetEnd(t) ==
    /\ pc[t] = "get" /\ ReadDone(t)
    /\ IF Accept(t)
       THEN EndRead(t) /\ Go(t, "idle")
       ELSE StartRead(t, DataSet) /\ UNCHANGED pc
    /\ UNCHANGED <<mem, sb, pend, op, tw, nops, guess, tag, id, nextId, crashes, returned, before, seen,
                   ghostVars>>

Thread(t) == SetInvoke(t) \/ CasDone(t) \/ SpinDone(t) \/ ReleaseDone(t) \/ UnsafeRead(t) \/ UnsafeDone(t)
             \/ GetInvoke(t) \/ GetEnd(t)

(* Linearization points: memory-system steps with ghost updates (not kept *)
(* with Lease, where linearizability is not checked: fewer states).        *)
IsData(t, n) == \A w \in Head(tw[t][n]) : w.loc \in DataSet
Memory ==
    \E t \in Threads :
        \/ \E l \in Locs :
             /\ ReadWord(t, l)
             /\ linRes' = IF tr'[t].left = {} /\ ~Lease THEN [linRes EXCEPT ![t] = abs] ELSE linRes
             /\ UNCHANGED <<abs, lin>>
        \/ \E n \in Nodes :
             /\ PlaceWord(t, n)
             \* The set has taken effect when its data WRITE's last word is placed.
             /\ IF PlacesLast(t, n) /\ IsData(t, n) /\ ~Lease
                THEN abs' = id[t] /\ lin' = [lin EXCEPT ![t] = TRUE]
                ELSE UNCHANGED <<abs, lin>>
             /\ UNCHANGED linRes
        \/ ((TGetExec(t) \/ TAtomicRead(t) \/ TOther(t)) /\ UNCHANGED ghostVars)

Done(t) == pc[t] = "idle" /\ nops[t] = IF t \in Writers THEN MaxWrites ELSE MaxReads
Finished == (\A t \in Threads : pc[t] = "crashed" \/ Done(t))
            /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t) \/ Crash(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars /\ TNicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
GetReturning(t) == t \in Readers /\ pc[t] = "get" /\ ReadDone(t) /\ Accept(t)
Value(t) == [i \in 1..Len(Data) |-> IdOf(Got(t)[Data[i]])]
SetReturning(t) == t \in Writers /\ pc[t] = "rel" /\ Completed(t) /\ Result(t) = tag[t]

NoMix == \A t \in Threads : GetReturning(t) => \A i \in 1..Len(Data) : Value(t)[i] = Value(t)[1]
ValueWritten == \A t \in Threads : GetReturning(t) => Value(t)[1] \in 0..(nextId - 1)
GetLinearizable == \A t \in Threads : GetReturning(t) => Value(t)[1] = linRes[t]
SetLinearizable == \A t \in Threads : SetReturning(t) => lin[t]
Stale(t, w) == \E v \in seen[t] : w = 0 \/ w \in before[v]
NoStaleRead == \A t \in Threads : GetReturning(t) => ~Stale(t, Value(t)[1])
(* The control word's tags are unique: no two writers hold one at once.    *)
OneWriter == \A t, u \in Writers : t # u /\ pc[t] = "rel" /\ pc[u] = "rel" => tag[t] # tag[u]

AllReturn == <>[](\A t \in Threads : pc[t] \in {"idle", "crashed"})
=============================================================================
