"""Analyses over decoded instructions.

* ``stack_depths``: the stack-depth pass with (or, for the buggy variant,
  without) exception edges.  A handler is entered at ``depth + lasti + 1``
  (bytecode notes section 3.2 / 5.2).  Join conflicts and underflows are
  recorded, and the maximum is taken the way Dynamo's ``stacksize_analysis``
  does (emitted-code section 9.2).
* ``simulate``: an abstract interpretation with the *real* stack model
  (section 4.5) that tags every slot: NULL, bound ``__exit__`` of a
  ``BEFORE_WITH`` (X; 3.14: the ``__exit__`` of ``LOAD_SPECIAL`` and its
  self-or-NULL, X and XS), the two halves of a ``LOAD_METHOD`` pair, or a value
  with the instruction that produced it (provenance).
* ``block_chain``: the static block stack from the exception table
  (section 7.1).
* ``liveness`` / ``definitely_assigned``: fast locals.
"""

from .opcodes import (CALL_OPS, EXIT_SPECIAL_ARGS, HASJREL, LOCAL_READS,
                      NULL_AFTER_CALLABLE, OP, TERMINATORS,
                      UNCONDITIONAL_JUMPS, call_kw_names, method_load_pops,
                      pushed_nulls, real_pops_pushes, stack_effect)


def index_of(instrs):
    return {id(ins): k for k, ins in enumerate(instrs)}


def successors(instrs, idx=None):
    """Per instruction: list of (succ_index, is_jump_edge)."""
    if idx is None:
        idx = index_of(instrs)
    out = []
    n = len(instrs)
    for k, ins in enumerate(instrs):
        s = []
        if ins.op in HASJREL:
            s.append((idx[id(ins.target)], True))
        if ins.op not in TERMINATORS and ins.op not in UNCONDITIONAL_JUMPS:
            if k + 1 < n:
                s.append((k + 1, False))
        out.append(s)
    return out


class StackResult:
    def __init__(self):
        self.depths = {}        # index -> sorted list of depths seen on entry
        self.max_depth = 0
        self.conflicts = []     # (index, depths)
        self.underflows = []    # index
        self.falls_off = []     # index

    def depth(self, k):
        d = self.depths.get(k)
        return None if not d else d[0]

    def reachable(self, k):
        return k in self.depths


def stack_depths(instrs, exc_edges=True, start_depth=0, limit=100000):
    """Worklist stack-depth pass.  Every distinct entry depth of an
    instruction is propagated (so the maximum over conflicting joins is found,
    as Dynamo does), and conflicts are reported."""
    idx = index_of(instrs)
    succ = successors(instrs, idx)
    res = StackResult()
    seen = {}
    work = [(0, start_depth)]
    steps = 0
    while work:
        k, d = work.pop()
        s = seen.setdefault(k, set())
        if d in s:
            continue
        s.add(d)
        steps += 1
        if steps > limit:
            raise RuntimeError("stack-depth pass did not converge")
        ins = instrs[k]
        res.max_depth = max(res.max_depth, d)
        arg = ins.arg if not isinstance(ins.arg, str) else 0
        if exc_edges and ins.entry is not None:
            hd = ins.entry.depth + int(ins.entry.lasti) + 1
            res.max_depth = max(res.max_depth, hd)
            work.append((idx[id(ins.entry.handler)], hd))
        if not succ[k] and ins.op not in TERMINATORS and \
                ins.op not in UNCONDITIONAL_JUMPS:
            res.falls_off.append(k)
        for t, is_jump in succ[k]:
            if ins.op in HASJREL:
                eff = stack_effect(ins.op, 0, is_jump)
            else:
                eff = stack_effect(ins.op, arg, False)
            nd = d + eff
            if nd < 0:
                res.underflows.append(k)
                continue
            res.max_depth = max(res.max_depth, nd)
            work.append((t, nd))
        if ins.op in TERMINATORS:
            # the depth after a terminator still counts (e.g. RAISE_VARARGS)
            pass
    for k, s in seen.items():
        res.depths[k] = sorted(s)
        if len(s) > 1:
            res.conflicts.append((k, sorted(s)))
    res.conflicts.sort()
    return res


# ---------------------------------------------------------------------------
# Slot tags for the real-stack abstract interpretation

class Slot:
    __slots__ = ("kind", "prov")
    # kinds: "V" value, "N" NULL, "X" bound __exit__ (prov = BEFORE_WITH index;
    # 3.14: the __exit__ LOAD_SPECIAL loaded, prov = its index), "XS" the
    # self-or-NULL LOAD_SPECIAL pushed with it (3.14; may be NULL),
    # "M0"/"M1" LOAD_METHOD halves (prov = LOAD_METHOD index), "LASTI", "EXC",
    # "MN" a value the producer's table row says may be NULL (prov = the
    # producer; 3.15's GET_ITER index), "Q" conflicting/unknown nullness

    def __init__(self, kind, prov=None):
        self.kind = kind
        self.prov = prov

    def __eq__(self, o):
        return self.kind == o.kind and self.prov == o.prov

    def __hash__(self):
        return hash((self.kind, self.prov))

    def __repr__(self):
        return "%s%s" % (self.kind, "" if self.prov is None else "@%d" % self.prov)


