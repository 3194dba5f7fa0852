"""The graph-break rewriter: original frame, resume function, stand-in graph.

See README.md for the shapes and the design choices; docs/emitted-code.md
sections 4, 5, 6 and 8 for what they reproduce.
"""

import itertools
import types

from . import _tables, runtime
from .analysis import (Slot, assigned_locals, block_chain, handler_kind,
                       index_of, liveness, simulate, stack_depths,
                       successors)
from .asm import (Entry, Instr, Local, assemble, decode,
                  ranges_to_entries)
from .opcodes import (CO_VARARGS, CO_VARKEYWORDS, GENERATOR_LIKE, OP,
                      CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR,
                      CO_ITERABLE_COROUTINE, COMPARE_ARGS, HAS_PRECALL,
                      HAS_LOAD_METHOD, HAS_TO_BOOL, NULL_AFTER_CALLABLE,
                      CALL_OPS, POP_JUMP_FORWARD_IF_TRUE, TRAITS,
                      ARG, ENTER_SPECIAL_ARGS, HAS_BEFORE_WITH,
                      HAS_NOT_TAKEN, POP_TOP_TAKES_NULL, SMALL_INTS, SUBSCRIPT,
                      COMMON_CONSTANTS,
                      WITH_EXIT_SLOTS,
                      call_group_start, may_raise, name_arg, name_index)

VARIANTS = (
    "correct",
    "stacksize-no-exc-edges",
    "entries-not-redirected",
    "entered-twice",
    "exit-missing-on-exception",
    "redirected-wrong-depth",
    "uncovered-body-instruction",
    "handler-reads-first-frame-local",
    "mode-leaked-on-exception",
    "operand-flipped",
    "mode-class-handed",
    "body-entries-dropped",
    "list-replay",
    "list-replay-pop-forgotten",
)

# the Dynamo-shaped list replay (set_stack([graph_out_0[k], ...]))
LIST_REPLAY_VARIANTS = ("list-replay", "list-replay-pop-forgotten")
# variants that need an active torch-function mode at the break
MODE_ONLY_VARIANTS = ("entered-twice", "handler-reads-first-frame-local",
                      "mode-leaked-on-exception", "mode-class-handed",
                      "list-replay", "list-replay-pop-forgotten")

# What pyverify reports for each variant (see README.md, "Expected check
# ids"; measured with pyverify check on every fixture).  "smt:<reason>" means
# no single-code-object pass can see it; the pair-level proof (B2 of
# emitted-code section 11.3) can.  entries-not-redirected is "ok": with the
# original body copied verbatim the old handler is byte-identical to the new
# one and reachable, so the code is semantically equivalent (only the shape
# rule R1 of section 11.2 distinguishes it).  stacksize-no-exc-edges is
# refined per fixture in rewrite().
EXPECT = {
    "correct": "ok",
    "stacksize-no-exc-edges": "stacksize-too-small",
    "entries-not-redirected": "ok",
    "entered-twice": "smt:mode-pushed-twice",
    "exit-missing-on-exception": "context-not-exited",
    "redirected-wrong-depth": "with-handler-mismatch",
    "uncovered-body-instruction": "context-not-exited",
    "handler-reads-first-frame-local": "with-handler-mismatch",
    "mode-leaked-on-exception": "smt:mode-leaked",
    "operand-flipped": "smt:operand-flipped",
    # the resume prologue's BEFORE_WITH enters a real mode: pushed twice
    "mode-class-handed": "smt:mode-pushed-twice",
    # only instructions that cannot raise by themselves are uncovered: an
    # exception a trace function raises there (the tracing tier) leaves the
    # resume function with the context entered
    "body-entries-dropped": "with-body-uncovered",
    # a correct frame (Dynamo's replay shape)
    "list-replay": "ok",
    "list-replay-pop-forgotten": "smt:mode-leaked",
}

# operand-flipped: the resume body differs from the original in one
# instruction's argument only -- the opcode, the stack effect and every
# table index stay (a prover that compares operations by opcode and resolved
# operand alone takes the two for the same operation).  Each rule maps an
# argument to another with the same stack effect.
_CMP_NEGATION = {0: 5, 1: 4, 2: 3, 3: 2, 4: 1, 5: 0}     # < <= == != > >=
# COMPARE_OP's argument per comparison, as the running compiler writes it
# (3.11: the index; 3.12: index << 4 | a result mask)
_CMP_ARG_NEGATION = {args[i]: args[j] for args in COMPARE_ARGS
                     for i, j in _CMP_NEGATION.items()}


def _flip_binary_op(a):
    if a >= 26:         # 3.14's BINARY_OP [] (a subscript): no operator
        return a
    base, inplace = a % 13, a // 13
    return inplace * 13 + (base + 1) % 13


OPERAND_FLIPS = {
    "IS_OP": lambda a: a ^ 1,                       # is <-> is not
    "CONTAINS_OP": lambda a: a ^ 1,                 # in <-> not in
    "COMPARE_OP": lambda a: _CMP_ARG_NEGATION.get(a, a),
    "BINARY_OP": _flip_binary_op,                   # + -> &, ... (same arity)
    "FORMAT_VALUE": lambda a: (a & 4) | (((a & 3) + 1) % 4),   # conversion
    "CONVERT_VALUE": lambda a: a % 3 + 1,           # 3.13: !s -> !r -> !a
    "UNPACK_EX": lambda a: ((a & 0xFF) << 8) | (a >> 8),       # swap counts
}

# The rewriter's mode-stack module as Environment.def names it (the global,
# its operations by effect, its no-op-enter class modestack.NoEnterMode).
_ENV_ID = "RewriterModeStack"
MODESTACK_GLOBAL, = (g["pattern"] for g in _tables.ENVIRONMENT["globals"]
                     if g["id"] == _ENV_ID)
MODE_OP = {o["effect"]: o["attribute"] for o in _tables.ENVIRONMENT["mode_ops"]
           if o["module"] == _ENV_ID}
NO_ENTER_CLASS, = (c["attribute"] for c in _tables.ENVIRONMENT["classes"]
                   if c["module"] == _ENV_ID and c["kind"] == "NoEnterMode")
GRAPH_OUT = "graph_out_0"               # Dynamo's name for the output tuple
PREFIX = runtime._PREFIX

_counter = itertools.count()


class RewriteError(ValueError):
    """The rewriter refuses this function / break point."""

    def __init__(self, msg, reason=None):
        super().__init__(msg)
        self.reason = reason or msg


class VariantNotApplicable(RewriteError):
    pass


def reset_counter():
    global _counter
    _counter = itertools.count()


# ---------------------------------------------------------------------------
# Analysis of the break point

class StaticCtor:
    """``with G(c0, c1, ..., k=c)``: a global callable called with constants."""

    def __init__(self, global_name, args, kwnames):
        self.global_name = global_name
        self.args = args            # const values
        self.kwnames = kwnames      # tuple of str or None

    def __repr__(self):
        return "StaticCtor(%s, %r, %r)" % (self.global_name, self.args,
                                           self.kwnames)


class Context:
    def __init__(self, index, kind, handler, handler_offset, stack_index,
                 before_with, ctor):
        self.index = index              # 0 = outermost
        self.kind = kind                # "with" | "mode"
        self.handler = handler          # Instr in the original
        self.handler_offset = handler_offset
        self.stack_index = stack_index
        self.before_with = before_with  # index of BEFORE_WITH in the original
        self.ctor = ctor                # StaticCtor or None

    def as_dict(self):
        return {"kind": self.kind, "handler": self.handler_offset,
                "stack_index": self.stack_index}


class BreakInfo:
    pass


def _code_of(func):
    if isinstance(func, types.CodeType):
        return func, None
    if isinstance(func, types.MethodType):
        func = func.__func__
    if not isinstance(func, types.FunctionType):
        raise TypeError("rewrite() needs a plain Python function or a code "
                        "object, not %r" % type(func).__name__)
    return func.__code__, func


