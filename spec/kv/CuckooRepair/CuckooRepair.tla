----------------------------- MODULE CuckooRepair -----------------------------
(***************************************************************************)
(* dev.remora.kv.CuckooMap with crashes: GET, PUT, DELETE and kicks along  *)
(* a path, the intent log, and the repair by lease takeover and            *)
(* roll-forward (docs/kv.md, "Crashes: leases and roll-forward"), on torn  *)
(* READs and WRITEs (TornVerbs). NRows rows of one slot on node Home. Row  *)
(* r: lock word LK(r) (CAS only), version word VR(r) (FETCH_ADD only,      *)
(* R14), a slot of two words KW(r) (kind and key: the key's number, 0 =    *)
(* EMPTY) and DW(r) (the value), each word 10 * tag + payload (R18). Each  *)
(* client t has an intent log of two words LG(t, 1), LG(t, 2), each        *)
(* 100 * tag + payload: the tag is the op's sequence, the payload names    *)
(* the op's intent (intents[id]: the rows held H in row order, the         *)
(* versions V read under the locks, the slot images, and the original      *)
(* lock word W0); a log is whole for op s iff both words carry tag s.      *)
(* A lock word is 10 * ClientNo[t] + sequence.                             *)
(*                                                                         *)
(* Writer t, op after op (Ops[t][i]: put or delete of a key, a put with a  *)
(* candidate kick path p = <<r0, r1, ...>> the search may have produced):  *)
(*   doorbell 1: CAS(LK(r), 0 -> w) of every row of L = the key's rows and *)
(*     the path's, in row order; then READ of those rows (after the CASes, *)
(*     R9). A CAS failed: unlock the rows taken, retry (MaxAttempts),      *)
(*     then BUSY.                                                          *)
(*   decide on the rows read: the key's slot (update or delete), else a    *)
(*     free slot of its rows (insert), else the path if it still holds     *)
(*     (each p[i] holds a key whose other row is p[i+1], the last row is   *)
(*     free): a kick; else TABLE_FULL. Nothing to write (NOT_FOUND,        *)
(*     TABLE_FULL): the unlock CASes only.                                 *)
(*   doorbell 2: WRITE of the log; WRITE of each slot image (tag V[r] + 1; *)
(*     a kick from the end: the last key moving into the free row first,   *)
(*     each earlier row then overwritten by the key moving in, the new key *)
(*     last, KickOrder = "destFirst"); FETCH_ADD(VR(r), 1) of every row of *)
(*     L; CAS(LK(r), w -> 0) of every row of L, in row order. R6 lands the *)
(*     log whole before any image; R7 runs each bump after every WRITE is  *)
(*     placed; R9 runs the unlocks after the bumps, and in order.          *)
(* Reader (GET of GetKey): FETCH_ADD(VR(r1), 0), FETCH_ADD(VR(r2), 0), one *)
(*   READ of both slots (word by word, any order; after the FETCH_ADDs,    *)
(*   R9); accept iff each slot's words carry one tag <= the version read;  *)
(*   else retry, at most MaxTries READs, then BUSY.                        *)
(* Repairer t (Repair = "logFirst": docs/kv.md's repair made precise, with *)
(* the two fixes these models found needed, below), on finding             *)
(* row r locked by w whose holder c's lease expired:                       *)
(*   READ c's log. Not whole for w's op: nothing of it was written (R6):   *)
(*     CAS(LK(r), w -> 0). Whole: the intent I; h1 = I.H[1], the first row *)
(*     of the op, is the repair lock. READ LK(h1) = u:                     *)
(*   - u = I.W0, or u is the word of a repairer of this op (dead, its log  *)
(*     whole and naming I): one doorbell: WRITE of t's own log (naming I), *)
(*     then CAS(LK(h1), u -> wt) (after the log is placed, R7). Held:      *)
(*     READ the versions of I.H (after the CAS, R9); one doorbell: if no   *)
(*     row of I.H is past its logged version, WRITE every image of I again *)
(*     (same tags); FETCH_ADD(VR(h), 1) of each row still at its logged    *)
(*     version; CAS(LK(h), I.W0 -> 0) of the other rows; CAS(LK(h1), wt -> *)
(*     0) last.                                                            *)
(*   - u = 0 or any other word: h1 left the op's hands by an unlock, which *)
(*     follows all the op's bumps (R9), hence all its images (R7): only    *)
(*     CAS(LK(h), I.W0 -> 0) of the other rows.                            *)
(*   - u is a live holder's, or a dead one's whose lease has not expired:  *)
(*     give up for now.                                                    *)
(*                                                                         *)
(* Crashes (R20). A Crashable client stops at any step (CrashBudget in a   *)
(* behaviour). Its WRITEs and its atomic in flight still take effect in    *)
(* their order (R6, R7), and at any moment the rest may be lost (Drop):    *)
(* what lands is a prefix of its verbs in posting order, the last WRITE    *)
(* with any subset of its words. The lease (Timing = TRUE): a lock word is *)
(* taken over, or its holder's log read, only once its holder is dead and  *)
(* settled (Settled: nothing of it in flight any more). This is what       *)
(* "unchanged for the lease L on the repairer's clock" buys when a holder  *)
(* posts nothing past L - M after its lock CAS and what it posted lands    *)
(* within delta or never (docs/kv.md; LeaseLock.tla has the clocks). A     *)
(* holder that pauses past its lease is a crash here: it posts no more     *)
(* WRITE or bump (it checks its clock), and its late unlock CASes fail,    *)
(* since nobody else ever installs its word. Timing = FALSE: a dead        *)
(* holder's lock may be taken over while its verbs are still in flight.    *)
(*                                                                         *)
(* Checked (invariants):                                                   *)
(*   UnlockedPublished: a row nobody holds is published: its slot untorn   *)
(*     and its tag at most its version (a GET accepts it).                 *)
(*   NoKeyTwice, NoLostKey, NoGhostKey: for every key whose two rows are   *)
(*     free, the rows hold it once with abs's value iff the abstract map   *)
(*     abs has it (abs: an op takes effect at the first FETCH_ADD(+1) of   *)
(*     its rows, by its writer or a repairer; an acknowledged op has).     *)
(*   WriterReadsMap: under its locks a writer reads published rows that    *)
(*     hold its key at most once, with abs's value (its result is abs's).  *)
(*   GetInTime, NoMix: an accepted GET returns GetKey's value (0 =         *)
(*     NOT_FOUND) at some instant within the GET, never a mix of writes.   *)
(*   Healed: once everything has stopped, no row is locked and every row   *)
(*     is published (GETs answer again).                                   *)
(*                                                                         *)
(* How to break it (the twins, MCCuckooRepair*.cfg):                       *)
(*   Repair = "unlockOnly": no roll-forward (bump and unlock the row       *)
(*     found, the log unread): a kick cut short leaves a key in both its   *)
(*     rows (destFirst: NoKeyTwice) or in neither (sourceFirst:            *)
(*     NoLostKey).                                                         *)
(*   Repair = "headerOnly": a log counted whole on its first word: the     *)
(*     previous op's images, in the second word, are written again over    *)
(*     newer data (NoLostKey).                                             *)
(*   Repair = "takeoverFirst": the repairer takes h1 over and logs only in *)
(*     its roll-forward doorbell (the order first designed): it            *)
(*     crashes in between, its word on h1 has no whole log behind it, and  *)
(*     the op is unlocked half-written (NoKeyTwice).                       *)
(*   Repair = "split": no repair lock: every repairer takes over every row *)
(*     of the op still holding w (one doorbell of CASes) and rolls forward *)
(*     on the rows it got: two repairers split the rows, one bumps its     *)
(*     part, the other takes that bump for "all images placed"             *)
(*     (NoKeyTwice).                                                       *)
(*   Timing = FALSE: the repair runs while the dead holder's verbs are in  *)
(*     flight; they land after it (UnlockedPublished).                     *)
(*   BumpRule = "all" (a repair that bumps rows already bumped): holds; a  *)
(*     version that skips a number breaks nothing (tags stay <= versions,  *)
(*     and "bumped" is read as "past the logged version").                 *)
(*   KickOrder = "sourceFirst" with the log: holds (the order of a kick's  *)
(*     images matters only to a repair that does not read the log).        *)
(*                                                                         *)
(* Abstracted. One slot per row (a row is locked, versioned and GET-       *)
(* checked as a whole, so its slots are one unit here). The search: a put  *)
(* carries a candidate path (whatever the search read, torn or stale),     *)
(* which the writer checks under its locks as the code does; the first     *)
(* locked READ that finds the key's rows full is not modelled. READs of    *)
(* words nobody can change meanwhile are snapshots: rows under the         *)
(* reader's own locks (the previous holder unlocked after its WRITEs       *)
(* landed, R7/R9, or was repaired after it settled), a settled dead        *)
(* client's log, the versions of rows the repairer holds or a settled      *)
(* family holds. A FETCH_ADD(0) and a one-word READ read at their step.    *)
(* ATOMIC_CAP = "GLOB": lock and version words are changed by atomics      *)
(* only (R14), so no atomic's window can be disturbed and the fused        *)
(* atomic has the same behaviours. Versions do not wrap, no slot is        *)
(* refreshed, no value has an extent. A GET makes one READ (MaxTries =     *)
(* 1 in the models): an accepted retry is a fresh GET with a longer        *)
(* interval, which GetInTime checks more weakly. A repair starts at a      *)
(* row whose holder is dead (a repairer that finds a live holder waits,    *)
(* which changes nothing); repairs that change nothing are not counted.    *)
(* Healed is checked when everything stopped within the bounds             *)
(* (MaxRepairs); liveness beyond them is not checked.                      *)
(***************************************************************************)
EXTENDS TornVerbs, FiniteSets

CONSTANTS
    Home,         \* the table's node
    NRows,        \* rows 1..NRows, one slot each
    Keys,         \* the keys (numbers 1..9)
    KeyRows,      \* KeyRows[k]: the two rows of key k
    Ops,          \* Ops[t]: writer t's ops, [kind |-> "put" or "del", key, val, path]
    Writers,      \* threads that run Ops
    Readers,      \* threads that GET GetKey
    Repairers,    \* threads that repair
    ClientNo,     \* ClientNo[t] \in 1..9: the client id in lock words
    Crashable,    \* threads that may crash
    CrashBudget,  \* crashes in a behaviour
    GetKey,       \* the key the readers GET
    MaxGets,      \* GETs per reader
    MaxTries,     \* READs per GET before BUSY
    MaxRepairs,   \* repairs a repairer starts
    MaxAttempts,  \* lock attempts per writer op before BUSY
    KickOrder,    \* "destFirst" (the code), "sourceFirst"
    Repair,       \* "logFirst" (the design made precise), "takeoverFirst", "split", "unlockOnly", "headerOnly"
    BumpRule,     \* "unbumped" (the design: bump only rows at their logged version), "all"
    Timing        \* TRUE: a lock is taken over only once its dead holder is settled (the lease)

Rows == 1..NRows
LK(r) == <<"lk", r>>
VR(r) == <<"ver", r>>
KW(r) == <<"key", r>>
DW(r) == <<"val", r>>
LG(t, i) == <<"log", t, i>>
Loggers == Writers \cup Repairers
Enc(tag, pay) == 10 * tag + pay
Tag(x) == x \div 10
Pay(x) == x % 10
LEnc(s, id) == 100 * s + id
LTag(x) == x \div 100
LId(x) == x % 100
LW(t, s) == 10 * ClientNo[t] + s
Holder(w) == CHOOSE t \in Threads : ClientNo[t] = w \div 10
SeqOf(w) == w % 10
Other(k, r) == CHOOSE q \in KeyRows[k] : q # r

ASSUME /\ Writers \cup Readers \cup Repairers \subseteq Threads /\ Crashable \subseteq Threads
       /\ \A k \in Keys : KeyRows[k] \subseteq Rows /\ Cardinality(KeyRows[k]) = 2
       /\ KickOrder \in {"destFirst", "sourceFirst"}
       /\ Repair \in {"logFirst", "takeoverFirst", "split", "unlockOnly", "headerOnly"}
       /\ BumpRule \in {"unbumped", "all"} /\ Timing \in BOOLEAN
       /\ ATOMIC_CAP = "GLOB"   \* lock and version words are changed by atomics only (R14): no window to disturb
       /\ Locs = {LK(r) : r \in Rows} \cup {VR(r) : r \in Rows} \cup {KW(r) : r \in Rows} \cup {DW(r) : r \in Rows}
                 \cup {LG(t, i) : t \in Loggers, i \in 1..2}
       /\ DOMAIN HomeOf = Locs /\ DOMAIN InitMem = Locs /\ \A l \in Locs : HomeOf[l] = Home

VARIABLES
    pc,       \* pc[t]: "idle"; writer "lock", "commit", "release"; reader "g2", "grd"; repairer "rh1", "rtake",
              \* "rsplit", "rdone"
    dead,     \* the crashed threads
    budget,   \* crashes left
    prog,     \* prog[t]: the verbs of t's doorbell still to post
    res,      \* res[t]: the results of the doorbell's atomics so far
    seq,      \* seq[t]: t's op sequence (lock words and log tags)
    wi,       \* wi[t]: the writer's op
    natt,     \* natt[t]: the writer's lock attempts at its op
    lw,       \* lw[t]: the writer's lock word / the repairer's takeover word
    lrows,    \* lrows[t]: the writer's rows, in row order
    ngets,    \* ngets[t]: GETs invoked
    tries,    \* tries[t]: READs of the current GET
    gv,       \* gv[t][i]: the version of the GET's i-th row
    nrep,     \* nrep[t]: repairs started
    rid,      \* rid[t]: the repairer's intent
    rbody,    \* rbody[t]: the intent whose images the repairer writes (rid but for "headerOnly")
    rw,       \* rw[t]: the lock word the repairer found; its CAS expects it
    intents,  \* the intents of every op that logged, by id
    acting,   \* acting[t]: the intent whose bumps t's doorbell carries (0: none)
    abs,      \* ghost: the abstract map, [Keys -> value], 0 = absent
    done,     \* ghost: the intents that took effect
    during,   \* ghost: during[t], GetKey's values in abs since t's GET was invoked
    written,  \* ghost: written[k], the values k was ever given
    wbad      \* ghost: a writer read, under its locks, rows that disagree with abs

protoVars == <<pc, dead, budget, prog, res, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep, rid, rbody, rw,
               intents, acting>>
ghostVars == <<abs, done, during, written, wbad>>
vars == <<allVars, protoVars, ghostVars>>

InitKey(r) == Pay(InitMem[KW(r)])
InitVal(r) == Pay(InitMem[DW(r)])

Init ==
    /\ TornInit
    /\ pc = [t \in Threads |-> "idle"]
    /\ dead = {} /\ budget = CrashBudget
    /\ prog = [t \in Threads |-> <<>>]
    /\ res = [t \in Threads |-> <<>>]
    /\ seq = [t \in Threads |-> 0]
    /\ wi = [t \in Threads |-> 1]
    /\ natt = [t \in Threads |-> 0]
    /\ lw = [t \in Threads |-> 0]
    /\ lrows = [t \in Threads |-> <<>>]
    /\ ngets = [t \in Threads |-> 0]
    /\ tries = [t \in Threads |-> 0]
    /\ gv = [t \in Threads |-> <<0, 0>>]
    /\ nrep = [t \in Threads |-> 0]
    /\ rid = [t \in Threads |-> 0]
    /\ rbody = [t \in Threads |-> 0]
    /\ rw = [t \in Threads |-> 0]
    /\ intents = <<>>
    /\ acting = [t \in Threads |-> 0]
    /\ abs = [k \in Keys |-> IF \E r \in Rows : InitKey(r) = k
                             THEN InitVal(CHOOSE r \in Rows : InitKey(r) = k) ELSE 0]
    /\ done = {}
    /\ during = [t \in Threads |-> {}]
    /\ written = [k \in Keys |-> {abs[k]} \ {0}]
    /\ wbad = FALSE

Alive(t) == t \notin dead
Set(f, t, v) == [f EXCEPT ![t] = v]
Go(t, l) == pc' = Set(pc, t, l)

(***************************************************************************)
(* Memory read by a protocol step. A one-word READ or a FETCH_ADD(0) reads *)
(* its word at one instant (R18): the step's. A READ of words nobody can   *)
(* change meanwhile (rows under the reader's locks; a settled dead         *)
(* client's log) reads them as a snapshot.                                 *)
(***************************************************************************)
KeyAt(r) == Pay(mem[KW(r)])
ValAt(r) == Pay(mem[DW(r)])
Published(r) == Tag(mem[KW(r)]) = Tag(mem[DW(r)]) /\ Tag(mem[KW(r)]) <= mem[VR(r)]
Settled(t) == t \in dead /\ tw[t][Home] = <<>> /\ op[t].st # "posted"
LeaseOver(t) == t \in dead /\ (Timing => Settled(t))
Whole(c, s) ==
    /\ LTag(mem[LG(c, 1)]) = s
    /\ Repair # "headerOnly" => LTag(mem[LG(c, 2)]) = s

(***************************************************************************)
(* Verbs of a doorbell, posted one by one by Exec (the blocking layer);    *)
(* a "writes" entry posts several WRITEs at once (each acknowledged at     *)
(* once, landing in order, R6).                                            *)
(***************************************************************************)
Cas(l, c, v) == [k |-> "cas", l |-> l, c |-> c, v |-> v, w |-> <<>>]
Faa(l, v) == [k |-> "faa", l |-> l, c |-> 0, v |-> v, w |-> <<>>]
Wr(ws) == [k |-> "writes", l |-> LK(1), c |-> 0, v |-> 0, w |-> ws]

(* t may post: no CPU store, no READ outstanding, its last atomic (if any) *)
(* completed.                                                              *)
Ready(t) == sb[t] = <<>> /\ ~tr[t].on /\ op[t].st = "done"
Results(t) == IF op[t].kind # "none" THEN Append(res[t], op[t].old) ELSE res[t]

Exec(t) ==
    LET v == Head(prog[t]) IN
    /\ Alive(t) /\ prog[t] # <<>> /\ Ready(t)
    /\ res' = Set(res, t, Results(t))
    /\ prog' = Set(prog, t, Tail(prog[t]))
    /\ IF v.k = "writes"
       THEN StartWrites(t, v.w) /\ op' = Set(op, t, NoOp)
       ELSE /\ op' = Set(op, t, IF v.k = "cas" THEN CasOp(v.l, v.c, v.v) ELSE FaaOp(v.l, v.v))
            /\ UNCHANGED tw
    /\ UNCHANGED <<mem, sb, pend, tr, pc, dead, budget, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep, rid,
                   rbody, rw, intents, acting, ghostVars>>

(* The doorbell is done: its last atomic completed; Results(t) are all its *)
(* atomics' results.                                                       *)
DoorbellDone(t) == Alive(t) /\ prog[t] = <<>> /\ Ready(t)
EndDoorbell(t) == op' = Set(op, t, NoOp) /\ res' = Set(res, t, <<>>)

(***************************************************************************)
(* Intents and images.                                                     *)
(***************************************************************************)
SortedSeq(S) == [i \in 1..Cardinality(S) |-> CHOOSE r \in S : Cardinality({q \in S : q < r}) = i - 1]
Ord(L, r) == CHOOSE i \in 1..Len(L) : L[i] = r
Range(s) == {s[i] : i \in DOMAIN s}
(* A slot image [o: the row's place in H, k: key, v: value] as a WRITE.    *)
ImgWrite(H, V, im) ==
    LET r == H[im.o] IN [l \in {KW(r), DW(r)} |-> IF l = KW(r) THEN Enc(V[r] + 1, im.k) ELSE Enc(V[r] + 1, im.v)]
ImgWrites(H, V, imgs) ==
    LET ok == SelectSeq(imgs, LAMBDA im : im.o <= Len(H)) IN [j \in 1..Len(ok) |-> ImgWrite(H, V, ok[j])]
LogWrite(t, s, id) == [l \in {LG(t, 1), LG(t, 2)} |-> LEnc(s, id)]
Bumps(H, rows) == [j \in 1..Len(SelectSeq(H, LAMBDA r : r \in rows)) |->
                       Faa(VR(SelectSeq(H, LAMBDA r : r \in rows)[j]), 1)]
Unlocks(H, rows, w) == [j \in 1..Len(SelectSeq(H, LAMBDA r : r \in rows)) |->
                            Cas(LK(SelectSeq(H, LAMBDA r : r \in rows)[j]), w, 0)]

(***************************************************************************)
(* Writers.                                                                *)
(***************************************************************************)
CurOp(t) == Ops[t][wi[t]]
LockRows(o) == SortedSeq(KeyRows[o.key] \cup Range(o.path))

WInvoke(t) ==
    /\ t \in Writers /\ Alive(t) /\ pc[t] = "idle" /\ wi[t] <= Len(Ops[t]) /\ Ready(t) /\ op[t].kind = "none"
    /\ LET L == LockRows(CurOp(t))
           w == LW(t, seq[t] + 1)
       IN /\ seq' = Set(seq, t, seq[t] + 1) /\ lw' = Set(lw, t, w) /\ lrows' = Set(lrows, t, L)
          /\ prog' = Set(prog, t, [i \in 1..Len(L) |-> Cas(LK(L[i]), 0, w)])
    /\ Go(t, "lock")
    /\ UNCHANGED <<allVars, dead, budget, res, wi, natt, ngets, tries, gv, nrep, rid, rbody, rw, intents, acting,
                   ghostVars>>

NextOp(t) == wi' = Set(wi, t, wi[t] + 1) /\ natt' = Set(natt, t, 0)

(* Doorbell 1 done: every lock taken: decide on the rows read (R9: read    *)
(* after the CASes; nobody else writes them now); else unlock the rows     *)
(* taken and retry.                                                        *)
WLocked(t) ==
    LET o == CurOp(t)
        L == lrows[t]
        R == Results(t)
        w == lw[t]
        taken == {L[i] : i \in {j \in 1..Len(L) : R[j] = 0}}
        found == {r \in KeyRows[o.key] : KeyAt(r) = o.key}
        free == {r \in KeyRows[o.key] : KeyAt(r) = 0}
        prev == IF found = {} THEN 0 ELSE ValAt(CHOOSE r \in found : TRUE)
        p == o.path
        n == Len(p) - 1
        pathHolds == /\ p # <<>>
                     /\ \A i \in 1..n : KeyAt(p[i]) # 0 /\ KeyRows[KeyAt(p[i])] = {p[i], p[i + 1]}
                     /\ KeyAt(p[n + 1]) = 0
        moves == [j \in 1..n |-> LET i == n + 1 - j IN [o |-> Ord(L, p[i + 1]), k |-> KeyAt(p[i]), v |-> ValAt(p[i])]]
        kick == LET d == moves \o <<[o |-> Ord(L, p[1]), k |-> o.key, v |-> o.val]>>
                IN  IF KickOrder = "destFirst" THEN d ELSE [j \in 1..(n + 1) |-> d[n + 2 - j]]
        newv == IF o.kind = "put" THEN o.val ELSE 0
        imgs == CASE found # {} -> <<[o |-> Ord(L, CHOOSE r \in found : TRUE),
                                      k |-> IF o.kind = "put" THEN o.key ELSE 0, v |-> newv]>>
                  [] o.kind = "del" -> <<>>
                  [] free # {} -> <<[o |-> Ord(L, CHOOSE r \in free : \A q \in free : r <= q), k |-> o.key,
                                     v |-> newv]>>
                  [] pathHolds -> kick
                  [] OTHER -> <<>>
        id == Len(intents) + 1
        V == [r \in Range(L) |-> mem[VR(r)]]
    IN
    /\ pc[t] = "lock" /\ DoorbellDone(t)
    /\ EndDoorbell(t)
    /\ IF taken = Range(L)
       THEN /\ wbad' = \/ wbad
                       \/ \E r \in Range(L) : ~Published(r)
                       \/ Cardinality(found) > 1
                       \/ prev # abs[o.key]
            /\ IF imgs = <<>>
               THEN \* NOT_FOUND or TABLE_FULL: nothing to write, the unlock CASes only
                    /\ prog' = Set(prog, t, Unlocks(L, Range(L), w))
                    /\ Go(t, "release") /\ NextOp(t)
                    /\ UNCHANGED <<intents, acting, written>>
               ELSE /\ intents' = Append(intents, [H |-> L, V |-> V, img |-> imgs, W0 |-> w, key |-> o.key,
                                                   val |-> newv])
                    /\ prog' = Set(prog, t, <<Wr(<<LogWrite(t, seq[t], id)>> \o ImgWrites(L, V, imgs))>>
                                            \o Bumps(L, Range(L)) \o Unlocks(L, Range(L), w))
                    /\ acting' = Set(acting, t, id)
                    /\ written' = IF newv = 0 THEN written ELSE [written EXCEPT ![o.key] = @ \cup {newv}]
                    /\ Go(t, "commit") /\ NextOp(t)
       ELSE /\ prog' = Set(prog, t, Unlocks(L, taken, w))
            /\ Go(t, "release")
            /\ IF natt[t] + 1 < MaxAttempts THEN natt' = Set(natt, t, natt[t] + 1) /\ UNCHANGED wi
               ELSE NextOp(t)   \* BUSY
            /\ UNCHANGED <<intents, acting, written, wbad>>
    /\ UNCHANGED <<mem, sb, pend, tw, tr, dead, budget, seq, lw, lrows, ngets, tries, gv, nrep, rid, rbody, rw,
                   abs, done, during>>

(* Doorbell 2 (or the unlocks) done: the op returns.                       *)
WDone(t) ==
    /\ t \in Writers /\ pc[t] \in {"commit", "release"} /\ DoorbellDone(t)
    /\ EndDoorbell(t) /\ Go(t, "idle") /\ acting' = Set(acting, t, 0)
    /\ UNCHANGED <<mem, sb, pend, tw, tr, dead, budget, prog, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep,
                   rid, rbody, rw, intents, ghostVars>>

(***************************************************************************)
(* Readers.                                                                *)
(***************************************************************************)
GRows == SortedSeq(KeyRows[GetKey])
GWords == {KW(GRows[1]), DW(GRows[1]), KW(GRows[2]), DW(GRows[2])}

(* FETCH_ADD(VR(r1), 0): the GET's first version.                          *)
GInvoke(t) ==
    /\ t \in Readers /\ Alive(t) /\ pc[t] = "idle" /\ ngets[t] < MaxGets /\ Ready(t) /\ op[t].kind = "none"
    /\ ngets' = Set(ngets, t, ngets[t] + 1) /\ tries' = Set(tries, t, 1)
    /\ during' = Set(during, t, {abs[GetKey]})
    /\ gv' = [gv EXCEPT ![t][1] = mem[VR(GRows[1])]]
    /\ Go(t, "g2")
    /\ UNCHANGED <<allVars, dead, budget, prog, res, seq, wi, natt, lw, lrows, nrep, rid, rbody, rw, intents,
                   acting, abs, done, written, wbad>>

(* FETCH_ADD(VR(r2), 0), then the READ of both slots (after both, R9).     *)
G2(t) ==
    /\ pc[t] = "g2" /\ Alive(t)
    /\ gv' = [gv EXCEPT ![t][2] = mem[VR(GRows[2])]]
    /\ StartRead(t, GWords) /\ Go(t, "grd")
    /\ UNCHANGED <<mem, sb, pend, op, tw, dead, budget, prog, res, seq, wi, natt, lw, lrows, ngets, tries, nrep,
                   rid, rbody, rw, intents, acting, ghostVars>>

RowOK(t, i) ==
    LET r == GRows[i] IN Tag(Got(t)[KW(r)]) = Tag(Got(t)[DW(r)]) /\ Tag(Got(t)[KW(r)]) <= gv[t][i]
Accept(t) == RowOK(t, 1) /\ RowOK(t, 2)
HoldsKey(t) == {r \in Range(GRows) : Pay(Got(t)[KW(r)]) = GetKey}
GetResult(t) == IF HoldsKey(t) = {} THEN 0 ELSE Pay(Got(t)[DW(CHOOSE r \in HoldsKey(t) : TRUE)])

GEnd(t) ==
    /\ pc[t] = "grd" /\ Alive(t) /\ ReadDone(t)
    /\ EndRead(t)
    /\ IF Accept(t) \/ tries[t] = MaxTries
       THEN Go(t, "idle") /\ UNCHANGED <<tries, gv>>
       ELSE /\ tries' = Set(tries, t, tries[t] + 1)
            /\ gv' = [gv EXCEPT ![t][1] = mem[VR(GRows[1])]]   \* the retry's first FETCH_ADD
            /\ Go(t, "g2")
    /\ UNCHANGED <<mem, sb, pend, op, tw, dead, budget, prog, res, seq, wi, natt, lw, lrows, ngets, nrep, rid,
                   rbody, rw, intents, acting, ghostVars>>

(***************************************************************************)
(* Repairers.                                                              *)
(***************************************************************************)
I(t) == intents[rid[t]]
Startable(r) == mem[LK(r)] # 0 /\ LeaseOver(Holder(mem[LK(r)]))

(* Row r's lock word w has outlived its holder's lease: READ the holder's  *)
(* log (settled: a snapshot) and decide.                                   *)
RStart(t, r) ==
    LET w == mem[LK(r)]
        c == Holder(w)
        s == SeqOf(w)
        wt == LW(t, seq[t] + 1)
        id == LId(mem[LG(c, 1)])
    IN
    /\ t \in Repairers /\ Alive(t) /\ pc[t] = "idle" /\ nrep[t] < MaxRepairs /\ Ready(t) /\ op[t].kind = "none"
    /\ Startable(r)
    /\ nrep' = Set(nrep, t, nrep[t] + 1) /\ rw' = Set(rw, t, w)
    /\ CASE Repair = "unlockOnly" ->
              \* the twin: no roll-forward, whatever the log says
              /\ seq' = Set(seq, t, seq[t] + 1) /\ lw' = Set(lw, t, wt)
              /\ prog' = Set(prog, t, <<Cas(LK(r), w, wt), Faa(VR(r), 1), Cas(LK(r), wt, 0)>>)
              /\ Go(t, "rdone") /\ UNCHANGED <<rid, rbody>>
         [] ~Whole(c, s) ->
              \* nothing of the op was written (R6): unlock
              /\ prog' = Set(prog, t, <<Cas(LK(r), w, 0)>>)
              /\ Go(t, "rdone") /\ UNCHANGED <<rid, rbody, seq, lw>>
         [] Repair = "split" ->
              \* the twin: take over every row of the op that still holds w, roll forward on those
              /\ seq' = Set(seq, t, seq[t] + 1) /\ lw' = Set(lw, t, wt)
              /\ rid' = Set(rid, t, id) /\ rbody' = Set(rbody, t, id)
              /\ prog' = Set(prog, t, <<Wr(<<LogWrite(t, seq[t] + 1, id)>>)>>
                                      \o [j \in 1..Len(intents[id].H) |-> Cas(LK(intents[id].H[j]), w, wt)])
              /\ Go(t, "rsplit")
         [] OTHER ->
              /\ rid' = Set(rid, t, id)
              /\ rbody' = Set(rbody, t, IF Repair = "headerOnly" THEN LId(mem[LG(c, 2)]) ELSE id)
              /\ Go(t, "rh1") /\ UNCHANGED <<prog, seq, lw>>
    /\ UNCHANGED <<allVars, dead, budget, res, wi, natt, lrows, ngets, tries, gv, intents, acting, ghostVars>>

(* u, found on the op's first row, is the word of a repairer of this op:   *)
(* dead, its lease over, its log whole and naming the same intent.         *)
OfRepair(t, u) ==
    /\ u # 0 /\ u # I(t).W0 /\ Holder(u) \in Loggers /\ LeaseOver(Holder(u))
    /\ Whole(Holder(u), SeqOf(u)) /\ LId(mem[LG(Holder(u), 1)]) = rid[t]

(* READ of the op's first row's lock word u, and the decision.             *)
RH1(t) ==
    LET W0 == I(t).W0
        h1 == I(t).H[1]
        u == mem[LK(h1)]
        wt == LW(t, seq[t] + 1)
        ofOp == u = W0 \/ OfRepair(t, u)
        gone == u = 0 \/ (~ofOp /\ LeaseOver(Holder(u)))
    IN
    /\ pc[t] = "rh1" /\ Alive(t)
    /\ CASE ofOp ->
              \* take the op's repair over: own log first (R7 puts the CAS after it), then the CAS
              /\ seq' = Set(seq, t, seq[t] + 1) /\ lw' = Set(lw, t, wt) /\ rw' = Set(rw, t, u)
              /\ prog' = Set(prog, t, IF Repair = "takeoverFirst" THEN <<Cas(LK(h1), u, wt)>>
                                      ELSE <<Wr(<<LogWrite(t, seq[t] + 1, rid[t])>>), Cas(LK(h1), u, wt)>>)
              /\ Go(t, "rtake")
         [] gone ->
              \* h1 was unlocked by the op's last holder, after all its bumps (R9), hence after all its
              \* images (R7): only the other rows' unlocks are left
              /\ prog' = Set(prog, t, Unlocks(I(t).H, Range(Tail(I(t).H)), W0))
              /\ Go(t, "rdone") /\ UNCHANGED <<seq, lw, rw>>
         [] OTHER ->
              \* h1's holder is alive (a repairer of the op, or a writer after it), or its lease runs: later
              \* (a repair that did nothing is not counted)
              /\ Go(t, "idle") /\ nrep' = Set(nrep, t, nrep[t] - 1) /\ UNCHANGED <<prog, seq, lw, rw>>
    /\ ofOp \/ gone => UNCHANGED nrep
    /\ UNCHANGED <<allVars, dead, budget, res, wi, natt, lrows, ngets, tries, gv, rid, rbody, intents, acting,
                   ghostVars>>

(* The takeover CAS is done. Held: READ the versions of the op's rows (R9, *)
(* nobody else bumps them now) and roll forward.                           *)
RTake(t) ==
    LET H == I(t).H
        V == I(t).V
        h1 == H[1]
        took == Results(t)[1] = rw[t]
        atV == {h \in Range(H) : mem[VR(h)] = V[h]}
        allV == atV = Range(H)
        ws == (IF Repair = "takeoverFirst" THEN <<LogWrite(t, seq[t], rid[t])>> ELSE <<>>)
              \o (IF allV /\ rbody[t] # 0 THEN ImgWrites(H, V, intents[rbody[t]].img) ELSE <<>>)
        bump == IF BumpRule = "all" THEN Range(H) ELSE atV
    IN
    /\ pc[t] = "rtake" /\ DoorbellDone(t)
    /\ EndDoorbell(t)
    /\ IF took
       THEN /\ prog' = Set(prog, t, (IF ws = <<>> THEN <<>> ELSE <<Wr(ws)>>) \o Bumps(H, bump)
                                   \o Unlocks(H, Range(Tail(H)), I(t).W0) \o <<Cas(LK(h1), lw[t], 0)>>)
            /\ acting' = Set(acting, t, rid[t])
            /\ Go(t, "rdone")
       ELSE Go(t, "idle") /\ nrep' = Set(nrep, t, nrep[t] - 1) /\ UNCHANGED <<prog, acting>>
    /\ took => UNCHANGED nrep
    /\ UNCHANGED <<mem, sb, pend, tw, tr, dead, budget, seq, wi, natt, lw, lrows, ngets, tries, gv, rid,
                   rbody, rw, intents, ghostVars>>

(* The split twin: the rows it took over; roll forward there.              *)
RSplit(t) ==
    LET H == I(t).H
        V == I(t).V
        held == {H[j] : j \in {i \in 1..Len(H) : Results(t)[i] = rw[t]}}
        atV == {h \in Range(H) : mem[VR(h)] = V[h]}
        allV == atV = Range(H)
        imgs == SelectSeq(intents[rid[t]].img, LAMBDA im : H[im.o] \in held)
        ws == IF allV THEN ImgWrites(H, V, imgs) ELSE <<>>
    IN
    /\ pc[t] = "rsplit" /\ DoorbellDone(t)
    /\ EndDoorbell(t)
    /\ prog' = Set(prog, t, (IF ws = <<>> THEN <<>> ELSE <<Wr(ws)>>) \o Bumps(H, held \cap atV)
                            \o Unlocks(H, held, lw[t]))
    /\ acting' = Set(acting, t, rid[t])
    /\ Go(t, "rdone")
    /\ UNCHANGED <<mem, sb, pend, tw, tr, dead, budget, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep, rid,
                   rbody, rw, intents, ghostVars>>

RDone(t) ==
    /\ pc[t] = "rdone" /\ DoorbellDone(t)
    /\ EndDoorbell(t) /\ Go(t, "idle") /\ acting' = Set(acting, t, 0)
    /\ UNCHANGED <<mem, sb, pend, tw, tr, dead, budget, prog, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep,
                   rid, rbody, rw, intents, ghostVars>>

(***************************************************************************)
(* Crashes.                                                                *)
(***************************************************************************)
(* t stops where it is; its READ is gone; its WRITEs and its atomic in     *)
(* flight stay (they land, or Drop loses them).                            *)
Crash(t) ==
    /\ t \in Crashable /\ Alive(t) /\ budget > 0 /\ pc[t] # "idle"
    /\ dead' = dead \cup {t} /\ budget' = budget - 1
    /\ tr' = Set(tr, t, NoRead)
    /\ UNCHANGED <<mem, sb, pend, op, tw, pc, prog, res, seq, wi, natt, lw, lrows, ngets, tries, gv, nrep, rid,
                   rbody, rw, intents, acting, ghostVars>>

(* The rest of a dead client's verbs in flight is lost (R20): later WRITEs *)
(* and atomics of its QP never pass a lost one (R6, R7, R9).               *)
Drop(t) ==
    /\ t \in dead /\ (tw[t][Home] # <<>> \/ op[t].st = "posted")
    /\ tw' = [tw EXCEPT ![t][Home] = <<>>]
    /\ op' = Set(op, t, IF op[t].st = "posted" THEN NoOp ELSE op[t])
    /\ UNCHANGED <<mem, sb, pend, tr>>

(***************************************************************************)
(* Memory-system steps, with the ghost: an intent takes effect at the      *)
(* first FETCH_ADD(+1) of its rows (R7: its images are all placed then).   *)
(***************************************************************************)
BumpGhost(t) ==
    LET id == acting[t]
        I1 == intents[id]
        nabs == [abs EXCEPT ![I1.key] = I1.val]
    IN
    IF op[t].kind = "faa" /\ op[t].val = 1 /\ id # 0 /\ id \notin done
    THEN /\ abs' = nabs /\ done' = done \cup {id}
         /\ during' = [u \in Threads |-> IF pc[u] \in {"g2", "grd"} THEN during[u] \cup {nabs[GetKey]}
                                         ELSE during[u]]
         /\ UNCHANGED <<written, wbad>>
    ELSE UNCHANGED ghostVars

Memory ==
    \E t \in Threads :
        \/ (\E l \in Locs : ReadWord(t, l)) /\ UNCHANGED ghostVars
        \/ PlaceWord(t, Home) /\ UNCHANGED ghostVars
        \/ TAtomicRead(t) /\ BumpGhost(t)
        \/ Drop(t) /\ UNCHANGED ghostVars

Thread(t) ==
    \/ Exec(t) \/ WInvoke(t) \/ WLocked(t) \/ WDone(t) \/ GInvoke(t) \/ G2(t) \/ GEnd(t)
    \/ (\E r \in Rows : RStart(t, r)) \/ RH1(t) \/ RTake(t) \/ RSplit(t) \/ RDone(t) \/ Crash(t)

Quiet(t) ==
    IF t \in dead THEN Settled(t)
    ELSE /\ pc[t] = "idle" /\ op[t].kind = "none" /\ tw[t][Home] = <<>>
         /\ t \in Writers => wi[t] > Len(Ops[t])
         /\ t \in Readers => ngets[t] = MaxGets
         /\ t \in Repairers => nrep[t] = MaxRepairs \/ \A r \in Rows : ~Startable(r)
Terminated == \A t \in Threads : Quiet(t)
Finished == Terminated /\ UNCHANGED vars

Next == (\E t \in Threads : Thread(t)) \/ (Memory /\ UNCHANGED protoVars) \/ Finished
Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
Free(r) == mem[LK(r)] = 0
Count(k) == Cardinality({r \in KeyRows[k] : KeyAt(r) = k})
BothFree(k) == \A r \in KeyRows[k] : Free(r)

UnlockedPublished == \A r \in Rows : Free(r) => Published(r)
NoKeyTwice == \A k \in Keys : BothFree(k) => Count(k) <= 1
NoLostKey == \A k \in Keys : BothFree(k) /\ abs[k] # 0 =>
                 \E r \in KeyRows[k] : KeyAt(r) = k /\ ValAt(r) = abs[k]
NoGhostKey == \A k \in Keys : BothFree(k) /\ abs[k] = 0 => Count(k) = 0
WriterReadsMap == ~wbad

Returning(t) == t \in Readers /\ pc[t] = "grd" /\ ReadDone(t) /\ Accept(t)
GetInTime == \A t \in Threads : Returning(t) => GetResult(t) \in during[t]
NoMix == \A t \in Threads : Returning(t) /\ HoldsKey(t) # {} => GetResult(t) \in written[GetKey]

Healed == Terminated => \A r \in Rows : Free(r) /\ Published(r)
=============================================================================