_NONNULL = ("V", "M1", "LASTI", "EXC")


def _merge_slot(a, b):
    if a == b:
        return a
    if a.kind in _NONNULL and b.kind in _NONNULL:
        return Slot("V")
    return Slot("Q")


class SimResult:
    def __init__(self):
        self.states = {}        # index -> tuple(Slot) before the instruction
        self.conflicts = []     # (index, depth_a, depth_b)
        self.calls = {}         # CALL index -> (callable Slot, self Slot, [arg Slot], kwnames_const_index)
        self.with_mgr = {}      # BEFORE_WITH (3.14: LOAD_SPECIAL __exit__)
                                # index -> Slot of the manager


def simulate(instrs, start_depth=0):
    idx = index_of(instrs)
    succ = successors(instrs, idx)
    res = SimResult()
    states = res.states
    start = tuple(Slot("V") for _ in range(start_depth))
    states[0] = start
    work = [0]
    inwork = {0}
    while work:
        k = work.pop()
        inwork.discard(k)
        st = states[k]
        ins = instrs[k]
        # exception edge
        if ins.entry is not None:
            e = ins.entry
            if e.depth <= len(st):
                hs = st[:e.depth] + ((Slot("LASTI"),) if e.lasti else ()) + \
                    (Slot("EXC"),)
                _flow(res, idx[id(e.handler)], hs, work, inwork)
        for t, is_jump in succ[k]:
            ns = _transfer(res, instrs, k, st, is_jump)
            if ns is not None:
                _flow(res, t, ns, work, inwork)
    return res


def _flow(res, t, ns, work, inwork):
    old = res.states.get(t)
    if old is None:
        res.states[t] = ns
    else:
        if len(old) != len(ns):
            res.conflicts.append((t, len(old), len(ns)))
            return
        merged = tuple(_merge_slot(a, b) for a, b in zip(old, ns))
        if merged == old:
            return
        res.states[t] = merged
    if t not in inwork:
        inwork.add(t)
        work.append(t)


def _transfer(res, instrs, k, st, is_jump):
    ins = instrs[k]
    op = ins.op
    arg = ins.arg
    st = list(st)
    if op in (OP["PUSH_NULL"], OP["LOAD_GLOBAL"]):
        # LOAD_GLOBAL's NULL goes under the global (3.11, 3.12) or over it
        # (3.13): the table's NullOut mask says which pushed value it is
        for null in pushed_nulls(op, arg or 0):
            st.append(Slot("N" if null else "V", k))
    elif method_load_pops(op, arg):
        # 3.11 LOAD_METHOD, 3.12/3.13 LOAD_ATTR / LOAD_SUPER_ATTR with bit
        # 0.  M0 is the half that may be NULL: [M0 = meth|NULL, M1 =
        # self|attr] (3.11, 3.12) or [M1 = meth|attr, M0 = self|NULL] (3.13)
        npop = method_load_pops(op, arg)
        if npop > len(st):
            return None
        del st[len(st) - npop:]
        halves = ("M1", "M0") if NULL_AFTER_CALLABLE else ("M0", "M1")
        st.append(Slot(halves[0], k))
        st.append(Slot(halves[1], k))
    elif op in (OP.get("BEFORE_WITH"), OP.get("BEFORE_ASYNC_WITH")):
        if not st:
            return None
        res.with_mgr[k] = st.pop()
        st.append(Slot("X", k))
        st.append(Slot("V", k))
    elif op == OP.get("LOAD_SPECIAL") and arg in EXIT_SPECIAL_ARGS:
        # 3.14: [mgr] -> [__exit__, self-or-NULL] (the compiler's COPY 1
        # before it leaves the manager below, for LOAD_SPECIAL __enter__)
        if not st:
            return None
        res.with_mgr[k] = st.pop()
        st.append(Slot("X", k))
        st.append(Slot("XS", k))
    elif op == OP["SWAP"]:
        if arg > len(st):
            return None
        st[-1], st[-arg] = st[-arg], st[-1]
    elif op == OP["COPY"]:
        if arg > len(st):
            return None
        st.append(st[-arg])
    elif op in CALL_OPS:
        # calls[k] = (callable, NULL-or-self slot, args, kwnames const)
        n = arg
        top = 1 if op == OP.get("CALL_KW") else 0     # 3.13's kwnames tuple
        if n + 2 + top > len(st):
            return None
        kw = call_kw_names(instrs, k)
        base = len(st) - top - n - 2
        lo, hi = st[base], st[base + 1]
        fn, selfslot = (lo, hi) if NULL_AFTER_CALLABLE else (hi, lo)
        res.calls[k] = (fn, selfslot, st[base + 2:len(st) - top], kw)
        del st[base:]
        st.append(Slot("V", k))
    elif op == OP["PUSH_EXC_INFO"]:
        if not st:
            return None
        st.pop()
        st.append(Slot("V", k))
        st.append(Slot("EXC", k))
    else:
        a = 0 if (arg is None or isinstance(arg, str)) else arg
        pops, pushes = real_pops_pushes(op, a, is_jump)
        if pops > len(st):
            return None
        if pops:
            del st[len(st) - pops:]
        # a value the table says may be NULL (NullOut) is "MN": 3.15's
        # GET_ITER index (a tagged int over a list or tuple kept in place,
        # else NULL over the iterator), which is no object to hand over
        nulls = pushed_nulls(op, a) if not is_jump else []
        for i in range(pushes):
            may_null = i < len(nulls) and nulls[i]
            st.append(Slot("MN" if may_null else "V", k))
    return tuple(st)