def check_function(code):
    flags = code.co_flags
    if flags & GENERATOR_LIKE:
        what = ("an async generator" if flags & CO_ASYNC_GENERATOR else
                "a coroutine" if flags & (CO_COROUTINE | CO_ITERABLE_COROUTINE)
                else "a generator" if flags & CO_GENERATOR else "generator-like")
        raise RewriteError("%s is %s function: generators, coroutines and "
                           "async generators cannot be split at a graph break "
                           "(their frames suspend; resume functions are plain "
                           "functions)" % (code.co_qualname, what),
                           reason="generator-or-coroutine")
    if not flags & 1:     # CO_OPTIMIZED
        raise RewriteError("%s is not an optimized function body (module or "
                           "class body)" % code.co_qualname,
                           reason="not-optimized")
    if code.co_cellvars:
        raise RewriteError("%s has cell variables %r: carrying cells into the "
                           "resume function is not supported"
                           % (code.co_qualname, code.co_cellvars),
                           reason="cell-variables")


class _CodeFacts:
    """What analyze_break reads of a code object that does not depend on the
    break: its instructions and their analyses, each made on first use (an
    analysis that raises raises again at its next use, as without sharing).
    break_points shares one across every CALL of the code; the rewrite gets
    its own (it edits the instructions)."""

    def __init__(self, code):
        self.instrs = decode(code)
        self.idx = index_of(self.instrs)
        self.by_off = {ins.orig: k for k, ins in enumerate(self.instrs)}
        self._sim = self._live = self._assigned = None
        self._argnames = _arg_names(code)

    @property
    def sim(self):
        if self._sim is None:
            self._sim = simulate(self.instrs)
        return self._sim

    @property
    def live(self):
        if self._live is None:
            self._live = liveness(self.instrs)
        return self._live

    @property
    def assigned(self):
        if self._assigned is None:
            self._assigned = assigned_locals(self.instrs, self._argnames)
        return self._assigned


def analyze_break(code, break_offset, modes=(), assume_bound=False,
                  facts=None):
    check_function(code)
    if facts is None:
        facts = _CodeFacts(code)
    instrs, idx, by_off = facts.instrs, facts.idx, facts.by_off
    if break_offset not in by_off:
        raise RewriteError("offset %d is not an instruction start"
                           % break_offset, reason="bad-offset")
    kc = by_off[break_offset]
    call = instrs[kc]
    if call.op not in CALL_OPS:
        raise RewriteError("the instruction at %d is %s, not CALL"
                           % (break_offset, call.name), reason="not-a-call")
    kg = call_group_start(instrs, kc)
    if kg is None:
        raise RewriteError("CALL at %d is not preceded by its PRECALL"
                           % break_offset, reason="no-precall")
    sim = facts.sim
    if kg not in sim.states or kc not in sim.states:
        raise RewriteError("the CALL at %d is unreachable" % break_offset,
                           reason="unreachable")
    # --- block stack at the break (bytecode notes 7.1) -------------------
    chain = block_chain(instrs, kc, idx)
    for k in range(kg, kc):
        if instrs[k].entry is not call.entry:
            raise RewriteError("the call's KW_NAMES/PRECALL and CALL are under "
                               "different handlers", reason="split-call")
    for ent in chain:
        kind = handler_kind(instrs, idx, ent)
        if kind != "with":
            raise RewriteError("no split inside try or a handler (the break "
                               "at %d is under a %s block, handler %d)"
                               % (break_offset, kind, ent.handler.orig),
                               reason="inside-try-or-handler")
    chain = list(reversed(chain))       # outermost first
    # the stack at the start of the call group (3.13's CALL_KW group starts
    # with the LOAD_CONST of the keyword names; 3.11's KW_NAMES and PRECALL
    # move nothing)
    state = sim.states[kg]
    for s in state:
        if s.kind == "Q":
            raise RewriteError("a stack slot at the break is NULL on some "
                               "paths only", reason="ambiguous-stack")
    n = call.arg
    m = len(state)
    callable_base = m - n - 2
    xslots = {j for j, s in enumerate(state) if s.kind == "X"}
    contexts = []
    modes = tuple(sorted(set(modes)))
    for i, ent in enumerate(chain):
        # the handler keeps the with's exit slots (WITH_EXIT_SLOTS: 3.14's
        # __exit__ and its self) below its depth; stack_index is the first
        si = ent.depth - WITH_EXIT_SLOTS
        if not (0 <= si and si + WITH_EXIT_SLOTS <= m) or \
                state[si].kind != "X" or \
                any(state[si + d] != Slot("XS", state[si].prov)
                    for d in range(1, WITH_EXIT_SLOTS)):
            raise RewriteError("the with block %d (handler %d) has no bound "
                               "__exit__ at stack slot %d"
                               % (i, ent.handler.orig, si),
                               reason="no-exit-slot")
        bw = state[si].prov
        ctor = _static_ctor(code, instrs, sim, bw)
        contexts.append(Context(i, "mode" if i in modes else "with",
                                ent.handler, ent.handler.orig, si, bw, ctor))
    for mi in modes:
        if not 0 <= mi < len(contexts):
            raise RewriteError("mode index %d out of range: %d active "
                               "context(s)" % (mi, len(contexts)),
                               reason="bad-mode-index")
    if kc > 0 and instrs[kc - 1].op == OP.get("LOAD_SPECIAL") and \
            instrs[kc - 1].arg in ENTER_SPECIAL_ARGS:
        # 3.14: the with's own enter, CALL 0 of LOAD_SPECIAL __enter__
        raise RewriteError("the CALL at %d is a with's enter (its __exit__ "
                           "is on the stack, the with not yet active)"
                           % break_offset, reason="with-enter-call")
    if xslots != {c.stack_index for c in contexts}:
        raise RewriteError("the stack at the break holds a bound __exit__ of "
                           "a with block that is not active (a break at a "
                           "with's exit call)", reason="exit-call")
    if callable_base < 0 or callable_base <= max(
            (j + WITH_EXIT_SLOTS - 1 for j in xslots), default=-1):
        raise RewriteError("the call consumes a context's __exit__ slot",
                           reason="exit-call")
    # NULL layout: LOAD_METHOD halves become NULL + bound attribute; 3.14's
    # exit self-or-NULL slot (XS) becomes NULL too: the graph helper loads a
    # bound __exit__ (build_graph_helper), the frame restores a NULL there,
    # and the resume prologue's enter pushes the slot itself
    # 3.15's loop index (GET_ITER's second output, "MN": a tagged int over
    # a list or tuple kept in place, else NULL over the iterator) becomes
    # NULL too: the graph helper iterates an iterator there (iter() before
    # that GET_ITER), and a NULL index over an iterator is what GET_ITER
    # leaves for one; the frame restores the NULL, the resume prologue
    # pushes it
    nulls = []
    method_loads = set()
    iter_gets = set()
    for j, s in enumerate(state):
        if s.kind == "MN":
            if instrs[s.prov].op != OP.get("GET_ITER"):
                raise RewriteError("a stack slot at the break may be NULL "
                                   "(%s's output)" % instrs[s.prov].name,
                                   reason="ambiguous-stack")
            iter_gets.add(s.prov)
        if s.kind in ("N", "M0", "XS", "MN"):
            nulls.append(j)
        if s.kind in ("M0", "M1"):
            method_loads.add(s.prov)
    # --- locals ------------------------------------------------------------
    argnames = _arg_names(code)
    live = facts.live
    must, may = facts.assigned
    kr = kc + 1
    resume_live = set(live[kr]) if kr < len(instrs) else set()
    defined = must.get(kc, frozenset())
    maybe_unbound = sorted((resume_live & may.get(kc, frozenset())) - defined)
    if maybe_unbound and assume_bound:
        defined = defined | set(maybe_unbound)
    elif maybe_unbound:
        # Dynamo passes the locals that are bound at the break; a local that
        # is bound on some paths only cannot be passed (or left out) safely.
        raise RewriteError("live local(s) %s may or may not be bound at the "
                           "break" % ", ".join(maybe_unbound),
                           reason="maybe-unbound-local")
    resume_live &= defined
    live_locals = [v for v in code.co_varnames if v in resume_live]
    info = BreakInfo()
    info.code = code
    info.instrs = instrs
    info.idx = idx
    info.sim = sim
    info.k_call = kc
    info.k_group = kg
    info.break_offset = break_offset
    info.resume_offset = instrs[kr].orig
    info.k_resume = kr
    info.state = state
    info.callable_base = callable_base
    info.nulls = set(nulls)
    info.exit_selves = {j for j, s in enumerate(state) if s.kind == "XS"}
    info.method_loads = method_loads
    info.iter_gets = iter_gets
    info.contexts = contexts
    info.argnames = argnames
    info.live_locals = live_locals
    info.kwnames = instrs[kg].arg if kg < kc else None
    info.assumed_bound = maybe_unbound if assume_bound else []
    return info


