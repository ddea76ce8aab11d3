------------------------------- MODULE Verbs -------------------------------
(***************************************************************************)
(* The RDMA memory model of MEMORY-MODEL.md (rules R1-R20), as state and   *)
(* steps that a protocol spec INSTANCEs or EXTENDS.                         *)
(*                                                                         *)
(* What it models: node memories of 8-byte words; per-thread x86-TSO store *)
(* buffers whose entries are stores or verb doorbells (R1, R2); per-QP NIC *)
(* pipelines in which every work request (WR) is split into the NIC        *)
(* sub-actions of MEMORY-MODEL.md section 1, each one step:                *)
(*   put : local source read -> remote write of each word -> completion    *)
(*   get : remote read -> local write -> completion                        *)
(*   cas/faa : atomic read phase -> atomic write phase (none for a failed  *)
(*             CAS) -> local write of the old value -> completion          *)
(* with the same-QP ordering of R6-R10 and R13 as enabling conditions, the *)
(* weak remote atomics of R14 (rao among remote atomics of one node; CPU   *)
(* stores and puts may land between the phases unless ATOMIC_CAP = GLOB), *)
(* in-order completions (R11) and the tearing of multi-word puts (R18).    *)
(* SC_MODE executes every operation as one step, with no store buffer.     *)
(*                                                                         *)
(* A QP is (issuing thread, target node). Work requests are numbered 1..WR *)
(* and described statically by Wr; a protocol spec chooses when a thread   *)
(* issues each one (Issue) and when it retires completions (Retire).       *)
(*                                                                         *)
(* How to break it: drop the "RELAXED_ORDERING \/ Placed(j)" conjunct of   *)
(* PutWriteOrdered and litmus L04 (MP on one QP) fails as TLC finds the    *)
(* flag placed before the data.                                            *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    ATOMIC_CAP,             \* "HCA": remote atomics atomic only among themselves; "GLOB": also vs CPUs (R15)
    PUT_COMPLETION,         \* "ON_ACK": a put completes once its data has left; "ON_PLACEMENT": once placed (R11)
    READ_PASSABLE_BY_WRITE, \* TRUE: a put's remote write may pass an earlier get's remote read on one QP (R8)
    RELAXED_ORDERING,       \* TRUE: the target MR is IBV_ACCESS_RELAXED_ORDERING, R6 is dropped (R19)
    DATA_IN_ORDER,          \* TRUE: a multi-word put is placed in address order (WHOLE_MSG, R18)
    SC_MODE,                \* TRUE: the strong model, one global interleaving of whole operations (section 3)
    Threads,                \* the set of thread names
    NodeOf,                 \* NodeOf[t]: the node thread t runs on
    Locs,                   \* the set of memory words
    InitMem,                \* InitMem[l]: initial value of word l
    WR,                     \* the number of work requests; they are 1..WR
    Wr                      \* Wr[k]: static description of WR k, a WrDesc

(* A static WR description. kind \in {"put","get","cas","faa"}; t the issuing  *)
(* thread; node the target; dst/src sequences of words (remote dst and local  *)
(* src for put, the other way round for get, <<word>> and <<>> for atomics);  *)
(* cmp/val the compare and swap values of cas, val the addend of faa; res the *)
(* local result word of an atomic; fence = IBV_SEND_FENCE; inline =           *)
(* IBV_SEND_INLINE; tag the RDMA^WAIT tag ("" for none).                      *)
WrDesc == [kind : {"put", "get", "cas", "faa"}, t : Threads, node : STRING,
           dst : Seq(Locs), src : Seq(Locs), cmp : Int, val : Int, res : STRING,
           fence : BOOLEAN, inline : BOOLEAN, tag : STRING]

(* Static sanity of the WR table: well-formed, and every verb targets a remote node. *)
ASSUME \A k \in 1..WR : Wr[k] \in WrDesc /\ Wr[k].node # NodeOf[Wr[k].t]

VARIABLES
    mem,    \* mem[l]: the value of word l in its home node's memory
    sb,     \* sb[t]: thread t's store buffer, oldest first; entries are stores or doorbells
    wr      \* wr[k]: the dynamic state of WR k

vars == <<mem, sb, wr>>

WRs == 1..WR
IsAtomic(k) == Wr[k].kind \in {"cas", "faa"}
Words(k) == 1..Len(Wr[k].dst)

(* Store-buffer entries. A doorbell is the MMIO write that posts WR k (R2).    *)
StoreEntry(l, v) == [loc |-> l, val |-> v, wr |-> 0]
DoorbellEntry(k) == [loc |-> "", val |-> 0, wr |-> k]

(* WR state: st is "idle" (not issued), "db" (doorbell buffered) or "nic"      *)
(* (visible to the NIC); rd = first NIC read done (put source read, get remote *)
(* read, atomic read phase), data = the values read; placed = the put words    *)
(* already written at the target; aw = atomic write phase done or not needed;  *)
(* lw = local write done (get, atomic); cpl = completed; ret = retired by      *)
(* poll or wait.                                                               *)
IdleWr == [st |-> "idle", rd |-> FALSE, data |-> <<>>, placed |-> {}, aw |-> FALSE,
           lw |-> FALSE, cpl |-> FALSE, ret |-> FALSE]

TypeOK ==
    /\ mem \in [Locs -> Int]
    /\ sb \in [Threads -> Seq([loc : Locs \cup {""}, val : Int, wr : 0..WR])]
    /\ \A k \in WRs : /\ wr[k].st \in {"idle", "db", "nic"}
                      /\ wr[k].placed \subseteq Words(k)
                      /\ {wr[k].rd, wr[k].aw, wr[k].lw, wr[k].cpl, wr[k].ret} \subseteq BOOLEAN

VerbsInit ==
    /\ mem = InitMem
    /\ sb = [t \in Threads |-> <<>>]
    /\ wr = [k \in WRs |-> IdleWr]

(***************************************************************************)
(* Helpers.                                                                *)
(***************************************************************************)
WriteWords(m, ds, vs) ==
    [l \in DOMAIN m |-> IF \E i \in 1..Len(ds) : ds[i] = l
                        THEN vs[CHOOSE i \in 1..Len(ds) : ds[i] = l]
                        ELSE m[l]]

(* The value a CPU load of l by t returns: its newest buffered store to l,  *)
(* else memory (R1).                                                        *)
CpuLoad(t, l) ==
    LET hits == {i \in 1..Len(sb[t]) : sb[t][i].wr = 0 /\ sb[t][i].loc = l}
    IN  IF hits = {} THEN mem[l] ELSE sb[t][CHOOSE i \in hits : \A j \in hits : j <= i].val

SameQP(j, k) == Wr[j].t = Wr[k].t /\ Wr[j].node = Wr[k].node
Earlier(j, k) == j < k /\ SameQP(j, k)
Placed(k) == wr[k].placed = Words(k)
AtomicDone(k) == wr[k].rd /\ wr[k].aw
InAtomicWindow(k) == IsAtomic(k) /\ wr[k].rd /\ ~wr[k].aw

(* The old value of an atomic and the value its write phase stores.         *)
AtomicOld(k) == wr[k].data[1]
AtomicNew(k, old) == IF Wr[k].kind = "cas" THEN Wr[k].val ELSE old + Wr[k].val
AtomicWrites(k, old) == Wr[k].kind = "faa" \/ old = Wr[k].cmp   \* R16: a failed CAS writes nothing

(***************************************************************************)
(* Same-QP ordering (R6-R10, R13). j is an earlier WR on k's QP.            *)
(***************************************************************************)
(* R13: a fenced WR starts only once every earlier read and atomic completed. *)
FenceOK(k) == Wr[k].fence => \A j \in WRs : Earlier(j, k) /\ Wr[j].kind # "put" => wr[j].cpl

(* A put's source read follows earlier puts' source reads; nothing else      *)
(* orders it: in particular not an earlier get's or atomic's local write (R8). *)
PutReadOrdered(k) == \A j \in WRs : Earlier(j, k) /\ Wr[j].kind = "put" => wr[j].rd

(* A put's remote write: after earlier puts are placed (R6, unless R19's     *)
(* relaxed MR), after earlier atomics are done (R9; relaxed writes do not    *)
(* bypass atomics, R19), and after earlier gets' remote reads only if reads  *)
(* may not be passed (R8).                                                   *)
PutWriteOrdered(k) ==
    \A j \in WRs : Earlier(j, k) =>
        CASE Wr[j].kind = "put" -> RELAXED_ORDERING \/ Placed(j)
          [] Wr[j].kind = "get" -> READ_PASSABLE_BY_WRITE \/ wr[j].rd
          [] OTHER              -> AtomicDone(j)

(* A get's remote read or an atomic's read phase: after earlier puts are     *)
(* placed (R7, the read flush) and earlier atomics are done (R9). Earlier    *)
(* gets do not order it (a "?" of the stamp table: the weaker reading).      *)
ReadOrdered(k) ==
    \A j \in WRs : Earlier(j, k) =>
        CASE Wr[j].kind = "put" -> Placed(j)
          [] Wr[j].kind = "get" -> TRUE
          [] OTHER              -> AtomicDone(j)

(* rao: remote atomics at one node are mutually exclusive (R14).            *)
NoAtomicWindowAt(n) == \A j \in WRs : Wr[j].node = n => ~InAtomicWindow(j)

(* Completions are delivered in posting order per QP (R11). A put completes  *)
(* once acked (its data has been read and sent) or, with ON_PLACEMENT, once  *)
(* placed; a get or atomic once its local write is done.                    *)
CanComplete(k) ==
    /\ wr[k].st = "nic" /\ ~wr[k].cpl
    /\ \A j \in WRs : Earlier(j, k) => wr[j].cpl
    /\ IF Wr[k].kind = "put"
       THEN wr[k].rd /\ (PUT_COMPLETION = "ON_PLACEMENT" => Placed(k))
       ELSE wr[k].lw /\ (IsAtomic(k) => wr[k].aw)

(***************************************************************************)
(* CPU-side steps (a protocol spec adds its own pc and UNCHANGED).          *)
(***************************************************************************)
CpuStore(t, l, v) ==
    IF SC_MODE
    THEN /\ mem' = [mem EXCEPT ![l] = v]
         /\ UNCHANGED <<sb, wr>>
    ELSE /\ sb' = [sb EXCEPT ![t] = Append(@, StoreEntry(l, v))]
         /\ UNCHANGED <<mem, wr>>

(* The oldest entry of t's store buffer reaches memory, or its doorbell     *)
(* reaches the NIC.                                                         *)
Drain(t) ==
    /\ sb[t] # <<>>
    /\ LET e == Head(sb[t]) IN
       IF e.wr = 0
       THEN /\ mem' = [mem EXCEPT ![e.loc] = e.val]
            /\ UNCHANGED wr
       ELSE /\ wr' = [wr EXCEPT ![e.wr].st = "nic"]
            /\ UNCHANGED mem
    /\ sb' = [sb EXCEPT ![t] = Tail(@)]

(* A locked CPU RMW adding v to l; usable only with an empty store buffer.   *)
(* Under ATOMIC_CAP = HCA it may fall inside a remote atomic's window (R14). *)
CpuLockedAdd(t, l, v) ==
    /\ sb[t] = <<>>
    /\ mem' = [mem EXCEPT ![l] = @ + v]
    /\ UNCHANGED <<sb, wr>>

(* The whole effect of WR k as one step (SC_MODE).                          *)
ScExecute(k) ==
    LET d == Wr[k] IN
    /\ mem' = CASE d.kind = "put" -> WriteWords(mem, d.dst, [i \in Words(k) |-> mem[d.src[i]]])
                [] d.kind = "get" -> WriteWords(mem, d.dst, [i \in Words(k) |-> mem[d.src[i]]])
                [] OTHER ->
                     LET old == mem[d.dst[1]] IN
                     [mem EXCEPT ![d.dst[1]] = IF AtomicWrites(k, old) THEN AtomicNew(k, old) ELSE old,
                                 ![d.res] = old]
    /\ wr' = [wr EXCEPT ![k] = [st |-> "nic", rd |-> TRUE, data |-> <<>>, placed |-> Words(k),
                                aw |-> TRUE, lw |-> TRUE, cpl |-> TRUE, ret |-> FALSE]]
    /\ UNCHANGED sb

(* Thread Wr[k].t posts WR k: its doorbell enters the store buffer (R2). An  *)
(* inline put copies its source now, through the CPU (R3).                  *)
Issue(k) ==
    IF SC_MODE THEN ScExecute(k)
    ELSE
    LET t == Wr[k].t IN
    /\ sb' = [sb EXCEPT ![t] = Append(@, DoorbellEntry(k))]
    /\ wr' = [wr EXCEPT ![k] =
                IF Wr[k].inline
                THEN [@ EXCEPT !.st = "db", !.rd = TRUE,
                               !.data = [i \in Words(k) |-> CpuLoad(t, Wr[k].src[i])]]
                ELSE [@ EXCEPT !.st = "db"]]
    /\ UNCHANGED mem

(* Retire completions: poll retires the oldest issued, unretired WR of t to  *)
(* n once complete (R12); wait retires all of t's issued WRs tagged d.       *)
Unretired(t, n) == {k \in WRs : Wr[k].t = t /\ Wr[k].node = n /\ wr[k].st # "idle" /\ ~wr[k].ret}
PollEnabled(t, n) ==
    Unretired(t, n) # {} /\ wr[CHOOSE k \in Unretired(t, n) : \A j \in Unretired(t, n) : k <= j].cpl
Poll(t, n) ==
    LET k == CHOOSE k \in Unretired(t, n) : \A j \in Unretired(t, n) : k <= j IN
    /\ wr[k].cpl
    /\ wr' = [wr EXCEPT ![k].ret = TRUE]
    /\ UNCHANGED <<mem, sb>>
(* A retired WR may be reset and posted again, as verbs code reuses its work   *)
(* request objects (a spinning lock re-posts one CAS).                         *)
Recycle(k) ==
    /\ wr[k].ret
    /\ wr' = [wr EXCEPT ![k] = IdleWr]
    /\ UNCHANGED <<mem, sb>>

Tagged(t, d) == {k \in WRs : Wr[k].t = t /\ Wr[k].tag = d /\ wr[k].st # "idle"}
Wait(t, d) ==
    /\ \A k \in Tagged(t, d) : wr[k].cpl
    /\ wr' = [k \in WRs |-> IF k \in Tagged(t, d) THEN [wr[k] EXCEPT !.ret = TRUE] ELSE wr[k]]
    /\ UNCHANGED <<mem, sb>>

(***************************************************************************)
(* NIC sub-actions of WR k.                                                 *)
(***************************************************************************)
PutSourceRead(k) ==
    /\ Wr[k].kind = "put" /\ wr[k].st = "nic" /\ ~wr[k].rd
    /\ FenceOK(k) /\ PutReadOrdered(k)
    /\ wr' = [wr EXCEPT ![k].rd = TRUE, ![k].data = [i \in Words(k) |-> mem[Wr[k].src[i]]]]
    /\ UNCHANGED <<mem, sb>>

(* One word of a put lands at the target; words land in any order unless     *)
(* DATA_IN_ORDER (R18).                                                       *)
PutRemoteWrite(k, i) ==
    /\ Wr[k].kind = "put" /\ wr[k].st = "nic" /\ wr[k].rd /\ i \notin wr[k].placed
    /\ DATA_IN_ORDER => \A h \in Words(k) : h < i => h \in wr[k].placed
    /\ FenceOK(k) /\ PutWriteOrdered(k)
    /\ mem' = [mem EXCEPT ![Wr[k].dst[i]] = wr[k].data[i]]
    /\ wr' = [wr EXCEPT ![k].placed = @ \cup {i}]
    /\ UNCHANGED sb

GetRemoteRead(k) ==
    /\ Wr[k].kind = "get" /\ wr[k].st = "nic" /\ ~wr[k].rd
    /\ FenceOK(k) /\ ReadOrdered(k)
    /\ wr' = [wr EXCEPT ![k].rd = TRUE, ![k].data = [i \in Words(k) |-> mem[Wr[k].src[i]]]]
    /\ UNCHANGED <<mem, sb>>

(* The get's data lands in local memory at any time before completion (R4). *)
GetLocalWrite(k) ==
    /\ Wr[k].kind = "get" /\ wr[k].rd /\ ~wr[k].lw
    /\ mem' = WriteWords(mem, Wr[k].dst, wr[k].data)
    /\ wr' = [wr EXCEPT ![k].lw = TRUE]
    /\ UNCHANGED sb

(* The read phase. Under GLOB the write phase happens in the same step, so   *)
(* nothing can land in between (R15).                                        *)
AtomicRead(k) ==
    /\ IsAtomic(k) /\ wr[k].st = "nic" /\ ~wr[k].rd
    /\ FenceOK(k) /\ ReadOrdered(k) /\ NoAtomicWindowAt(Wr[k].node)
    /\ LET l == Wr[k].dst[1]
           old == mem[l]
           writes == AtomicWrites(k, old)
           fused == ATOMIC_CAP = "GLOB"
       IN /\ wr' = [wr EXCEPT ![k].rd = TRUE, ![k].data = <<old>>, ![k].aw = ~writes \/ fused]
          /\ mem' = IF writes /\ fused THEN [mem EXCEPT ![l] = AtomicNew(k, old)] ELSE mem
    /\ UNCHANGED sb

(* The write phase, which CPU stores and other QPs' puts may precede (R14).  *)
AtomicWrite(k) ==
    /\ InAtomicWindow(k)
    /\ mem' = [mem EXCEPT ![Wr[k].dst[1]] = AtomicNew(k, AtomicOld(k))]
    /\ wr' = [wr EXCEPT ![k].aw = TRUE]
    /\ UNCHANGED sb

AtomicLocalWrite(k) ==
    /\ IsAtomic(k) /\ AtomicDone(k) /\ ~wr[k].lw
    /\ mem' = [mem EXCEPT ![Wr[k].res] = AtomicOld(k)]
    /\ wr' = [wr EXCEPT ![k].lw = TRUE]
    /\ UNCHANGED sb

Complete(k) ==
    /\ CanComplete(k)
    /\ wr' = [wr EXCEPT ![k].cpl = TRUE]
    /\ UNCHANGED <<mem, sb>>

NicStep(k) ==
    \/ PutSourceRead(k)
    \/ \E i \in Words(k) : PutRemoteWrite(k, i)
    \/ GetRemoteRead(k)
    \/ GetLocalWrite(k)
    \/ AtomicRead(k)
    \/ AtomicWrite(k)
    \/ AtomicLocalWrite(k)
    \/ Complete(k)

(* Every issued WR has finished: completed, every word placed, every atomic  *)
(* write phase done.                                                         *)
NicQuiescent ==
    \A k \in WRs : wr[k].st # "idle" =>
        /\ wr[k].cpl
        /\ Wr[k].kind = "put" => Placed(k)
        /\ IsAtomic(k) => AtomicDone(k)

(***************************************************************************)
(* Exported safety property: the word of a remote atomic is undisturbed      *)
(* between its read and write phases. It holds under ATOMIC_CAP = GLOB; under *)
(* HCA a CPU store, a locked CPU RMW or another QP's put breaks it (L11-L13, *)
(* L16), so a protocol that lets CPUs write its atomic words must not rely  *)
(* on it.                                                                    *)
(***************************************************************************)
NoTornAtomicWord ==
    \A k \in WRs : InAtomicWindow(k) => mem[Wr[k].dst[1]] = AtomicOld(k)
=============================================================================
