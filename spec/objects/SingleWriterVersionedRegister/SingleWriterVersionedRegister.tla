-------------------- MODULE SingleWriterVersionedRegister --------------------
(***************************************************************************)
(* dev.remora.objects.SingleWriterVersionedRegister on torn READs and      *)
(* WRITEs (TornVerbs): a value of Len(Data) words on node Home, one writer *)
(* thread Writer, reader threads.                                          *)
(*                                                                         *)
(* Protocol (Reader = "tags", the code): the k-th set writes tag k; every  *)
(* data word carries the tag of the write that produced it and that        *)
(* write's part of the value. A word is modelled as the number k: tag and  *)
(* value part together (an aligned word never tears, R18; one writer, so   *)
(* the k-th value and tag k name the same write).                          *)
(*   set(k) : one WRITE of every data word := k, then a flush READ of the  *)
(*            header word on the same QP, which executes after the WRITE  *)
(*            is placed (R7); return.                                      *)
(*   get    : one READ of every data word (word by word, any order, R18);  *)
(*            accept if every word carries one tag, else READ again.       *)
(* The unsafe readers:                                                     *)
(*   Reader = "ends": accept if the first and last data words carry the   *)
(*            same tag (the words between unchecked).                      *)
(*   Reader = "seqlock": the classic layout and reader, no tags: version   *)
(*            words vf before and vb after the data; set(k) WRITEs vf :=   *)
(*            2k-1, then the data := k, then vb := 2k and vf := 2k (three  *)
(*            WRITEs on one QP, landing in that order, R6), then flushes;  *)
(*            a get READs vf, the data and vb in one READ and accepts if   *)
(*            vf = vb and is even.                                         *)
(* The writer's first set, which READs the words to learn the last tag, is *)
(* not modelled (the writer starts knowing tag 0).                         *)
(*                                                                         *)
(* Checked:                                                                *)
(*   NoMix: every value a get returns is one write's (all data words       *)
(*     equal), never a mix of two.                                         *)
(*   Linearizability against an atomic register abs, by linearization      *)
(*     points: a set takes effect when its last word is placed (abs := k)  *)
(*     and returns after it (SetLinearizable); a get takes effect at its   *)
(*     accepted READ's last word read and returns abs there                *)
(*     (GetLinearizable). That point works because the writer's words land *)
(*     in write order (R6, one QP) and a set returns only when placed      *)
(*     (R7): if every word read carries k, write k was fully placed by the *)
(*     last word read and write k+1 was not.                               *)
(*   NoStaleRead: the direct witness of RemoteRegister.tla.                *)
(*                                                                         *)
(* How to break it: Reader = "seqlock" (MC...Seqlock.cfg) and Reader =     *)
(* "ends" with 3 words (MC...Ends.cfg) each return a mix (NoMix): the      *)
(* seqlock's counterexample is the one in VersionedRegisterDescriptor's    *)
(* javadoc (vf read old, the writer's vf and first data word land, the     *)
(* new first word, the old second word and the old vb are read).           *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Home,       \* the node of the register
    Data,       \* the data words, a sequence of Locs (the header word first)
    Writer,     \* the writer thread
    Reader,     \* "tags" (the code), "ends", "seqlock"
    MaxWrites,  \* sets the writer makes
    MaxReads    \* gets each reader makes

Readers == Threads \ {Writer}
DataSet == {Data[i] : i \in 1..Len(Data)}
ReadSet == IF Reader = "seqlock" THEN DataSet \cup {"vf", "vb"} ELSE DataSet

ASSUME /\ Reader \in {"tags", "ends", "seqlock"} /\ Writer \in Threads
       /\ Locs = ReadSet /\ \A l \in Locs : HomeOf[l] = Home /\ InitMem[l] = 0
       /\ \A t \in Threads : NodeOf[t] # Home

VARIABLES
    pc,         \* pc[t]: "idle", "set" (WRITE and flush READ posted), "get" (READ posted)
    nops,       \* operations invoked
    abs,        \* ghost: the atomic register (the index of the last write that took effect)
    lin,        \* ghost: lin[t], t's current set has taken effect
    linRes,     \* ghost: linRes[t], abs when t's READ read its last word
    returned,   \* ghost: the writes (their k) whose set returned
    before,     \* ghost: before[k], the writes whose set had returned when set(k) was invoked
    seen        \* ghost: seen[t], the writes whose set had returned when t's get was invoked

protoVars == <<pc, nops, returned, before, seen>>
ghostVars == <<abs, lin, linRes>>
vars == <<allVars, protoVars, ghostVars>>

Init ==
    /\ TornInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ abs = 0
    /\ lin = [t \in Threads |-> FALSE]
    /\ linRes = [t \in Threads |-> 0]
    /\ returned = {}
    /\ before = [k \in 1..MaxWrites |-> {}]
    /\ seen = [t \in Threads |-> {}]

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]
K == nops[Writer]                               \* the writer's current (or last) write
DataTo(v) == [l \in DataSet |-> v]

SetInvoke ==
    LET k == nops[Writer] + 1 IN
    /\ pc[Writer] = "idle" /\ nops[Writer] < MaxWrites /\ CanPostT(Writer)
    /\ nops' = [nops EXCEPT ![Writer] = k]
    /\ lin' = [lin EXCEPT ![Writer] = FALSE]
    /\ before' = [before EXCEPT ![k] = returned]
    \* The WRITE(s) and the flush READ behind them on the same QP (R7).
    /\ IF Reader = "seqlock"
       THEN StartWrites(Writer, <<[l \in {"vf"} |-> 2 * k - 1], DataTo(k), [l \in {"vf", "vb"} |-> 2 * k]>>)
       ELSE StartWrite(Writer, DataTo(k))
    /\ SetOp(Writer, GetOp(Data[1])) /\ Go(Writer, "set")
    /\ UNCHANGED <<mem, sb, pend, tr, returned, seen, abs, linRes>>

SetReturn ==
    /\ pc[Writer] = "set" /\ Completed(Writer)
    /\ SetOp(Writer, NoOp) /\ Go(Writer, "idle")
    /\ returned' = returned \cup {K}
    /\ UNCHANGED <<mem, sb, pend, tw, tr, nops, before, seen, ghostVars>>

GetInvoke(t) ==
    /\ t \in Readers /\ pc[t] = "idle" /\ nops[t] < MaxReads /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1]
    /\ seen' = [seen EXCEPT ![t] = returned]
    /\ StartRead(t, ReadSet) /\ Go(t, "get")
    /\ UNCHANGED <<mem, sb, pend, op, tw, returned, before, ghostVars>>

Value(t) == [i \in 1..Len(Data) |-> Got(t)[Data[i]]]
Accept(t) ==
    CASE Reader = "tags" -> \A i \in 1..Len(Data) : Got(t)[Data[i]] = Got(t)[Data[1]]
      [] Reader = "ends" -> Got(t)[Data[1]] = Got(t)[Data[Len(Data)]]
      [] Reader = "seqlock" -> Got(t)["vf"] = Got(t)["vb"] /\ Got(t)["vf"] % 2 = 0

(* The READ is done: return its value, or READ again (a torn snapshot).    *)
GetEnd(t) ==
    /\ pc[t] = "get" /\ ReadDone(t)
    /\ IF Accept(t)
       THEN EndRead(t) /\ Go(t, "idle")
       ELSE StartRead(t, ReadSet) /\ UNCHANGED pc
    /\ UNCHANGED <<mem, sb, pend, op, tw, nops, returned, before, seen, ghostVars>>

Thread(t) == (t = Writer /\ (SetInvoke \/ SetReturn)) \/ GetInvoke(t) \/ GetEnd(t)

(* Linearization points: memory-system steps with ghost updates.           *)
Memory ==
    \E t \in Threads :
        \/ \E l \in Locs :
             /\ ReadWord(t, l)
             /\ linRes' = IF tr'[t].left = {} THEN [linRes EXCEPT ![t] = abs] ELSE linRes
             /\ UNCHANGED <<abs, lin>>
        \/ \E n \in Nodes :
             /\ PlaceWord(t, n)
             \* The set has taken effect when its last WRITE is fully placed.
             /\ IF PlacesLast(t, n) /\ tw'[t][n] = <<>>
                THEN abs' = K /\ lin' = [lin EXCEPT ![t] = TRUE]
                ELSE UNCHANGED <<abs, lin>>
             /\ UNCHANGED linRes
        \/ ((TGetExec(t) \/ TAtomicRead(t) \/ TOther(t)) /\ UNCHANGED ghostVars)

Finished == (\A t \in Threads : pc[t] = "idle" /\ nops[t] = IF t = Writer THEN MaxWrites ELSE MaxReads)
            /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars /\ TNicFairness /\ \A t \in Threads : WF_vars(Thread(t))

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
GetReturning(t) == t \in Readers /\ pc[t] = "get" /\ ReadDone(t) /\ Accept(t)
SetReturning == pc[Writer] = "set" /\ Completed(Writer)

NoMix == \A t \in Threads : GetReturning(t) => \A i \in 1..Len(Data) : Value(t)[i] = Value(t)[1]
GetLinearizable == \A t \in Threads : GetReturning(t) => Value(t)[1] = linRes[t]
SetLinearizable == SetReturning => lin[Writer]
Stale(t, w) == \E v \in seen[t] : w = 0 \/ w \in before[v]
NoStaleRead == \A t \in Threads : GetReturning(t) => ~Stale(t, Value(t)[1])

(* Every operation returns (no write is in progress for ever).             *)
AllReturn == <>[](\A t \in Threads : pc[t] = "idle")
=============================================================================