def _arg_names(code):
    n = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & CO_VARARGS:
        n += 1
    if code.co_flags & CO_VARKEYWORDS:
        n += 1
    return list(code.co_varnames[:n])


_COMMON_BY_ARG = {a: v for v, a in COMMON_CONSTANTS}


def _static_ctor(code, instrs, sim, bw):
    mgr = sim.with_mgr.get(bw)
    if mgr is None or mgr.kind != "V" or mgr.prov is None:
        return None
    c = mgr.prov
    if instrs[c].op not in CALL_OPS or c not in sim.calls:
        return None
    fn, selfslot, args, kw = sim.calls[c]
    if selfslot.kind != "N" or fn.kind != "V" or fn.prov is None:
        return None
    g = instrs[fn.prov]
    if g.op != OP["LOAD_GLOBAL"] or not g.arg & 1 or selfslot.prov != fn.prov:
        return None
    vals = []
    for a in args:
        if a.kind != "V" or a.prov is None:
            return None
        if instrs[a.prov].op == OP["LOAD_CONST"]:
            vals.append(code.co_consts[instrs[a.prov].arg])
        elif instrs[a.prov].op == OP.get("LOAD_SMALL_INT"):
            vals.append(instrs[a.prov].arg)     # 3.14: the int is the argument
        elif instrs[a.prov].op == OP.get("LOAD_COMMON_CONSTANT") and \
                instrs[a.prov].arg in _COMMON_BY_ARG:
            vals.append(_COMMON_BY_ARG[instrs[a.prov].arg])  # 3.15: None, ...
        else:
            return None
    kwnames = code.co_consts[kw] if kw is not None else None
    return StaticCtor(code.co_names[name_index(g.op, g.arg)], tuple(vals),
                      kwnames)


# ---------------------------------------------------------------------------
# Code-object building helpers

class Pools:
    """co_consts / co_names that start as the original's (so copied
    instructions keep their operands) and grow as new ones are needed."""

    def __init__(self, code):
        self.consts = list(code.co_consts)
        self.names = list(code.co_names)

    def const(self, value):
        for i, c in enumerate(self.consts):
            if type(c) is type(value) and c == value and \
                    (not isinstance(c, tuple) or
                     tuple(map(type, c)) == tuple(map(type, value))):
                return i
        self.consts.append(value)
        return len(self.consts) - 1

    def name(self, s):
        if s in self.names:
            return self.names.index(s)
        self.names.append(s)
        return len(self.names) - 1


def I(op, arg=None, **kw):
    return Instr(op, arg, **kw)


def load_global(pools, name, push_null=False):
    return I("LOAD_GLOBAL", name_arg("LOAD_GLOBAL", pools.name(name),
                                     int(push_null)))


def copy_instrs(instrs):
    """Deep-copy an instruction list: jump targets and entry handlers are
    mapped to the copies; each original Entry gets one copy (shared by the
    instructions that shared it)."""
    m = {}
    out = []
    for ins in instrs:
        c = ins.copy()
        m[id(ins)] = c
        out.append(c)
    ents = {}
    for c in out:
        if c.target is not None:
            c.target = m[id(c.target)]
        if c.entry is not None:
            e = ents.get(id(c.entry))
            if e is None:
                e = ents[id(c.entry)] = Entry(m[id(c.entry.handler)],
                                              c.entry.depth, c.entry.lasti)
            c.entry = e
    return out, m


def build_code(base, instrs, *, varnames, freevars, argcount, posonly, kwonly,
               flags, name, qualname, pools, exc_edges=True, min_stacksize=0):
    local_index = {v: i for i, v in enumerate(list(varnames) + list(freevars))}
    asm = assemble(instrs, local_index, base.co_firstlineno)
    sd = stack_depths(instrs, exc_edges=exc_edges)
    stacksize = max(sd.max_depth, min_stacksize)
    code = base.replace(
        co_argcount=argcount, co_posonlyargcount=posonly,
        co_kwonlyargcount=kwonly, co_nlocals=len(varnames),
        co_stacksize=stacksize, co_flags=flags, co_code=asm.code,
        co_consts=tuple(pools.consts), co_names=tuple(pools.names),
        co_varnames=tuple(varnames), co_freevars=tuple(freevars),
        co_cellvars=(), co_name=name, co_qualname=qualname,
        co_linetable=asm.linetable, co_exceptiontable=asm.exceptiontable)
    return code, sd


def _call(n, kwnames=None):
    """A call of n arguments (the last ``len(co_consts[kwnames])`` by
    keyword): 3.11 ``[KW_NAMES k] PRECALL n; CALL n``, 3.12 ``[KW_NAMES k]
    CALL n``, 3.13 ``CALL n`` or ``LOAD_CONST k; CALL_KW n``."""
    if NULL_AFTER_CALLABLE:
        if kwnames is not None:
            return [I("LOAD_CONST", kwnames), I("CALL_KW", n)]
        return [I("CALL", n)]
    out = [I("KW_NAMES", kwnames)] if kwnames is not None else []
    if HAS_PRECALL:
        out.append(I("PRECALL", n))
    return out + [I("CALL", n)]


def _load_const(pools, value):
    """Push a constant as the running compiler does: 3.14's
    ``LOAD_SMALL_INT`` for the ints it loads so (0-255, opcodes.SMALL_INTS:
    measured), 3.15's ``LOAD_COMMON_CONSTANT`` for None, '', True, False and
    -1 (opcodes.COMMON_CONSTANTS: measured), else ``LOAD_CONST``."""
    if SMALL_INTS and type(value) is int and value in SMALL_INTS:
        return I("LOAD_SMALL_INT", value)
    for v, a in COMMON_CONSTANTS:
        if type(v) is type(value) and v == value:
            return I("LOAD_COMMON_CONSTANT", a)
    return I("LOAD_CONST", pools.const(value))


def _callee(load):
    """Push a callable and the NULL of its call: 3.11/3.12 ``PUSH_NULL;
    load``, 3.13 ``load; PUSH_NULL``."""
    return _callee_seq([load])


def _callee_seq(loads):
    """_callee of a callable the instructions ``loads`` push."""
    if NULL_AFTER_CALLABLE:
        return [*loads, I("PUSH_NULL")]
    return [I("PUSH_NULL"), *loads]


def _pop_null_call(pools):
    """Consume the NULL on top of the stack by calling a no-op global
    (``POP_TOP`` of a NULL crashes up to 3.13): ``[NULL] -> []``; 3.14's
    ``POP_TOP`` takes a NULL (its NullIn: opcodes.POP_TOP_TAKES_NULL)."""
    if POP_TOP_TAKES_NULL:
        return [I("POP_TOP")]
    out = [load_global(pools, PREFIX + "pop_null")]
    if NULL_AFTER_CALLABLE:
        out.append(I("SWAP", 2))        # [pop_null, NULL]
    return out + _call(0) + [I("POP_TOP")]


def _load_method(pools, name):
    """``[obj] -> [meth, obj] | [NULL, attr]``: 3.11 ``LOAD_METHOD``, 3.12
    ``LOAD_ATTR`` with bit 0 of its argument set."""
    if HAS_LOAD_METHOD:
        return I("LOAD_METHOD", name_arg("LOAD_METHOD", pools.name(name)))
    return I("LOAD_ATTR", name_arg("LOAD_ATTR", pools.name(name), 1))


def _load_attr(pools, name):
    """``[obj] -> [obj.name]``: ``LOAD_ATTR namei`` (3.12+: ``namei << 1``,
    bit 0 off: a plain attribute, not a method load)."""
    return I("LOAD_ATTR", name_arg("LOAD_ATTR", pools.name(name)))


def _no_enter_class(pools):
    """The class a mode slot is handed over as: ``LOAD_GLOBAL
    __import_pyverify_rewriter_dot_modestack; LOAD_ATTR NoEnterMode``, the
    shape of Dynamo's TorchFunctionModeVariable.reconstruct_type
    (``LOAD_GLOBAL __import_torch_dot__dynamo_dot_polyfills; LOAD_ATTR
    NoEnterTorchFunctionMode``)."""
    return [load_global(pools, MODESTACK_GLOBAL),
            _load_attr(pools, NO_ENTER_CLASS)]


