------------------------------- MODULE Verbs -------------------------------
(***************************************************************************)
(* The RDMA memory model of docs/memory-model.md (rules R1-R20), as state  *)
(* and steps that a protocol spec INSTANCEs or EXTENDS. The deterministic  *)
(* fabric (dev.remora.verbs.det.machine) implements the same state and the *)
(* same steps, one Java method per action below, in this order.           *)
(*                                                                         *)
(* What it models: node memories of 8-byte words; per-thread x86-TSO store *)
(* buffers whose entries are stores or verb doorbells (R1, R2); per-QP NIC *)
(* pipelines in which every work request (WR) is split into the NIC        *)
(* sub-actions of docs/memory-model.md, each one step:                     *)
(*   put : source read of each word -> remote write of each word ->        *)
(*         completion                                                      *)
(*   get : remote read of each word -> local write of each word ->         *)
(*         completion                                                      *)
(*   cas/faa : atomic read phase -> atomic write phase (none for a failed  *)
(*             CAS) -> local write of the old value -> completion          *)
(* A multi-word transfer is torn (R18): each word of a put's source read   *)
(* and remote write and of a get's remote read and local write is its own  *)
(* step, in any order; DATA_IN_ORDER orders only the writes at the         *)
(* receiving side (a put's remote writes, a get's local writes) in address *)
(* order. A one-word transfer has one step per phase. 8-byte words never   *)
(* tear.                                                                   *)
(*                                                                         *)
(* Same-QP ordering (R6-R10, R13) is expressed as enabling conditions; the *)
(* remote atomics are weak (R14: rao among remote atomics of one node; CPU *)
(* stores and puts may land between the phases unless ATOMIC_CAP = GLOB);  *)
(* completions are in posting order (R11).                                 *)
(*                                                                         *)
(* Errors (R17, R20). A WR may be refused (Wr[k].fail: bad rkey, bounds or *)
(* access -> REM_ACCESS_ERR; misaligned atomic -> REM_INV_REQ_ERR; bad     *)
(* local key -> LOC_PROT_ERR): it fails with no effect, the QP goes to     *)
(* ERROR, and every later WR of the QP completes WR_FLUSH_ERR with no      *)
(* effect; earlier WRs complete as they would have. Faults (Faults: a node *)
(* crash, a cut link, a QP forced into ERROR) may each happen once, at any *)
(* step, or never. They break QPs: on a broken QP nothing that needs the   *)
(* network completes successfully; the oldest unfinished WR completes      *)
(* RETRY_EXC_ERR (WR_FLUSH_ERR for a QP forced into ERROR) and every later *)
(* one WR_FLUSH_ERR; and every WR that had reached the NIC before the      *)
(* break is indeterminate: its target-side effects (a put's remote writes  *)
(* of words already read, an atomic's phases) may still happen, before or  *)
(* after its error completion, until they are lost (Abandon). A crashed    *)
(* node's NIC and CPUs stop; its store buffers are lost, its memory stays. *)
(* SC_MODE executes every operation as one step, with no store buffer.     *)
(*                                                                         *)
(* A QP is (issuing thread, target node). Work requests are numbered 1..WR *)
(* and described statically by Wr; a protocol spec chooses when a thread   *)
(* issues each one (Issue) and when it retires completions (Poll, Wait).   *)
(*                                                                         *)
(* How to break it: drop the "RELAXED_ORDERING \/ Placed(j)" conjunct of   *)
(* PutWriteOrdered and litmus L04 (MP on one QP) fails as TLC finds the    *)
(* flag placed before the data. VerbsMutantsTest (spec/mutants.md lists   *)
(* them) applies 30 such mutants and checks the catalogue catches each.    *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    ATOMIC_CAP,             \* "HCA": remote atomics atomic only among themselves; "GLOB": also vs CPUs (R15)
    PUT_COMPLETION,         \* "ON_ACK": a put completes once its data has left; "ON_PLACEMENT": once placed (R11)
    READ_PASSABLE_BY_WRITE, \* TRUE: a put's remote write may pass an earlier get's remote read on one QP (R8)
    RELAXED_ORDERING,       \* TRUE: the target MR is IBV_ACCESS_RELAXED_ORDERING, R6 is dropped (R19)
    DATA_IN_ORDER,          \* TRUE: the receiving side writes a transfer's words in address order (WHOLE_MSG, R18)
    SC_MODE,                \* TRUE: the strong model, one global interleaving of whole operations
    Threads,                \* the set of thread names
    NodeOf,                 \* NodeOf[t]: the node thread t runs on
    Locs,                   \* the set of memory words
    InitMem,                \* InitMem[l]: initial value of word l
    WR,                     \* the number of work requests; they are 1..WR
    Wr,                     \* Wr[k]: static description of WR k, a WrDesc
    Faults                  \* the faults that may happen, each at most once: a set of FaultDesc

(* The statuses a WR can fail with; SUCCESS is the absence of one (""). *)
Refusals == {"REM_ACCESS_ERR", "REM_INV_REQ_ERR", "LOC_PROT_ERR"}
ErrorStatuses == Refusals \cup {"RETRY_EXC_ERR", "WR_FLUSH_ERR"}

(* A static WR description. kind \in {"put","get","cas","faa"}; t the issuing  *)
(* thread; node the target; dst/src sequences of words (remote dst and local  *)
(* src for put, the other way round for get, <<word>> and <<>> for atomics);  *)
(* cmp/val the compare and swap values of cas, val the addend of faa; res the *)
(* local result word of an atomic; fence = IBV_SEND_FENCE; inline =           *)
(* IBV_SEND_INLINE; tag the RDMA^WAIT tag ("" for none); fail the status the  *)
(* NIC refuses the WR with ("" for a valid WR).                               *)
WrDesc == [kind : {"put", "get", "cas", "faa"}, t : Threads, node : STRING,
           dst : Seq(Locs), src : Seq(Locs), cmp : Int, val : Int, res : STRING,
           fence : BOOLEAN, inline : BOOLEAN, tag : STRING, fail : Refusals \cup {""}]

(* A fault: [kind |-> "crash", a |-> node, b |-> ""], [kind |-> "cut", a |->  *)
(* node, b |-> node] (the link between a and b) or [kind |-> "qperror", a |-> *)
(* thread, b |-> node] (the QP from thread a to node b goes to ERROR).        *)
FaultDesc == [kind : {"crash", "cut", "qperror"}, a : STRING, b : STRING]

(* Static sanity of the WR table: well-formed, and every verb targets a remote node. *)
ASSUME \A k \in 1..WR : Wr[k] \in WrDesc /\ Wr[k].node # NodeOf[Wr[k].t]
ASSUME Faults \subseteq FaultDesc

VARIABLES
    mem,     \* mem[l]: the value of word l in its home node's memory
    sb,      \* sb[t]: thread t's store buffer, oldest first; entries are stores or doorbells
    wr,      \* wr[k]: the dynamic state of WR k
    faulted  \* the faults that have happened

vars == <<mem, sb, wr, faulted>>

WRs == 1..WR
IsAtomic(k) == Wr[k].kind \in {"cas", "faa"}
Words(k) == 1..Len(Wr[k].dst)

(* Store-buffer entries. A doorbell is the MMIO write that posts WR k (R2).    *)
StoreEntry(l, v) == [loc |-> l, val |-> v, wr |-> 0]
DoorbellEntry(k) == [loc |-> "", val |-> 0, wr |-> k]

(* WR state: st is "idle" (not issued), "db" (doorbell buffered) or "nic"      *)
(* (visible to the NIC); rd = the words whose first NIC read is done (a put's  *)
(* source reads, a get's remote reads, {1} once an atomic's read phase ran),   *)
(* data = the values read (0 for a word not yet read); placed = the put words  *)
(* written at the target; aw = atomic write phase done or not needed; lw = the *)
(* words written locally (a get's destination, {1} once an atomic's result is  *)
(* written); cpl = completed; ret = retired by poll or wait; status = "" or    *)
(* the error it completes with; inflight = it had reached the NIC when its QP  *)
(* broke; lost = its remaining effects were lost with the broken QP.           *)
IdleWr(k) == [st |-> "idle", rd |-> {}, data |-> [i \in Words(k) |-> 0], placed |-> {}, aw |-> FALSE,
              lw |-> {}, cpl |-> FALSE, ret |-> FALSE, status |-> "", inflight |-> FALSE, lost |-> FALSE]

TypeOK ==
    /\ mem \in [Locs -> Int]
    /\ sb \in [Threads -> Seq([loc : Locs \cup {""}, val : Int, wr : 0..WR])]
    /\ \A k \in WRs : /\ wr[k].st \in {"idle", "db", "nic"}
                      /\ wr[k].rd \subseteq Words(k) /\ wr[k].placed \subseteq Words(k)
                      /\ wr[k].lw \subseteq Words(k) /\ DOMAIN wr[k].data = Words(k)
                      /\ {wr[k].aw, wr[k].cpl, wr[k].ret, wr[k].inflight, wr[k].lost} \subseteq BOOLEAN
                      /\ wr[k].status \in ErrorStatuses \cup {""}
    /\ faulted \subseteq Faults

VerbsInit ==
    /\ mem = InitMem
    /\ sb = [t \in Threads |-> <<>>]
    /\ wr = [k \in WRs |-> IdleWr(k)]
    /\ faulted = {}

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
ReadAll(k) == wr[k].rd = Words(k)
Placed(k) == wr[k].placed = Words(k)
LocalAll(k) == wr[k].lw = Words(k)
AtomicDone(k) == wr[k].rd # {} /\ wr[k].aw
InAtomicWindow(k) == IsAtomic(k) /\ wr[k].rd # {} /\ ~wr[k].aw

(* The old value of an atomic and the value its write phase stores.         *)
AtomicOld(k) == wr[k].data[1]
AtomicNew(k, old) == IF Wr[k].kind = "cas" THEN Wr[k].val ELSE old + Wr[k].val
AtomicWrites(k, old) == Wr[k].kind = "faa" \/ old = Wr[k].cmp   \* R16: a failed CAS writes nothing

(* The word positions an ordered (DATA_IN_ORDER) write of word i waits for.   *)
InOrder(i, done) == DATA_IN_ORDER => \A h \in 1..(i - 1) : h \in done

(***************************************************************************)
(* Errors and faults (R17, R20).                                           *)
(***************************************************************************)
Sender(k) == NodeOf[Wr[k].t]
Down(n) == \E f \in faulted : f.kind = "crash" /\ f.a = n
(* Whether WR k's QP is broken under the faults F: an end crashed, the link *)
(* was cut, or the QP was forced into ERROR.                                *)
BrokenIn(k, F) ==
    \E f \in F : \/ f.kind = "crash" /\ f.a \in {Sender(k), Wr[k].node}
                 \/ f.kind = "cut" /\ {f.a, f.b} = {Sender(k), Wr[k].node}
                 \/ f.kind = "qperror" /\ f.a = Wr[k].t /\ f.b = Wr[k].node
Broken(k) == BrokenIn(k, faulted)
(* The status the first unfinished WR of a broken QP completes with.        *)
BreakStatus(k) ==
    IF \E f \in faulted : f.kind # "qperror" /\ BrokenIn(k, {f}) THEN "RETRY_EXC_ERR" ELSE "WR_FLUSH_ERR"

Failed(k) == wr[k].status # ""
EarlierFailed(k) == \E j \in WRs : Earlier(j, k) /\ Failed(j)
(* The responder checks a QP's WRs in posting order: a refused WR, and every *)
(* WR after it on its QP, never has an effect (R17).                         *)
UnrefusedBefore(k) == \A j \in WRs : Earlier(j, k) => Wr[j].fail = ""
Unrefused(k) == Wr[k].fail = "" /\ UnrefusedBefore(k)

(* Requester-side steps (a put's source read, a get's or atomic's local      *)
(* write, a successful completion) need a QP that is not broken.            *)
RequesterOK(k) == wr[k].st = "nic" /\ Unrefused(k) /\ ~Broken(k)
(* Target-side steps (a put's remote write, a get's remote read, an atomic's *)
(* phases): on a broken QP only for a WR that was in flight, not yet lost,   *)
(* to a live target.                                                         *)
TargetOK(k) ==
    /\ wr[k].st = "nic" /\ Unrefused(k)
    /\ Broken(k) => wr[k].inflight /\ ~wr[k].lost /\ ~Down(Wr[k].node)

(***************************************************************************)
(* Same-QP ordering (R6-R10, R13). j is an earlier WR on k's QP.            *)
(***************************************************************************)
(* R13: a fenced WR starts only once every earlier read and atomic completed. *)
FenceOK(k) == Wr[k].fence => \A j \in WRs : Earlier(j, k) /\ Wr[j].kind # "put" => wr[j].cpl

(* A put's source reads follow earlier puts' source reads; nothing else      *)
(* orders them: in particular not an earlier get's or atomic's local write   *)
(* (R8).                                                                     *)
PutReadOrdered(k) == \A j \in WRs : Earlier(j, k) /\ Wr[j].kind = "put" => ReadAll(j)

(* A put's remote write: after earlier puts are placed (R6, unless R19's     *)
(* relaxed MR), after earlier atomics are done (R9; relaxed writes do not    *)
(* bypass atomics, R19), and after earlier gets' remote reads only if reads  *)
(* may not be passed (R8).                                                   *)
PutWriteOrdered(k) ==
    \A j \in WRs : Earlier(j, k) =>
        CASE Wr[j].kind = "put" -> RELAXED_ORDERING \/ Placed(j)
          [] Wr[j].kind = "get" -> READ_PASSABLE_BY_WRITE \/ ReadAll(j)
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

(* Completions are delivered in posting order per QP (R11), by the sender's  *)
(* NIC. A put completes once acked (its data has been read and sent) or,     *)
(* with ON_PLACEMENT, once placed; a get or atomic once its local write is   *)
(* done; a failed WR once it has its status.                                 *)
EarlierCompleted(k) == \A j \in WRs : Earlier(j, k) => wr[j].cpl
CanComplete(k) ==
    /\ wr[k].st = "nic" /\ ~wr[k].cpl /\ ~Down(Sender(k))
    /\ EarlierCompleted(k)
    /\ \/ Failed(k)
       \/ /\ RequesterOK(k)
          /\ IF Wr[k].kind = "put"
             THEN ReadAll(k) /\ (PUT_COMPLETION = "ON_PLACEMENT" => Placed(k))
             ELSE LocalAll(k) /\ (IsAtomic(k) => wr[k].aw)

(* Nothing about WR k's memory can change any more.                          *)
EffectsSettled(k) ==
    \/ ~Unrefused(k)
    \/ CASE Wr[k].kind = "put" ->
              \/ Placed(k)
              \/ Broken(k) /\ (wr[k].lost \/ ~wr[k].inflight \/ Down(Wr[k].node) \/ wr[k].rd \subseteq wr[k].placed)
         [] Wr[k].kind = "get" -> (ReadAll(k) /\ LocalAll(k)) \/ Broken(k)
         [] OTHER ->
              \/ AtomicDone(k) /\ LocalAll(k)
              \/ Broken(k) /\ (AtomicDone(k) \/ Down(Wr[k].node)
                               \/ (wr[k].rd = {} /\ (wr[k].lost \/ ~wr[k].inflight)))

(***************************************************************************)
(* CPU-side steps (a protocol spec adds its own pc and UNCHANGED).          *)
(***************************************************************************)
CpuStore(t, l, v) ==
    IF SC_MODE
    THEN /\ mem' = [mem EXCEPT ![l] = v]
         /\ UNCHANGED <<sb, wr, faulted>>
    ELSE /\ sb' = [sb EXCEPT ![t] = Append(@, StoreEntry(l, v))]
         /\ UNCHANGED <<mem, wr, faulted>>

(* The oldest entry of t's store buffer reaches memory, or its doorbell     *)
(* reaches the NIC.                                                         *)
Drain(t) ==
    /\ sb[t] # <<>> /\ ~Down(NodeOf[t])
    /\ LET e == Head(sb[t]) IN
       IF e.wr = 0
       THEN /\ mem' = [mem EXCEPT ![e.loc] = e.val]
            /\ UNCHANGED wr
       ELSE /\ wr' = [wr EXCEPT ![e.wr].st = "nic"]
            /\ UNCHANGED mem
    /\ sb' = [sb EXCEPT ![t] = Tail(@)]
    /\ UNCHANGED faulted

(* A locked CPU RMW adding v to l; usable only with an empty store buffer.   *)
(* Under ATOMIC_CAP = HCA it may fall inside a remote atomic's window (R14). *)
CpuLockedAdd(t, l, v) ==
    /\ sb[t] = <<>>
    /\ mem' = [mem EXCEPT ![l] = @ + v]
    /\ UNCHANGED <<sb, wr, faulted>>

(* The whole effect of WR k as one step (SC_MODE); a refused WR, a WR after  *)
(* a failure and a WR on a broken QP fail with no effect.                    *)
ScStatus(k) ==
    IF EarlierFailed(k) THEN "WR_FLUSH_ERR"
    ELSE IF Wr[k].fail # "" THEN Wr[k].fail
    ELSE IF Broken(k) THEN BreakStatus(k)
    ELSE ""
ScExecute(k) ==
    LET d == Wr[k]
        s == ScStatus(k)
    IN
    /\ mem' = IF s # "" THEN mem
              ELSE CASE d.kind = "put" -> WriteWords(mem, d.dst, [i \in Words(k) |-> mem[d.src[i]]])
                     [] d.kind = "get" -> WriteWords(mem, d.dst, [i \in Words(k) |-> mem[d.src[i]]])
                     [] OTHER ->
                          LET old == mem[d.dst[1]] IN
                          [mem EXCEPT ![d.dst[1]] = IF AtomicWrites(k, old) THEN AtomicNew(k, old) ELSE old,
                                      ![d.res] = old]
    /\ wr' = [wr EXCEPT ![k] = [IdleWr(k) EXCEPT !.st = "nic", !.rd = Words(k), !.placed = Words(k),
                                !.aw = TRUE, !.lw = Words(k), !.cpl = TRUE, !.status = s]]
    /\ UNCHANGED <<sb, faulted>>

(* Thread Wr[k].t posts WR k: its doorbell enters the store buffer (R2). An  *)
(* inline put copies its source now, through the CPU (R3).                  *)
Issue(k) ==
    IF SC_MODE THEN ScExecute(k)
    ELSE
    LET t == Wr[k].t IN
    /\ sb' = [sb EXCEPT ![t] = Append(@, DoorbellEntry(k))]
    /\ wr' = [wr EXCEPT ![k] =
                IF Wr[k].inline
                THEN [@ EXCEPT !.st = "db", !.rd = Words(k),
                               !.data = [i \in Words(k) |-> CpuLoad(t, Wr[k].src[i])]]
                ELSE [@ EXCEPT !.st = "db"]]
    /\ UNCHANGED <<mem, faulted>>

(* Retire completions: poll retires the oldest issued, unretired WR of t to  *)
(* n once complete (R12); wait retires all of t's issued WRs tagged d.       *)
Unretired(t, n) == {k \in WRs : Wr[k].t = t /\ Wr[k].node = n /\ wr[k].st # "idle" /\ ~wr[k].ret}
PollTarget(t, n) == CHOOSE k \in Unretired(t, n) : \A j \in Unretired(t, n) : k <= j
PollEnabled(t, n) == Unretired(t, n) # {} /\ wr[PollTarget(t, n)].cpl
Poll(t, n) ==
    /\ PollEnabled(t, n)
    /\ wr' = [wr EXCEPT ![PollTarget(t, n)].ret = TRUE]
    /\ UNCHANGED <<mem, sb, faulted>>

Tagged(t, d) == {k \in WRs : Wr[k].t = t /\ Wr[k].tag = d /\ wr[k].st # "idle"}
Wait(t, d) ==
    /\ \A k \in Tagged(t, d) : wr[k].cpl
    /\ wr' = [k \in WRs |-> IF k \in Tagged(t, d) THEN [wr[k] EXCEPT !.ret = TRUE] ELSE wr[k]]
    /\ UNCHANGED <<mem, sb, faulted>>

(***************************************************************************)
(* NIC sub-actions of WR k, in the order the deterministic machine lists    *)
(* them.                                                                    *)
(***************************************************************************)
(* One word of a put's source leaves (R3); words leave in any order.         *)
PutSourceRead(k, i) ==
    /\ Wr[k].kind = "put" /\ i \notin wr[k].rd
    /\ RequesterOK(k) /\ FenceOK(k) /\ PutReadOrdered(k)
    /\ wr' = [wr EXCEPT ![k].rd = @ \cup {i}, ![k].data[i] = mem[Wr[k].src[i]]]
    /\ UNCHANGED <<mem, sb, faulted>>

(* One word of a put lands at the target; words land in any order unless     *)
(* DATA_IN_ORDER (R18).                                                       *)
PutRemoteWrite(k, i) ==
    /\ Wr[k].kind = "put" /\ i \in wr[k].rd /\ i \notin wr[k].placed
    /\ TargetOK(k) /\ InOrder(i, wr[k].placed) /\ FenceOK(k) /\ PutWriteOrdered(k)
    /\ mem' = [mem EXCEPT ![Wr[k].dst[i]] = wr[k].data[i]]
    /\ wr' = [wr EXCEPT ![k].placed = @ \cup {i}]
    /\ UNCHANGED <<sb, faulted>>

(* One word of a get's source is read at the target, in any order (R18).    *)
(* On a broken QP the answer cannot come back, so the read has no effect    *)
(* and is not modelled.                                                     *)
GetRemoteRead(k, i) ==
    /\ Wr[k].kind = "get" /\ i \notin wr[k].rd
    /\ TargetOK(k) /\ ~Broken(k) /\ FenceOK(k) /\ ReadOrdered(k)
    /\ wr' = [wr EXCEPT ![k].rd = @ \cup {i}, ![k].data[i] = mem[Wr[k].src[i]]]
    /\ UNCHANGED <<mem, sb, faulted>>

(* One word of a get's data lands in local memory at any time before the    *)
(* completion (R4); in any order unless DATA_IN_ORDER (R18).                *)
GetLocalWrite(k, i) ==
    /\ Wr[k].kind = "get" /\ i \in wr[k].rd /\ i \notin wr[k].lw
    /\ RequesterOK(k) /\ InOrder(i, wr[k].lw)
    /\ mem' = [mem EXCEPT ![Wr[k].dst[i]] = wr[k].data[i]]
    /\ wr' = [wr EXCEPT ![k].lw = @ \cup {i}]
    /\ UNCHANGED <<sb, faulted>>

(* The read phase. Under GLOB the write phase happens in the same step, so   *)
(* nothing can land in between (R15).                                        *)
AtomicRead(k) ==
    /\ IsAtomic(k) /\ wr[k].rd = {}
    /\ TargetOK(k) /\ FenceOK(k) /\ ReadOrdered(k) /\ NoAtomicWindowAt(Wr[k].node)
    /\ LET l == Wr[k].dst[1]
           old == mem[l]
           writes == AtomicWrites(k, old)
           fused == ATOMIC_CAP = "GLOB"
       IN /\ wr' = [wr EXCEPT ![k].rd = {1}, ![k].data = <<old>>, ![k].aw = ~writes \/ fused]
          /\ mem' = IF writes /\ fused THEN [mem EXCEPT ![l] = AtomicNew(k, old)] ELSE mem
    /\ UNCHANGED <<sb, faulted>>

(* The write phase, which CPU stores and other QPs' puts may precede (R14).  *)
AtomicWrite(k) ==
    /\ InAtomicWindow(k) /\ TargetOK(k)
    /\ mem' = [mem EXCEPT ![Wr[k].dst[1]] = AtomicNew(k, AtomicOld(k))]
    /\ wr' = [wr EXCEPT ![k].aw = TRUE]
    /\ UNCHANGED <<sb, faulted>>

AtomicLocalWrite(k) ==
    /\ IsAtomic(k) /\ AtomicDone(k) /\ wr[k].lw = {}
    /\ RequesterOK(k)
    /\ mem' = [mem EXCEPT ![Wr[k].res] = AtomicOld(k)]
    /\ wr' = [wr EXCEPT ![k].lw = {1}]
    /\ UNCHANGED <<sb, faulted>>

(* WR k gets its error status, with no effect (R17):                         *)
(* a WR after a failed one: flushed;                                          *)
(* a refused WR, on a whole QP, once every earlier WR of its QP completed:    *)
(*   the responder answers a QP's WRs in order, so the refusal comes after    *)
(*   the answers to the WRs before it;                                        *)
(* the first WR of a broken QP whose earlier WRs all completed successfully. *)
(* So a QP has at most one error completion other than WR_FLUSH_ERR.        *)
Fail(k) ==
    /\ wr[k].st = "nic" /\ ~Failed(k) /\ ~wr[k].cpl /\ ~Down(Sender(k))
    /\ LET s == IF EarlierFailed(k) THEN "WR_FLUSH_ERR"
                ELSE IF Wr[k].fail # "" /\ ~Broken(k) /\ EarlierCompleted(k) THEN Wr[k].fail
                ELSE IF Broken(k) /\ EarlierCompleted(k) THEN BreakStatus(k)
                ELSE ""
       IN /\ s # ""
          /\ wr' = [wr EXCEPT ![k].status = s]
    /\ UNCHANGED <<mem, sb, faulted>>

Complete(k) ==
    /\ CanComplete(k)
    /\ wr' = [wr EXCEPT ![k].cpl = TRUE]
    /\ UNCHANGED <<mem, sb, faulted>>

(* The remaining effects of an in-flight WR of a broken QP are lost: words   *)
(* of a put not yet placed, an atomic whose read phase has not run. A put    *)
(* acked with success is at the target's NIC and still lands unless the      *)
(* target is down; an atomic that has read also writes.                      *)
Abandon(k) ==
    /\ Broken(k) /\ wr[k].inflight /\ ~wr[k].lost /\ ~Down(Wr[k].node)
    /\ wr[k].cpl => Failed(k)
    /\ IF Wr[k].kind = "put" THEN ~(wr[k].rd \subseteq wr[k].placed)
       ELSE IsAtomic(k) /\ wr[k].rd = {}
    /\ wr' = [wr EXCEPT ![k].lost = TRUE]
    /\ UNCHANGED <<mem, sb, faulted>>

NicStep(k) ==
    \/ \E i \in Words(k) : PutSourceRead(k, i)
    \/ \E i \in Words(k) : PutRemoteWrite(k, i)
    \/ \E i \in Words(k) : GetRemoteRead(k, i)
    \/ \E i \in Words(k) : GetLocalWrite(k, i)
    \/ AtomicRead(k)
    \/ AtomicWrite(k)
    \/ AtomicLocalWrite(k)
    \/ Fail(k)
    \/ Complete(k)
    \/ Abandon(k)

(* Fault f happens: QPs break; the WRs already at the NIC become in flight;  *)
(* a crashed node's store buffers are lost.                                  *)
Fault(f) ==
    /\ f \notin faulted
    /\ faulted' = faulted \cup {f}
    /\ wr' = [k \in WRs |-> IF wr[k].st = "nic" /\ ~Broken(k) /\ ~EffectsSettled(k) /\ BrokenIn(k, faulted \cup {f})
                            THEN [wr[k] EXCEPT !.inflight = TRUE] ELSE wr[k]]
    /\ sb' = [t \in Threads |-> IF f.kind = "crash" /\ NodeOf[t] = f.a THEN <<>> ELSE sb[t]]
    /\ UNCHANGED mem

(* Every issued WR has finished: completed (unless its sender crashed) and   *)
(* its effects settled; a doorbell lost with a crashed sender never issues.  *)
NicQuiescent ==
    \A k \in WRs : /\ wr[k].st = "db" => Down(Sender(k))
                   /\ wr[k].st = "nic" => (wr[k].cpl \/ Down(Sender(k))) /\ EffectsSettled(k)

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
