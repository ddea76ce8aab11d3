------------------------------- MODULE CuckooMap -------------------------------
(***************************************************************************)
(* dev.remora.kv.CuckooMap's GET against one writer's updates and kicks of *)
(* the same key X, on torn READs and WRITEs (TornVerbs). Two rows, 1 and   *)
(* 2, X's two rows, of one slot each, on node Home. Row r: lock word       *)
(* LockW(r) (CAS only), version word VerW(r) (FETCH_ADD only, R14), and a  *)
(* slot of two words, KeyW(r) (kind and key) and ValW(r) (value), each     *)
(* carrying the tag of the write that produced it (R18: a word never      *)
(* tears): a word is the number 10 * tag + payload; a key word's payload  *)
(* is 1 (X) or 0 (EMPTY), a value word's is X's value (0 in an EMPTY      *)
(* slot). X starts in row 1 with value 1, row 2 is EMPTY, all tags 0.      *)
(*                                                                         *)
(* Protocol (the code: Check = "versions", KickOrder = "destFirst",       *)
(* Publish = "r7"):                                                        *)
(*   GET   : FETCH_ADD(VerW(1), 0), FETCH_ADD(VerW(2), 0), then one READ   *)
(*           of both rows' slots (word by word, any order, R18; after the *)
(*           FETCH_ADDs, R9); accept iff, for each row r, the slot's words *)
(*           carry one tag t and t <= the version read of r; then return   *)
(*           X's value from a row holding X (NOT_FOUND if none); else      *)
(*           retry, at most MaxTries READs, then BUSY.                     *)
(*   writer: one op after the other, WOps[i] \in {"update", "kick"}:       *)
(*           CAS(LockW(1), 0 -> 1), CAS(LockW(2), 0 -> 1); then the slot   *)
(*           WRITEs, each slot image tagged with its row's version + 1     *)
(*           (an update: X's slot with the value + 1; a kick: X into the   *)
(*           other row first, then X's row overwritten EMPTY: two WRITEs  *)
(*           on one QP, landing in that order, R6); FETCH_ADD(VerW(r), 1)  *)
(*           of both rows (after the WRITEs are placed, R7); CAS(LockW(r), *)
(*           1 -> 0) of both rows (after the bumps, R9).                   *)
(* Abstracted: the intent log (crash repair is not modelled, nor a crash), *)
(* the writer's READ of its rows under the locks (it is the only writer:  *)
(* it knows them), the BFS of a kick (the path is X's one move), other    *)
(* keys and writers (so the lock CASes never fail), tag wrap-around       *)
(* (versions stay below WordMod). The blocking layer posts one verb at a  *)
(* time: the GET's doorbell (two FETCH_ADDs, then the READ) and the        *)
(* writer's (WRITEs, bumps, unlocks) are posted verb by verb, which orders *)
(* them as R6, R7 and R9 do and no more, since a READ's words, the bumps  *)
(* and the unlocks are what R7/R9 order after the earlier verbs anyway.    *)
(*                                                                         *)
(* Checked (invariants at the step where a GET returns):                   *)
(*   NeverMiss: a GET that returns a result never returns NOT_FOUND (X is *)
(*     in the map at every instant: a kick moves it, never removes it).   *)
(*   NoMix: a GET never returns a value X never had (a key word of one    *)
(*     write with a value word of another).                                *)
(*   GetInTime: the value a GET returns is X's value at some instant      *)
(*     within the GET (abs, X's value, changes when an update's WRITE is  *)
(*     fully placed; during[t] collects abs over t's GET).                 *)
(* Found by TLC on the way (by an invariant tried by hand): with the       *)
(* version check no accepted GET sees X in both rows, nor any snapshot     *)
(* inside a write: each row's tags are at most its version only before    *)
(* the op's WRITEs land or after its bump.                                 *)
(*                                                                         *)
(* How to break it:                                                        *)
(*   Check = "tags" (MCCuckooMapTagsOnly.cfg): the GET checks that each   *)
(*     slot's words carry one tag but not the tags against the versions:  *)
(*     it reads row 2 before the kick's WRITEs land and row 1 after, and  *)
(*     returns NOT_FOUND (NeverMiss).                                      *)
(*   Publish = "early" (MCCuckooMapEarlyUnlock.cfg): the seed design's     *)
(*     order, bumps and unlocks before the slot WRITEs: a GET reads the   *)
(*     bumped versions, then the rows across the kick's WRITEs, all tags  *)
(*     passing (NeverMiss).                                                *)
(*   Check = "none" (MCCuckooMapNoCheck.cfg): the GET accepts any          *)
(*     snapshot: it reads row 1's key word (X) before the kick's overwrite *)
(*     lands and its value word (EMPTY's 0) after, and returns 0, a value  *)
(*     X never had (NoMix): a slot of two writes, which the tags reject.   *)
(*     With one key an update cannot show it: its key word stays X and     *)
(*     its one value word goes from old to new once, so an unchecked GET   *)
(*     returns the old or the new value; TLC reports GetInTime only        *)
(*     because the model takes the update at its last word's landing.      *)
(*   KickOrder = "removeThenInsert" (MCCuckooMapRemoveFirst.cfg): the      *)
(*     kick as a delete, then an insert, each published on its own: the    *)
(*     source's WRITE (EMPTY), its bump, its unlock, then the              *)
(*     destination's WRITE, bump, unlock. A GET reads the versions 1 and   *)
(*     0 between the halves and accepts both rows empty (NeverMiss).       *)
(*   KickOrder = "sourceFirst" (MCCuckooMapSourceFirst.cfg): the source    *)
(*     overwritten before the destination is written, both WRITEs before   *)
(*     both bumps. It does NOT break the GET: it holds, since with the     *)
(*     version check no accepted snapshot lies between the kick's two      *)
(*     WRITEs (see below).                                                 *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Home,       \* the table's node
    Writer,     \* the writer thread; every other thread is a reader of X
    WOps,       \* the writer's ops, a sequence of "update" and "kick"
    Check,      \* "versions" (the code), "tags", "none"
    KickOrder,  \* "destFirst" (the code), "sourceFirst", "removeThenInsert"
    Publish,    \* "r7" (the code: WRITEs, bumps, unlocks), "early" (bumps, unlocks, WRITEs)
    MaxGets,    \* GETs each reader makes
    MaxTries    \* READs per GET before BUSY

Rows == {1, 2}
LockW(r) == IF r = 1 THEN "lk1" ELSE "lk2"
VerW(r) == IF r = 1 THEN "v1" ELSE "v2"
KeyW(r) == IF r = 1 THEN "k1" ELSE "k2"
ValW(r) == IF r = 1 THEN "d1" ELSE "d2"
SlotWords == {KeyW(r) : r \in Rows} \cup {ValW(r) : r \in Rows}
Enc(tag, pay) == 10 * tag + pay
Tag(w) == w \div 10
Pay(w) == w % 10
Readers == Threads \ {Writer}

ASSUME /\ Check \in {"versions", "tags", "none"}
       /\ KickOrder \in {"destFirst", "sourceFirst", "removeThenInsert"}
       /\ Publish \in {"r7", "early"} /\ Writer \in Threads
       /\ KickOrder = "removeThenInsert" => Publish = "r7"
       /\ \A i \in 1..Len(WOps) : WOps[i] \in {"update", "kick"}
       /\ Locs = SlotWords \cup {LockW(r) : r \in Rows} \cup {VerW(r) : r \in Rows}
       /\ \A l \in Locs : HomeOf[l] = Home
       /\ InitMem = [l \in Locs |-> IF l = KeyW(1) \/ l = ValW(1) THEN Enc(0, 1) ELSE 0]
       /\ Len(WOps) < WordMod   \* versions never wrap

VARIABLES
    pc,         \* pc[t]: a reader's "idle", "f1", "f2" (FETCH_ADD posted), "rd" (READ posted), "done"
    nops,       \* nops[t]: a reader's GETs invoked
    tries,      \* tries[t]: READs of the reader's current GET
    gv,         \* gv[t][r]: the version of row r read by t's FETCH_ADD
    wi,         \* the writer's current op (index into WOps; Len(WOps) + 1 when done)
    ws,         \* the writer's step within the op (index into Steps)
    xrow,       \* the writer's knowledge: the row holding X
    xval,       \* the writer's knowledge: X's value
    abs,        \* ghost: X's value in the abstract map
    pendVal,    \* ghost: the value of the update whose WRITE is posted and not yet placed, or 0
    during,     \* ghost: during[t], abs's values since t's GET was invoked
    written     \* ghost: every value X has been given

protoVars == <<pc, nops, tries, gv, wi, ws, xrow, xval, written>>
ghostVars == <<abs, pendVal, during>>
vars == <<allVars, protoVars, ghostVars>>

Init ==
    /\ TornInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ nops = [t \in Threads |-> 0]
    /\ tries = [t \in Threads |-> 0]
    /\ gv = [t \in Threads |-> [r \in Rows |-> 0]]
    /\ wi = 1 /\ ws = 1 /\ xrow = 1 /\ xval = 1
    /\ abs = 1 /\ pendVal = 0
    /\ during = [t \in Threads |-> {}]
    /\ written = {1}

Go(t, l) == pc' = [pc EXCEPT ![t] = l]
SetOp(t, o) == op' = [op EXCEPT ![t] = o]

(***************************************************************************)
(* The writer.                                                             *)
(***************************************************************************)
(* Row r's version before the current op: every op bumps both rows once  *)
(* (the code reads it under its lock, where nobody else bumps it).        *)
Ver(r) == wi - 1
Other(r) == 3 - r
(* The slot images of op i, in posting order, each tagged with its row's   *)
(* version + 1 (staged before the doorbell).                               *)
Images ==
    LET s == xrow
        d == Other(xrow)
        dest == [l \in {KeyW(d), ValW(d)} |-> IF l = KeyW(d) THEN Enc(Ver(d) + 1, 1) ELSE Enc(Ver(d) + 1, xval)]
        src == [l \in {KeyW(s), ValW(s)} |-> Enc(Ver(s) + 1, 0)]
        upd == [l \in {KeyW(s), ValW(s)} |-> IF l = KeyW(s) THEN Enc(Ver(s) + 1, 1) ELSE Enc(Ver(s) + 1, xval + 1)]
    IN  IF WOps[wi] = "update" THEN <<upd>>
        ELSE IF KickOrder = "destFirst" THEN <<dest, src>> ELSE <<src, dest>>

(* A kick published in two halves: "removeThenInsert" only.                *)
SplitKick == KickOrder = "removeThenInsert" /\ wi <= Len(WOps) /\ WOps[wi] = "kick"

(* The steps of an op: the verbs in posting order.                         *)
Lock(r) == [k |-> "cas", l |-> LockW(r), c |-> 0, v |-> 1]
Bump(r) == [k |-> "faa", l |-> VerW(r), c |-> 0, v |-> 1]
Unlock(r) == [k |-> "cas", l |-> LockW(r), c |-> 1, v |-> 0]
(* The WRITE of Images[i], or of all the op's Images if i = 0.             *)
Wr(i) == [k |-> "writes", l |-> "none", c |-> i, v |-> 0]
Steps ==
    \* "r7": the bumps execute after the WRITEs are placed (R7), the unlocks after the bumps (R9).
    \* "early": the bumps and unlocks are posted first, so nothing orders the WRITEs before them.
    \* A split kick: the source's WRITE, bump, unlock, then the destination's (each half as "r7").
    IF SplitKick
    THEN <<Lock(1), Lock(2), Wr(1), Bump(xrow), Unlock(xrow), Wr(2), Bump(Other(xrow)), Unlock(Other(xrow))>>
    ELSE IF Publish = "r7"
    THEN <<Lock(1), Lock(2), Wr(0), Bump(1), Bump(2), Unlock(1), Unlock(2)>>
    ELSE <<Lock(1), Lock(2), Bump(1), Bump(2), Unlock(1), Unlock(2), Wr(0)>>

WDone == wi > Len(WOps)
(* The op's knowledge after its last step.                                 *)
EndOp ==
    /\ IF WOps[wi] = "update"
       THEN xval' = xval + 1 /\ UNCHANGED xrow
       ELSE xrow' = Other(xrow) /\ UNCHANGED xval
    /\ wi' = wi + 1 /\ ws' = 1
Advance == IF ws = Len(Steps) THEN EndOp ELSE ws' = ws + 1 /\ UNCHANGED <<wi, xrow, xval>>

(* Post the atomic of the current step.                                    *)
WPost ==
    LET s == Steps[ws] IN
    /\ ~WDone /\ s.k # "writes" /\ CanPostT(Writer)
    /\ SetOp(Writer, IF s.k = "cas" THEN CasOp(s.l, s.c, s.v) ELSE FaaOp(s.l, s.v))
    /\ UNCHANGED <<mem, sb, pend, tornVars, protoVars, ghostVars>>

(* The current step's atomic has completed (no CAS can fail: one writer).  *)
WComplete ==
    /\ ~WDone /\ Steps[ws].k # "writes" /\ Completed(Writer)
    /\ SetOp(Writer, NoOp) /\ Advance
    /\ UNCHANGED <<mem, sb, pend, tornVars, pc, nops, tries, gv, written, ghostVars>>

(* Post the op's slot WRITEs (or the step's one), one after the other on   *)
(* one QP (R6).                                                            *)
WWrites ==
    /\ ~WDone /\ Steps[ws].k = "writes" /\ CanPostT(Writer)
    /\ StartWrites(Writer, IF Steps[ws].c = 0 THEN Images ELSE <<Images[Steps[ws].c]>>)
    /\ Advance
    /\ IF WOps[wi] = "update"
       THEN written' = written \cup {xval + 1} /\ pendVal' = xval + 1
       ELSE UNCHANGED <<written, pendVal>>
    /\ UNCHANGED <<mem, sb, pend, op, tr, pc, nops, tries, gv, abs, during>>

WriterStep == WPost \/ WComplete \/ WWrites

(***************************************************************************)
(* The readers.                                                            *)
(***************************************************************************)
GetInvoke(t) ==
    /\ pc[t] = "idle" /\ nops[t] < MaxGets /\ CanPostT(t)
    /\ nops' = [nops EXCEPT ![t] = @ + 1] /\ tries' = [tries EXCEPT ![t] = 0]
    /\ during' = [during EXCEPT ![t] = {abs}]
    \* The GET's doorbell: the FETCH_ADDs first; its READ after them (R9).
    /\ SetOp(t, FaaOp(VerW(1), 0)) /\ Go(t, "f1")
    /\ UNCHANGED <<mem, sb, pend, tornVars, gv, wi, ws, xrow, xval, written, abs, pendVal>>

GetVer1(t) ==
    /\ pc[t] = "f1" /\ Completed(t)
    /\ gv' = [gv EXCEPT ![t][1] = Result(t)]
    /\ SetOp(t, FaaOp(VerW(2), 0)) /\ Go(t, "f2")
    /\ UNCHANGED <<mem, sb, pend, tornVars, nops, tries, wi, ws, xrow, xval, written, ghostVars>>

GetVer2(t) ==
    /\ pc[t] = "f2" /\ Completed(t)
    /\ gv' = [gv EXCEPT ![t][2] = Result(t)]
    \* R9: the READ's words are read only after both FETCH_ADDs have executed.
    /\ SetOp(t, NoOp) /\ StartRead(t, SlotWords) /\ Go(t, "rd")
    /\ tries' = [tries EXCEPT ![t] = @ + 1]
    /\ UNCHANGED <<mem, sb, pend, tw, nops, wi, ws, xrow, xval, written, ghostVars>>

RowOK(t, r) ==
    \/ Check = "none"
    \/ /\ Tag(Got(t)[KeyW(r)]) = Tag(Got(t)[ValW(r)])
       /\ Check = "tags" \/ Tag(Got(t)[KeyW(r)]) <= gv[t][r]
Accept(t) == \A r \in Rows : RowOK(t, r)
HoldsX(t) == {r \in Rows : Pay(Got(t)[KeyW(r)]) = 1}
Found(t) == HoldsX(t) # {}
Value(t) == Pay(Got(t)[ValW(CHOOSE r \in HoldsX(t) : TRUE)])

(* The READ is done: return (a value, NOT_FOUND, or BUSY after MaxTries),  *)
(* or retry the whole doorbell.                                            *)
GetEnd(t) ==
    /\ pc[t] = "rd" /\ ReadDone(t)
    /\ EndRead(t)
    /\ IF Accept(t) \/ tries[t] = MaxTries
       THEN Go(t, "idle") /\ UNCHANGED op
       ELSE SetOp(t, FaaOp(VerW(1), 0)) /\ Go(t, "f1")
    /\ UNCHANGED <<mem, sb, pend, tw, nops, tries, gv, wi, ws, xrow, xval, written, ghostVars>>

ReaderStep(t) == t \in Readers /\ (GetInvoke(t) \/ GetVer1(t) \/ GetVer2(t) \/ GetEnd(t))

(***************************************************************************)
(* Memory-system steps, with the ghost: an update takes effect when its    *)
(* WRITE is fully placed.                                                  *)
(***************************************************************************)
Memory ==
    \E t \in Threads :
        \/ /\ \E n \in Nodes : PlaceWord(t, n)
           /\ IF t = Writer /\ pendVal # 0 /\ tw'[Writer][Home] = <<>>
              THEN /\ abs' = pendVal /\ pendVal' = 0
                   /\ during' = [u \in Threads |-> IF pc[u] = "idle" THEN during[u] ELSE during[u] \cup {pendVal}]
              ELSE UNCHANGED ghostVars
        \/ ((\E l \in Locs : ReadWord(t, l)) /\ UNCHANGED ghostVars)
        \/ ((TGetExec(t) \/ TAtomicRead(t) \/ TOther(t)) /\ UNCHANGED ghostVars)

Finished == WDone /\ (\A t \in Readers : pc[t] = "idle" /\ nops[t] = MaxGets) /\ UNCHANGED vars

Next == WriterStep \/ (\E t \in Threads : ReaderStep(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties, at the step where a GET returns with its snapshot accepted. *)
(***************************************************************************)
Returning(t) == t \in Readers /\ pc[t] = "rd" /\ ReadDone(t) /\ Accept(t)
NeverMiss == \A t \in Threads : Returning(t) => Found(t)
NoMix == \A t \in Threads : Returning(t) /\ Found(t) => Value(t) \in written
GetInTime == \A t \in Threads : Returning(t) /\ Found(t) => Value(t) \in during[t]
=============================================================================