def _exit_call(pools, local):
    """LOAD_FAST m; LOAD_METHOD __exit__; LOAD_CONST None; COPY 1; COPY 1;
    PRECALL 3; CALL 3; POP_TOP  -- __exit__(None, None, None)."""
    return [I("LOAD_FAST", Local(local)),
            _load_method(pools, "__exit__"),
            _load_const(pools, None), I("COPY", 1), I("COPY", 1),
            *_call(3), I("POP_TOP")]


def _instantiate(pools, ctor):
    """[class] -> [instance]: PUSH_NULL; SWAP 2 (3.13: PUSH_NULL); LOAD_CONST
    args; the call (n = 0 for a ContextClass / NoEnterMode)."""
    out = [I("PUSH_NULL")] if NULL_AFTER_CALLABLE else [I("PUSH_NULL"),
                                                        I("SWAP", 2)]
    n = 0
    kw = None
    if ctor is not None:
        for a in ctor.args:
            out.append(_load_const(pools, a))
        n = len(ctor.args)
        if ctor.kwnames:
            kw = pools.const(tuple(ctor.kwnames))
    out += _call(n, kw)
    return out


def _rot_to_depth(d):
    """Move the top of the stack down to depth d (1 = top), keeping the order
    of the others: SWAP d, SWAP d-1, ..., SWAP 2."""
    return [I("SWAP", k) for k in range(d, 1, -1)]


def _rot_to_top(d):
    """Bring the value at depth d to the top keeping the others' order:
    SWAP 2, SWAP 3, ..., SWAP d."""
    return [I("SWAP", k) for k in range(2, d + 1)]


# ---------------------------------------------------------------------------
# The with statement as the running compiler writes it (WITH_EXIT_SLOTS,
# HAS_BEFORE_WITH: opcodes.py; docs/rewriter.md, "CPython 3.14")

def _with_enter(pools):
    """``[mgr] -> [exit slots..., mgr.__enter__()]``: ``BEFORE_WITH``
    (3.11-3.13: the slot is the bound ``__exit__``); 3.14 ``COPY 1;
    LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0``
    (the slots are ``__exit__`` and its self, or the bound one and NULL)."""
    if HAS_BEFORE_WITH:
        return [I("BEFORE_WITH")]
    special = ARG["SpecialMethod"]
    return [I("COPY", 1), I("LOAD_SPECIAL", special["__exit__"]),
            I("SWAP", 2), I("SWAP", 3),
            I("LOAD_SPECIAL", special["__enter__"]), *_call(0)]


def _with_exit_call(pools):
    """``[exit slots] -> [result]``, ``__exit__(None, None, None)``:
    ``LOAD_CONST None`` x3 and a call of 1 + WITH_EXIT_SLOTS arguments (to
    3.13 the bound ``__exit__`` is the callable and the first None its
    "self": ``CALL 2``; 3.14 passes the exit's self: ``CALL 3``)."""
    return [_load_const(pools, None) for _ in range(3)] + \
        _call(1 + WITH_EXIT_SLOTS)


def _with_suppress_test(target):
    """After ``WITH_EXCEPT_START``: jump to ``target`` when ``__exit__``
    returned true: 3.11 ``POP_JUMP_FORWARD_IF_TRUE``, 3.12
    ``POP_JUMP_IF_TRUE``, 3.13 ``TO_BOOL`` first, 3.14 also ``NOT_TAKEN``
    after it (the compiler's fall-through branch marker)."""
    return ([I("TO_BOOL")] if HAS_TO_BOOL else []) + \
        [I(POP_JUMP_FORWARD_IF_TRUE, target=target)] + \
        ([I("NOT_TAKEN")] if HAS_NOT_TAKEN else [])


def _with_suppressed(first):
    """The suppress path: ``first`` (the exception's POP_TOP); POP_EXCEPT;
    then lasti and the exit slots popped (3.11-3.13: 2 POP_TOPs; 3.14: 3)."""
    return [first, I("POP_EXCEPT")] + \
        [I("POP_TOP") for _ in range(1 + WITH_EXIT_SLOTS)]


# ---------------------------------------------------------------------------
# The stand-in graph

def cover_compiler_gaps(instrs):
    """Give an instruction that the compiler left outside every entry,
    between two instructions under the same with handler (or a with
    handler's cleanup) at the same depth, that entry: 3.15.0rc1 leaves every NOT_TAKEN uncovered (in a with body, and
    in a with's handler inside another with), where a trace function's
    raise skips ``__exit__`` (docs/versions.md, "3.15"; pyverify's
    with-body-uncovered).  Returns the ids of the instructions covered so
    (none on 3.11-3.14's fixtures: their bytes are unchanged)."""
    idx = index_of(instrs)
    done = set()

    def same(a, b):     # (the table splits around the gap: two entries)
        return a is not None and b is not None and \
            (a.handler, a.depth, a.lasti) == (b.handler, b.depth, b.lasti)

    for k in range(1, len(instrs) - 1):
        e = instrs[k - 1].entry
        if instrs[k].entry is None and same(e, instrs[k + 1].entry) and \
                handler_kind(instrs, idx, e) in ("with", "cleanup"):
            instrs[k].entry = e
            done.add(id(instrs[k]))
    return done


def build_graph_helper(info, variant):
    code = info.code
    pools = Pools(code)
    instrs, m = copy_instrs(info.instrs)
    cover_compiler_gaps(instrs)
    # 3.14: the exit slots of a with are __exit__ and its self (or the bound
    # __exit__ and NULL), which no call can hand to a function; the helper
    # keeps the compiler's enter and also stores the manager (COPY 1;
    # STORE_FAST, right before LOAD_SPECIAL __exit__) for the capture
    mgrs = {c.before_with: "___pyverify_mgr_%d" % c.stack_index
            for c in info.contexts
            if instrs[c.before_with].op == OP.get("LOAD_SPECIAL")}
    for k in sorted(info.method_loads | set(mgrs) | info.iter_gets,
                    reverse=True):
        lm = instrs[k]
        if k in info.iter_gets:
            # [iterable] -> [iter(iterable)] before GET_ITER: its index is
            # then NULL (no tagged int), which the capture pops
            # (GET_ITER itself becomes the first, as jumps may target it)
            seq = [*_callee(load_global(pools, PREFIX + "iter")),
                   *_rot_to_top(3), *_call(1), lm.copy()]
            for x in seq:
                x.entry, x.pos = lm.entry, lm.pos
            lm.op, lm.arg = seq[0].op, seq[0].arg
            instrs[k + 1:k + 1] = seq[1:]
            continue
        if k in mgrs:
            instrs[k:k] = [I("COPY", 1, entry=lm.entry, pos=lm.pos),
                           I("STORE_FAST", Local(mgrs[k]), entry=lm.entry,
                             pos=lm.pos)]
            continue
        if HAS_LOAD_METHOD:
            lm.op = OP["LOAD_ATTR"]
        else:
            lm.arg &= ~1        # 3.12: LOAD_ATTR / LOAD_SUPER_ATTR, bit 0 off
        extra = [I("PUSH_NULL", entry=lm.entry, pos=lm.pos)]
        if not NULL_AFTER_CALLABLE:     # 3.13: [attr, NULL] as it is
            extra.append(I("SWAP", 2, entry=lm.entry, pos=lm.pos))
        instrs[k + 1:k + 1] = extra
    # the break group -> capture
    kg = instrs.index(m[id(info.instrs[info.k_group])])
    kc = instrs.index(m[id(info.instrs[info.k_call])])
    first = instrs[kg]
    cap = []
    state = info.state
    slots = len(state)
    caps = {}
    mgr_of = {c.stack_index: mgrs[c.before_with] for c in info.contexts
              if c.before_with in mgrs}
    for j in range(slots - 1, -1, -1):
        if j in info.nulls:
            cap += _pop_null_call(pools)
        elif j in mgr_of:
            cap.append(I("POP_TOP"))    # 3.14's __exit__: the manager is stored
        else:
            caps[j] = "___pyverify_cap_%d" % j
            cap.append(I("STORE_FAST", Local(caps[j])))

    def bound_exit(j):
        """The bound __exit__ of the with at slot j."""
        if j in mgr_of:
            return [I("LOAD_FAST", Local(mgr_of[j])),
                    _load_attr(pools, "__exit__")]
        return [I("LOAD_FAST", Local(caps[j]))]

    ctx_by_slot = {c.stack_index: c for c in info.contexts}
    for c in reversed(info.contexts):
        if c.kind == "with":
            cap += [*_callee_seq(bound_exit(c.stack_index)),
                    _load_const(pools, None),
                    _load_const(pools, None),
                    _load_const(pools, None),
                    *_call(3), I("POP_TOP")]
    cap.append(load_global(pools, PREFIX + "capture", True))
    nout = 0
    for j in range(slots):
        if j in info.nulls:
            continue
        c = ctx_by_slot.get(j)
        if c is not None and c.kind == "mode" and \
                variant != "mode-class-handed":
            # the frame loads the no-enter class itself (_no_enter_class)
            continue
        if c is None:
            cap.append(I("LOAD_FAST", Local(caps[j])))
        else:
            # mode-class-handed: the mode's own class, type(mode)
            fn = ("exit_class" if c.kind == "with" and c.ctor is not None
                  else "exit_factory")
            cap += [load_global(pools, PREFIX + fn, True),
                    *bound_exit(j), *_call(1)]
        nout += 1
    for v in info.live_locals:
        cap.append(I("LOAD_FAST", Local(v)))
        nout += 1
    if variant == "entered-twice":
        for c in info.contexts:
            if c.kind == "mode":
                cap += [load_global(pools, PREFIX + "exit_factory", True),
                        *bound_exit(c.stack_index), *_call(1)]
                nout += 1
    cap += [I("BUILD_TUPLE", nout), *_call(1),
            I("RETURN_VALUE")]
    # mutate the group's first instruction in place (jumps may target it)
    head = cap[0]
    first.op, first.arg, first.target, first.entry = head.op, head.arg, None, None
    first.note = "capture"
    instrs[kg:kc + 1] = [first] + cap[1:]
    varnames = list(code.co_varnames) + sorted(
        set(caps.values()) | set(mgr_of.values()),
        key=lambda s: (s.split("_")[4], int(s.rsplit("_", 1)[1])))
    helper, _ = build_code(
        code, instrs, varnames=varnames, freevars=code.co_freevars,
        argcount=len(info.argnames), posonly=0, kwonly=0,
        flags=code.co_flags & ~(CO_VARARGS | CO_VARKEYWORDS),
        name=code.co_name, qualname=code.co_qualname + ".<pyverify graph>",
        pools=pools, min_stacksize=code.co_stacksize)
    # where the capture is: it ends the with blocks outside the with protocol
    # (each bound __exit__ is stored to a local; ordinary contexts are exited
    # through it, TF modes not at all), which a per-code-object check sees
    info.capture_offsets = (first.offset, instrs[kg + len(cap) - 1].offset)
    return helper