# ---------------------------------------------------------------------------
# Block stack (bytecode notes section 7.1)

def handler_kind(instrs, idx, entry):
    """'with', 'try', 'cleanup', 'except-as', 'async-for', 'except*', '?'"""
    h = idx[id(entry.handler)]
    first = instrs[h]
    nxt = instrs[h + 1] if h + 1 < len(instrs) else None
    if first.op == OP["PUSH_EXC_INFO"]:
        if entry.lasti and nxt is not None and nxt.op == OP["WITH_EXCEPT_START"]:
            return "with"
        return "try" if not entry.lasti else "?"
    if first.op == OP["COPY"] and first.arg == 3 and nxt is not None and \
            nxt.op == OP["POP_EXCEPT"]:
        return "cleanup"
    if first.op == OP["LOAD_CONST"]:
        return "except-as"
    if first.op == OP["END_ASYNC_FOR"]:
        return "async-for"
    if first.op == OP["LIST_APPEND"]:
        return "except*"
    return "?"


def outer_entry(instrs, idx, entry):
    h = instrs[idx[id(entry.handler)]]
    if h.op == OP["PUSH_EXC_INFO"]:
        c = h.entry
        if c is None:
            return None
        return instrs[idx[id(c.handler)]].entry
    return h.entry


def block_chain(instrs, k, idx=None):
    """Block stack at instruction k, innermost first: list of Entry."""
    if idx is None:
        idx = index_of(instrs)
    chain = []
    e = instrs[k].entry
    seen = set()
    while e is not None:
        if id(e) in seen:
            raise ValueError("cyclic handler nesting")
        seen.add(id(e))
        chain.append(e)
        e = outer_entry(instrs, idx, e)
    return chain


# ---------------------------------------------------------------------------
# Fast locals

_LOAD_FAST = OP["LOAD_FAST"]
_STORE_FAST = OP["STORE_FAST"]
_DELETE_FAST = OP["DELETE_FAST"]


def _exc_succ(instrs, idx):
    return [idx[id(ins.entry.handler)] if ins.entry is not None else None
            for ins in instrs]


def liveness(instrs):
    """live-in sets per instruction (may-analysis, normal + exception edges)."""
    idx = index_of(instrs)
    succ = successors(instrs, idx)
    exc = _exc_succ(instrs, idx)
    n = len(instrs)
    preds = [[] for _ in range(n)]
    for k in range(n):
        for t, _ in succ[k]:
            preds[t].append(k)
        if exc[k] is not None:
            preds[exc[k]].append(k)
    live_in = [frozenset() for _ in range(n)]
    work = list(range(n))
    inwork = set(work)
    while work:
        k = work.pop()
        inwork.discard(k)
        out = set()
        for t, _ in succ[k]:
            out |= live_in[t]
        if exc[k] is not None:
            out |= live_in[exc[k]]
        ins = instrs[k]
        if ins.op == _STORE_FAST:
            out.discard(str(ins.arg))
        elif ins.op in LOCAL_READS or ins.op == _DELETE_FAST:
            out.add(str(ins.arg))
        new = frozenset(out)
        if new != live_in[k]:
            live_in[k] = new
            for p in preds[k]:
                if p not in inwork:
                    inwork.add(p)
                    work.append(p)
    return live_in


def assigned_locals(instrs, initial):
    """(must, may): locals definitely / possibly assigned before each
    reachable instruction (normal and exception edges)."""
    idx = index_of(instrs)
    succ = successors(instrs, idx)
    exc = _exc_succ(instrs, idx)
    init = frozenset(initial)
    must = {0: init}
    may = {0: init}
    work = [0]
    while work:
        k = work.pop()
        s_must, s_may = must[k], may[k]
        ins = instrs[k]
        a_must, a_may = s_must, s_may
        if ins.op == _STORE_FAST:
            a_must = s_must | {str(ins.arg)}
            a_may = s_may | {str(ins.arg)}
        elif ins.op == _DELETE_FAST:
            a_must = s_must - {str(ins.arg)}
            a_may = s_may - {str(ins.arg)}
        targets = [(t, a_must, a_may) for t, _ in succ[k]]
        if exc[k] is not None:
            targets.append((exc[k], s_must, s_may))
        for t, vm, vy in targets:
            om, oy = must.get(t), may.get(t)
            nm = vm if om is None else (om & vm)
            ny = vy if oy is None else (oy | vy)
            if om is None or nm != om or ny != oy:
                must[t] = nm
                may[t] = ny
                work.append(t)
    return must, may