# ---------------------------------------------------------------------------
# The rewritten original frame (emitted-code section 4)

def build_frame(info, variant, graph_name, resume_name):
    code = info.code
    pools = Pools(code)
    out = []
    ranges = []
    if code.co_freevars:
        out.append(I("COPY_FREE_VARS", len(code.co_freevars)))
    out.append(I("RESUME", 0))
    # 1. graph call and restore
    out.append(load_global(pools, graph_name, True))
    for a in info.argnames:
        out.append(I("LOAD_FAST", Local(a)))
    out += [*_call(len(info.argnames))]
    state = info.state
    slots = len(state)
    modes = [c for c in info.contexts if c.kind == "mode"]
    mode_slots = {c.stack_index for c in modes}
    # a mode slot is handed over as the no-enter class, loaded by the frame
    # itself (not a graph output); mode-class-handed hands the graph's
    # type(mode) instead
    from_graph = [j for j in range(slots) if j not in info.nulls and
                  (j not in mode_slots or variant == "mode-class-handed")]
    outs = ["___pyverify_out_%d" % j for j in from_graph]
    stores = list(outs) + list(info.live_locals)
    extras = []
    if variant == "entered-twice":
        extras = ["___pyverify_real_%d" % c.index for c in modes]
    stores += extras
    list_replay = variant in LIST_REPLAY_VARIANTS
    if list_replay:
        # Dynamo's shape: the output tuple in a local, every value a
        # subscript of it (LOAD_FAST graph_out_0; LOAD_CONST k;
        # BINARY_SUBSCR); the traced modes are separate output elements
        if GRAPH_OUT in code.co_varnames:
            raise VariantNotApplicable("the function has a local named %s"
                                       % GRAPH_OUT, reason="graph-out-name")
        out.append(I("STORE_FAST", Local(GRAPH_OUT)))
        for k, v in enumerate(stores):
            out += _graph_out(pools, k)
            out.append(I("STORE_FAST", Local(v)))
    else:
        if modes:
            stores.append("___pyverify_modes")
        out.append(I("UNPACK_SEQUENCE", len(stores)))
        for v in stores:
            out.append(I("STORE_FAST", Local(v)))
    for j in range(slots):
        if j in info.nulls:
            out.append(I("PUSH_NULL"))
        elif j in from_graph:
            out.append(I("LOAD_FAST", Local("___pyverify_out_%d" % j)))
        else:
            out += _no_enter_class(pools)
    # side-effect replay: the traced TF-mode stack (the mode's one push)
    if modes:
        out += [load_global(pools, MODESTACK_GLOBAL),
                _load_method(pools, MODE_OP["GetStack"]), *_call(0),
                I("STORE_FAST", Local("___prev_torch_function_mode_stack")),
                load_global(pools, MODESTACK_GLOBAL),
                _load_method(pools, MODE_OP["SetStack"])]
        if list_replay:
            # set_torch_function_mode_stack([<mode>, ...]): cg.foreach of
            # the symbolic stack, BUILD_LIST n
            for i in range(len(modes)):
                out += _graph_out(pools, len(stores) + i)
            out.append(I("BUILD_LIST", len(modes)))
        else:
            out.append(I("LOAD_FAST", Local("___pyverify_modes")))
        out += [*_call(1), I("POP_TOP")]
    # 2. wrapper setup, outer first
    managers = []
    starts = {}
    twice_starts = {}
    for c in info.contexts:
        if c.kind == "with":
            cm = "___context_manager_%d" % c.index
            managers.append(cm)
            out.append(I("LOAD_FAST", Local("___pyverify_out_%d" % c.stack_index)))
            out += _instantiate(pools, c.ctor)
            out += [I("STORE_FAST", Local(cm)), I("LOAD_FAST", Local(cm)),
                    _load_method(pools, "__enter__"), *_call(0), I("POP_TOP")]
            starts[c.index] = I("NOP", note="entry start")
            out.append(starts[c.index])
        else:
            starts[c.index] = I("NOP", note="entry start")
            out += [starts[c.index], I("NOP")]
            if variant == "entered-twice":
                cm = "___context_manager_%d" % c.index
                managers.append(cm)
                out.append(I("LOAD_FAST", Local("___pyverify_real_%d" % c.index)))
                out += _instantiate(pools, None)
                out += [I("STORE_FAST", Local(cm)), I("LOAD_FAST", Local(cm)),
                        _load_method(pools, "__enter__"),
                        *_call(0), I("POP_TOP")]
                twice_starts[c.index] = I("NOP", note="entry start")
                out.append(twice_starts[c.index])
    # 3. the unsupported instruction: [KW_NAMES] PRECALL n; CALL n
    for k in range(info.k_group, info.k_call + 1):
        o = info.instrs[k]
        a = o.arg
        if o.op == OP.get("KW_NAMES"):
            a = pools.const(code.co_consts[o.arg])
        out.append(I(o.op, a, pos=o.pos, note="break" if k == info.k_call
                     else None))
    # 4. epilogues, innermost first
    for c in reversed(info.contexts):
        si = c.stack_index
        if c.kind == "mode" and variant == "entered-twice":
            out += _ordinary_epilogue(pools, twice_starts[c.index],
                                      "___context_manager_%d" % c.index, si,
                                      ranges, call_exit=True)
        if c.kind == "with":
            out += _ordinary_epilogue(
                pools, starts[c.index], "___context_manager_%d" % c.index, si,
                ranges, call_exit=(variant != "exit-missing-on-exception"))
        else:
            end = I("NOP", note="entry end")
            done = I("NOP")
            h = I("PUSH_EXC_INFO")
            raise0 = I("RAISE_VARARGS", 0)
            cl = I("COPY", 3)
            out += [end, _load_const(pools, None),
                    I("JUMP_FORWARD", target=done),
                    h, I("POP_TOP")]
            if variant not in ("mode-leaked-on-exception",
                               "list-replay-pop-forgotten"):
                out += [load_global(pools, MODESTACK_GLOBAL),
                        _load_method(pools, MODE_OP["Pop"]), *_call(0),
                        I("POP_TOP")]
            # mode-leaked-on-exception, list-replay-pop-forgotten: re-raise
            # without popping (the leaked-mode bug of emitted-code section 8)
            out += [raise0, cl, I("POP_EXCEPT"), I("RERAISE", 1),
                    done, I("POP_TOP")]
            ranges.append((starts[c.index], end, Entry(h, si, False)))
            ranges.append((h, raise0, Entry(cl, si + 1, True)))
    # 5. the resume call
    below = [j for j in range(info.callable_base)]
    stack = [("N" if j in info.nulls else "V") for j in below] + ["V"]
    while "N" in stack:
        # the topmost NULL first
        q = max(k for k, s in enumerate(stack) if s == "N")
        d = len(stack) - q
        out += _rot_to_top(d)
        out += _pop_null_call(pools)
        stack.pop(q)
    kvals = len(stack)
    for callee in _callee(load_global(pools, resume_name)):
        out.append(callee)
        out += _rot_to_depth(kvals + 1)
    for v in info.live_locals:
        out.append(I("LOAD_FAST", Local(v)))
    nargs = kvals + len(info.live_locals)
    out += [*_call(nargs), I("RETURN_VALUE")]
    ranges_to_entries(out, ranges)
    varnames = list(code.co_varnames)
    if list_replay:
        varnames.append(GRAPH_OUT)
    for v in outs + extras + (["___pyverify_modes"] if modes and not list_replay
                              else []) + \
            (["___prev_torch_function_mode_stack"] if modes else []) + managers:
        if v not in varnames:
            varnames.append(v)
    frame, sd = build_code(
        code, out, varnames=varnames, freevars=code.co_freevars,
        argcount=code.co_argcount, posonly=code.co_posonlyargcount,
        kwonly=code.co_kwonlyargcount, flags=code.co_flags,
        name=code.co_name, qualname=code.co_qualname, pools=pools,
        exc_edges=(variant != "stacksize-no-exc-edges"))
    return frame, sd, out


def _graph_out(pools, k):
    """``graph_out_0[k]``: LOAD_FAST graph_out_0; LOAD_CONST k;
    BINARY_SUBSCR (3.14: BINARY_OP [])."""
    return [I("LOAD_FAST", Local(GRAPH_OUT)), _load_const(pools, k),
            I(*SUBSCRIPT)]


def _ordinary_epilogue(pools, start, cm, si, ranges, call_exit):
    end = I("NOP", note="entry end")
    after = I("NOP")
    h = I("PUSH_EXC_INFO")
    reraise = I("RERAISE", 0)
    cl = I("COPY", 3)
    seq = [end] + _exit_call(pools, cm) + [I("JUMP_FORWARD", target=after), h]
    if call_exit:
        seq += _exit_call(pools, cm)
    seq += [reraise, cl, I("POP_EXCEPT"), I("RERAISE", 1), after]
    ranges.append((start, end, Entry(h, si + 1, False)))
    ranges.append((h, reraise, Entry(cl, si + 2, True)))
    return seq


# ---------------------------------------------------------------------------
# The resume function (emitted-code sections 5 and 6)

def build_resume(info, variant, name):
    code = info.code
    pools = Pools(code)
    body, m = copy_instrs(info.instrs)
    gaps = cover_compiler_gaps(body)
    # line information is cleared before the resume point
    for k in range(info.k_resume):
        body[k].pos = None
    nstack_slots = info.callable_base + 1     # below the callable + result
    slot_is_null = [j in info.nulls for j in range(info.callable_base)] + [False]
    stack_args = []
    out = []
    ranges = []
    if code.co_freevars:
        out.append(I("COPY_FREE_VARS", len(code.co_freevars)))
    out.append(I("RESUME", 0))
    ctx_by_slot = {c.stack_index: c for c in info.contexts}
    pops = {}
    for j in range(nstack_slots):
        if j in info.exit_selves:
            continue            # 3.14: pushed by the context's enter
        if slot_is_null[j]:
            out.append(I("PUSH_NULL"))
            continue
        a = "___stack%d" % len(stack_args)
        stack_args.append(a)
        out.append(I("LOAD_FAST", Local(a)))
        c = ctx_by_slot.get(j)
        if c is not None:
            out += _instantiate(pools, c.ctor if c.kind == "with" else None)
            out += _with_enter(pools)
            pops[c.index] = I("POP_TOP", note="entry start")
            out.append(pops[c.index])
    resume_target = m[id(info.instrs[info.k_resume])]
    out.append(I("JUMP_FORWARD", target=resume_target))
    new_handlers = {}
    for c in reversed(info.contexts):
        si = c.stack_index
        end = I("NOP", note="entry end")
        done = I("NOP")
        h = I("PUSH_EXC_INFO")
        sup = I("POP_TOP")
        rr2 = I("RERAISE", 2)
        cl = I("COPY", 3)
        seq = [end, *_with_exit_call(pools), I("POP_TOP"),
               I("JUMP_FORWARD", target=done), h]
        if variant == "handler-reads-first-frame-local" and c.kind == "mode":
            seq += [load_global(pools, MODESTACK_GLOBAL),
                    _load_method(pools, MODE_OP["SetStack"]),
                    # 3.12's LOAD_FAST does not check; LOAD_FAST_CHECK
                    # (3.12+) raises UnboundLocalError as 3.11's LOAD_FAST
                    I("LOAD_FAST" if TRAITS["load_fast_checks_bound"]
                      else "LOAD_FAST_CHECK",
                      Local("___prev_torch_function_mode_stack")),
                    *_call(1), I("POP_TOP")]
        seq += [I("WITH_EXCEPT_START"), *_with_suppress_test(sup),
                rr2, cl, I("POP_EXCEPT"), I("RERAISE", 1),
                *_with_suppressed(sup), done]
        out += seq
        depth = si + WITH_EXIT_SLOTS    # the exit slots stay below
        ranges.append((pops[c.index], end, Entry(h, depth, True)))
        ranges.append((h, rr2, Entry(cl, depth + 2, True)))
        ranges.append((sup, sup, Entry(cl, depth + 2, True)))
        new_handlers[id(m[id(c.handler)])] = (c, h)
    if info.contexts:
        out += [_load_const(pools, None), I("RAISE_VARARGS", 1)]
    # the original body, verbatim; entries to old with-handlers redirected
    if variant != "entries-not-redirected":
        redirect_map = {}
        for ins in body:
            e = ins.entry
            if e is None or id(e.handler) not in new_handlers:
                continue
            ne = redirect_map.get(id(e))
            if ne is None:
                c, h = new_handlers[id(e.handler)]
                ne = redirect_map[id(e)] = Entry(h, e.depth, e.lasti)
            ins.entry = ne
    all_instrs = out + body
    for ins in body:
        if ins.entry is not None:
            ranges.append((ins, ins, ins.entry))
    ranges_to_entries(all_instrs, ranges)
    new_h = {id(h) for _, h in new_handlers.values()}
    body_ids = {id(b) for b in body}

    def is_redirected(ins):
        return id(ins) in body_ids and ins.entry is not None and \
            id(ins.entry.handler) in new_h

    notes = {}
    if variant == "operand-flipped":
        _flip_operand(info, body, m, notes)
    if variant == "redirected-wrong-depth":
        _wrong_depth(info, all_instrs, m, is_redirected, notes)
    if variant == "uncovered-body-instruction":
        _uncover(info, all_instrs, m, is_redirected, notes)
    if variant == "body-entries-dropped":
        # the compiler's gaps covered above are not dropped: eager has no
        # entry there, so the comparison with eager would mean nothing
        _drop_clean_entries(info, all_instrs, m,
                            lambda i: is_redirected(i) and id(i) not in gaps,
                            stack_args + list(info.live_locals), notes)
    if variant == "handler-reads-first-frame-local":
        live = _reachable_by_raising(all_instrs)
        index = index_of(all_instrs)
        if not any(c.kind == "mode" and index[id(h)] in live
                   for c, h in new_handlers.values()):
            raise VariantNotApplicable(
                "no instruction that can raise reaches the mode's new "
                "handler in the resume function (the with body ends at the "
                "break), so the bad handler never runs",
                reason="mode-handler-unreachable")
    argnames = stack_args + list(info.live_locals)
    varnames = list(argnames)
    for v in code.co_varnames:
        if v not in varnames:
            varnames.append(v)
    if variant == "handler-reads-first-frame-local":
        varnames.append("___prev_torch_function_mode_stack")
    flags = code.co_flags & ~(CO_VARARGS | CO_VARKEYWORDS)
    resume, sd = build_code(
        code, all_instrs, varnames=varnames, freevars=code.co_freevars,
        argcount=len(argnames), posonly=0, kwonly=0, flags=flags,
        name=name, qualname=name, pools=pools,
        exc_edges=(variant != "stacksize-no-exc-edges"))
    notes["body_offsets"] = {ins.orig: ins.offset for ins in body
                             if ins.orig is not None}
    notes["redirected"] = sorted(ins.orig for ins in body if is_redirected(ins)
                                 and ins.orig is not None)
    if "uncovered" in notes:
        notes["uncovered"] = [i.offset for i in notes["uncovered"]]
    if "dropped" in notes:
        # (offset in the resume function, offset in the original or None
        # for the second half of a split 3.13 superinstruction)
        notes["dropped"] = [(i.offset, i.orig) for i in notes["dropped"]]
    if "wrong_depth" in notes:
        notes["wrong_depth"]["covers"] = notes["wrong_depth"]["covers"].offset
    return resume, sd, all_instrs, notes


def _flip_operand(info, body, m, notes):
    """operand-flipped: the first instruction of the resume body from the
    resume point on whose argument can be flipped (OPERAND_FLIPS) to a
    different value."""
    kr = body.index(m[id(info.instrs[info.k_resume])])
    for ins in body[kr:]:
        flip = OPERAND_FLIPS.get(ins.name)
        if flip is None or not isinstance(ins.arg, int):
            continue
        new = flip(ins.arg)
        if new != ins.arg:
            notes["flipped"] = {"opname": ins.name, "orig": ins.orig,
                                "from": ins.arg, "to": new}
            ins.arg = new
            return
    raise VariantNotApplicable(
        "no instruction after the resume point has an operand-only argument "
        "to flip (%s)" % ", ".join(sorted(OPERAND_FLIPS)),
        reason="no-flippable-operand")


def _reachable_by_raising(instrs):
    """Indices reachable from the first instruction by normal edges and by
    the exception edges of instructions that can raise (a LOAD_FAST is taken
    not to: the resume function's locals are bound where they are read)."""
    idx = index_of(instrs)
    succ = successors(instrs, idx)
    seen = {0}
    work = [0]
    while work:
        k = work.pop()
        ins = instrs[k]
        nxt = [t for t, _ in succ[k]]
        if ins.entry is not None and may_raise(ins.op, ins.arg) and \
                ins.op != OP["LOAD_FAST"]:
            nxt.append(idx[id(ins.entry.handler)])
        for t in nxt:
            if t not in seen:
                seen.add(t)
                work.append(t)
    return seen


def _body_candidates(info, all_instrs, m, is_redirected):
    """Instructions of a with body reachable from the resume point and covered
    by a redirected entry: (calls that are not a with's exit call, other
    instructions that may raise, all of them)."""
    sd = stack_depths(all_instrs)
    index = index_of(all_instrs)
    orig_index = {id(m[id(o)]): k for k, o in enumerate(info.instrs)}
    kr = index[id(m[id(info.instrs[info.k_resume])])]
    calls, others, every = [], [], []
    for k in range(kr, len(all_instrs)):
        ins = all_instrs[k]
        if not is_redirected(ins) or not sd.reachable(k):
            continue
        every.append(k)
        if ins.op in CALL_OPS:
            callee = info.sim.calls.get(orig_index.get(id(ins)))
            if callee is not None and "X" in (callee[0].kind, callee[1].kind):
                continue        # a with's own exit call
            calls.append(k)
        elif may_raise(ins.op, ins.arg) and ins.name not in (
                "PRECALL", "KW_NAMES", "CALL", "CALL_KW", "LOAD_FAST",
                "LOAD_FAST_CHECK"):
            # LOAD_FAST is left out: it raises only for an unbound local, and
            # the locals of a resume function at its body are bound (passed
            # or stored), so uncovering one would change nothing
            others.append(k)
    return calls, others, every


def _wrong_depth(info, all_instrs, m, is_redirected, notes):
    calls, others, every = _body_candidates(info, all_instrs, m, is_redirected)
    pick = (calls or others or every or [None])[0]
    if pick is None:
        raise VariantNotApplicable("no redirected entry is reachable after "
                                   "the resume point",
                                   reason="no-redirected-entry")
    chosen = all_instrs[pick].entry
    bad = Entry(chosen.handler, chosen.depth + 1, chosen.lasti)
    for ins in all_instrs:
        if ins.entry is chosen:
            ins.entry = bad
    notes["wrong_depth"] = {"depth": (chosen.depth, chosen.depth + 1),
                            "covers": all_instrs[pick],
                            "orig": [i.orig for i in all_instrs
                                     if i.entry is bad and i.orig is not None]}


def _uncover(info, all_instrs, m, is_redirected, notes):
    calls, others, _ = _body_candidates(info, all_instrs, m, is_redirected)
    if calls:
        k = calls[0]
        group = list(range(call_group_start(all_instrs, k), k + 1))
    elif others:
        group = [others[0]]
    else:
        raise VariantNotApplicable("no raising instruction of a with body is "
                                   "reachable after the resume point",
                                   reason="no-raising-body-instruction")
    for g in group:
        all_instrs[g].entry = None
    notes["uncovered"] = [all_instrs[g] for g in group]


_BOUND_LOCAL_READS = tuple(OP[n] for n in ("LOAD_FAST", "LOAD_FAST_CHECK")
                           if n in OP)


def _drop_clean_entries(info, all_instrs, m, is_redirected, argnames, notes):
    """body-entries-dropped: the first run, from the resume point on, of
    consecutive reachable instructions of a with body that are covered by a
    redirected entry and cannot raise by themselves (opcodes.may_raise; a
    read of a local bound on every path there counts as such) loses its
    entries.  A checker of self-raising instructions finds nothing to
    complain about; an exception injected there by a trace hook leaves the
    resume function with the context still entered."""
    sd = stack_depths(all_instrs)
    index = index_of(all_instrs)
    kr = index[id(m[id(info.instrs[info.k_resume])])]
    must, _ = assigned_locals(all_instrs, argnames)

    def clean(k):
        ins = all_instrs[k]
        if not may_raise(ins.op, ins.arg):
            return True
        return ins.op in _BOUND_LOCAL_READS and str(ins.arg) in \
            must.get(k, frozenset())

    run = []
    for k in range(kr, len(all_instrs)):
        ok = is_redirected(all_instrs[k]) and sd.reachable(k) and clean(k)
        if ok:
            run.append(k)
        elif run:
            break
    if not run:
        raise VariantNotApplicable(
            "no reachable instruction of a with body after the resume point "
            "is both covered by a redirected entry and unable to raise by "
            "itself", reason="no-clean-body-instruction")
    for k in run:
        all_instrs[k].entry = None
    notes["dropped"] = [all_instrs[k] for k in run]
    notes["resume_instruction_dropped"] = run[0] == kr
    # 3.11's LOAD_FAST (3.12+: LOAD_FAST_CHECK) raises for an unbound local;
    # a per-code-object check that does not prove the local bound takes the
    # read for a raising instruction (rewrite() refines the expectation)
    notes["dropped_bound_reads"] = sum(
        may_raise(all_instrs[k].op, all_instrs[k].arg) for k in run)


# ---------------------------------------------------------------------------
# Public API

class Rewrite:
    """The result of ``rewrite``."""

    def __init__(self):
        self.func = None
        self.original = None
        self.frame = None
        self.resume = None
        self.helper = None
        self.graph_fn = None
        self.graph_name = None
        self.resume_name = None
        self.break_offset = None
        self.resume_offset = None
        self.contexts = []
        self.variant = "correct"
        self.modes = ()
        self.expect = "ok"
        self.frame_stack = None
        self.resume_stack = None
        self.notes = {}

    @property
    def globals(self):
        """Names the rewritten frame and resume function need in their
        globals (on top of the original function's)."""
        g = dict(runtime.RUNTIME_GLOBALS)
        if self.func is not None:
            g[self.graph_name] = self.graph_fn
            g[self.resume_name] = types.FunctionType(
                self.resume, self.func.__globals__, self.resume.co_name,
                None, self.func.__closure__)
        return g

    def make_function(self, guarded=True):
        """A callable running the rewritten frame (which calls the resume
        function).  The needed names are installed in the original function's
        globals, as Dynamo does.  With ``guarded`` (the default), a call whose
        prefix returns without reaching the break (the stand-in graph raises
        GraphBreakNotReached) returns that value: Dynamo's guards would not
        have picked this compiled frame for that call, and the graph already
        ran the whole function eagerly."""
        if self.func is None:
            raise ValueError("make_function needs the function object, not "
                             "only its code")
        if getattr(self, "assumed_bound", None):
            raise ValueError("this rewrite assumed %s bound at the break; it "
                             "is for static use only"
                             % ", ".join(self.assumed_bound))
        f = self.func
        f.__globals__.update(self.globals)
        frame_fn = types.FunctionType(self.frame, f.__globals__, f.__name__,
                                      f.__defaults__, f.__closure__)
        frame_fn.__kwdefaults__ = f.__kwdefaults__
        frame_fn.__qualname__ = f.__qualname__
        if not guarded:
            return frame_fn

        def rewritten(*args, **kwargs):
            try:
                return frame_fn(*args, **kwargs)
            except runtime.GraphBreakNotReached as e:
                return e.value
        rewritten.__wrapped_frame__ = frame_fn
        rewritten.__name__ = f.__name__
        rewritten.__qualname__ = f.__qualname__ + ".<rewritten>"
        return rewritten

    def to_bundle_dict(self):
        return {
            "format": "pyverify-bundle",
            "version": 1,
            "original": self.original,
            "frame": self.frame,
            "break_offset": self.break_offset,
            "resumes": [{
                "code": self.resume,
                "original_offset": self.resume_offset,
                "contexts": [dict(c) for c in self.contexts],
            }],
            "expect": self.expect,
        }


def _live_entry_exceeds(instrs, code):
    sd = stack_depths(instrs)
    return any(ins.entry is not None and sd.reachable(k) and
               ins.entry.depth + int(ins.entry.lasti) + 1 > code.co_stacksize
               for k, ins in enumerate(instrs))


def rewrite(func, break_offset, *, modes=(), variant="correct",
            assume_bound=False):
    """Split ``func`` at the CALL at ``break_offset``.

    modes: indices (outermost = 0) of the active contexts that are
    torch-function modes.  variant: "correct" or one of the buggy VARIANTS.
    assume_bound: treat live locals that are bound on some paths to the break
    only as bound (the shape Dynamo emits for a trace on which they are);
    static use only -- make_function() refuses such a rewrite."""
    if variant not in VARIANTS:
        raise ValueError("unknown variant %r (one of %s)"
                         % (variant, ", ".join(VARIANTS)))
    code, fobj = _code_of(func)
    info = analyze_break(code, break_offset, modes, assume_bound)
    ordinary = [c for c in info.contexts if c.kind == "with"]
    tfm = [c for c in info.contexts if c.kind == "mode"]
    if variant in MODE_ONLY_VARIANTS and not tfm:
        raise VariantNotApplicable("%s needs an active torch-function mode"
                                   % variant, reason="no-mode")
    if variant == "exit-missing-on-exception" and not ordinary:
        raise VariantNotApplicable("%s needs an active ordinary context"
                                   % variant, reason="no-ordinary-context")
    if variant in ("entries-not-redirected", "redirected-wrong-depth",
                   "uncovered-body-instruction", "body-entries-dropped") \
            and not info.contexts:
        raise VariantNotApplicable("%s needs an active context" % variant,
                                   reason="no-context")
    n = next(_counter)
    r = Rewrite()
    r.func = fobj
    r.original = code
    r.variant = variant
    r.modes = tuple(sorted(set(modes)))
    r.break_offset = break_offset
    r.resume_offset = info.resume_offset
    r.contexts = [c.as_dict() for c in info.contexts]
    r.graph_name = "__compiled_fn_%s_%d_%d" % (code.co_name.strip("<>"),
                                               break_offset, n)
    r.resume_name = "__resume_at_%d_%d" % (info.resume_offset, n)
    line = info.instrs[info.k_call].pos
    line = line[0] if line else code.co_firstlineno
    rname = "pyverify_resume_in_%s_at_%d" % (code.co_name.strip("<>"), line)
    r.frame, r.frame_stack, r.frame_instrs = build_frame(
        info, variant, r.graph_name, r.resume_name)
    r.resume, r.resume_stack, r.resume_instrs, r.notes = build_resume(
        info, variant, rname)
    r.frame_break_offset = next(i.offset for i in r.frame_instrs
                                if i.note == "break")
    r.body_offsets = r.notes.pop("body_offsets")
    r.redirected = r.notes.pop("redirected")
    if variant == "stacksize-no-exc-edges":
        good_f = stack_depths(r.frame_instrs).max_depth
        good_r = stack_depths(r.resume_instrs).max_depth
        if good_f <= r.frame.co_stacksize and good_r <= r.resume.co_stacksize:
            raise VariantNotApplicable(
                "the stack size without exception edges is already enough "
                "(frame %d, resume %d)" % (good_f, good_r),
                reason="stacksize-unchanged")
        r.notes["stacksize"] = {"frame": (r.frame.co_stacksize, good_f),
                                "resume": (r.resume.co_stacksize, good_r)}
    r.helper = build_graph_helper(info, variant)
    r.helper_capture = info.capture_offsets
    if fobj is not None:
        helper_fn = types.FunctionType(r.helper, fobj.__globals__,
                                       code.co_name, None, fobj.__closure__)
        r.graph_fn = runtime.GraphFunction(
            helper_fn, len(tfm),
            list_replay=variant in LIST_REPLAY_VARIANTS)
    r.info = info
    r.assumed_bound = info.assumed_bound
    conflicts = bool(r.frame_stack.conflicts or r.resume_stack.conflicts)
    if variant == "correct":
        r.expect = "stack-depth-conflict" if conflicts else "ok"
    elif variant == "stacksize-no-exc-edges":
        # a live entry whose handler starts above co_stacksize is reported by
        # the table check; otherwise the stack pass finds the overrun
        r.expect = ("exception-table-depth-exceeds-stacksize"
                    if _live_entry_exceeds(r.frame_instrs, r.frame) or
                    _live_entry_exceeds(r.resume_instrs, r.resume)
                    else "stacksize-too-small")
    else:
        r.expect = EXPECT[variant]
        if variant == "body-entries-dropped" and \
                r.notes["dropped_bound_reads"]:
            # pyverify check reads the bound local's LOAD_FAST as raising
            r.expect = "context-not-exited"
        if conflicts and (r.expect == "ok" or r.expect.startswith("smt:")):
            r.expect = "stack-depth-conflict"
    r.notes["conflicts"] = {"frame": r.frame_stack.conflicts,
                            "resume": r.resume_stack.conflicts}
    return r


class BreakPoint:
    """A CALL of a function and whether the rewriter accepts it as a break."""

    def __init__(self, offset, contexts, modes, reason):
        self.offset = offset
        self.contexts = contexts        # list of dicts, or None if rejected
        self.modes = modes              # indices of contexts that are modes
        self.reason = reason            # rejection reason, or None

    @property
    def eligible(self):
        return self.reason is None

    def __repr__(self):
        if self.reason:
            return "<BreakPoint %d rejected: %s>" % (self.offset, self.reason)
        return "<BreakPoint %d contexts=%d modes=%r>" % (
            self.offset, len(self.contexts), self.modes)


def break_points(func, mode_names=frozenset()):
    """Every CALL of ``func``, eligible or not.  ``mode_names``: global names
    whose ``with G(...)`` sites are torch-function modes."""
    code, _ = _code_of(func)
    check_function(code)
    out = []
    facts = _CodeFacts(code)
    for ins in facts.instrs:
        if ins.op not in CALL_OPS:
            continue
        try:
            info = analyze_break(code, ins.orig, facts=facts)
        except RewriteError as e:
            out.append(BreakPoint(ins.orig, None, (), e.reason))
            continue
        modes = tuple(c.index for c in info.contexts
                      if c.ctor is not None and c.ctor.global_name in mode_names)
        out.append(BreakPoint(ins.orig, [c.as_dict() for c in info.contexts],
                              modes, None))
    return out
