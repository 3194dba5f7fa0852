"""CPython opcode facts used by the rewriter (bytecode notes sections 1 and 4).

The rewriter emits the bytecode of the interpreter it runs under: 3.11, 3.12
or 3.13 (``VERSION``).  Opcode numbers, inline cache sizes and jump kinds come
from the running interpreter's ``opcode``/``dis`` modules.  The facts they do
not carry -- the *real* pops/pushes of each instruction (section 4.5, which
``dis.stack_effect`` folds into a net value), which instructions cannot raise
(1.3) and what a taken jump skips -- are read from ``scripts/stack_io.py``,
the one per-version table that pyverify's own opcode tables are generated
from.
"""

import dis
import importlib.util
import opcode
import os
import sys

VERSION = sys.version_info[:2]
SUPPORTED = ((3, 11), (3, 12), (3, 13))

if VERSION not in SUPPORTED:  # pragma: no cover - depends on the interpreter
    raise ImportError(
        "pyverify_rewriter emits CPython %s bytecode only (running %s; "
        "scripts/stack_io.py has no stack facts for it)"
        % (", ".join("%d.%d" % v for v in SUPPORTED), sys.version.split()[0]))


def _load_stack_io():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                        os.pardir, "scripts", "stack_io.py")
    path = os.path.normpath(path)
    if not os.path.exists(path):  # pragma: no cover
        raise ImportError("pyverify_rewriter needs the per-version stack facts "
                          "of scripts/stack_io.py (not found at %s)" % path)
    spec = importlib.util.spec_from_file_location("_pyverify_stack_io", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


stack_io = _load_stack_io()
_IO = stack_io.STACK_IO[VERSION]

# Base opcodes only: 3.12's opmap also lists pseudo opcodes (>= 256, e.g.
# LOAD_METHOD, JUMP) that never appear in co_code.
OP = {n: o for n, o in opcode.opmap.items() if o < 256}
NAME = opcode.opname
HAVE_ARGUMENT = opcode.HAVE_ARGUMENT
# opcodes that take an argument (3.13's WITH_EXCEPT_START, numbered
# HAVE_ARGUMENT, takes none)
HASARG = frozenset(o for o in getattr(opcode, "hasarg", range(HAVE_ARGUMENT, 256))
                   if o < 256)
EXTENDED_ARG = opcode.EXTENDED_ARG
CACHES = [0] * 256
if isinstance(opcode._inline_cache_entries, dict):     # 3.13: by name
    for _n, _c in opcode._inline_cache_entries.items():
        if _n in opcode.opmap and opcode.opmap[_n] < 256:
            CACHES[opcode.opmap[_n]] = _c
else:
    for _o in range(256):
        CACHES[_o] = opcode._inline_cache_entries[_o]

HASJREL = frozenset(o for o in opcode.hasjrel if o < 256)
HASLOCAL = frozenset(o for o in opcode.haslocal if o < 256)
HASFREE = frozenset(o for o in opcode.hasfree if o < 256)
HASCONST = frozenset(o for o in opcode.hasconst if o < 256)
HASNAME = frozenset(o for o in opcode.hasname if o < 256)

BACKWARD_JUMPS = frozenset(o for o in HASJREL if "BACKWARD" in NAME[o])
UNCONDITIONAL_JUMPS = frozenset({OP["JUMP_FORWARD"], OP["JUMP_BACKWARD"],
                                 OP["JUMP_BACKWARD_NO_INTERRUPT"]})
TERMINATORS = frozenset(OP[n] for n in stack_io.TERMINATORS[VERSION]
                        ) | UNCONDITIONAL_JUMPS

# Version shapes the rewriter emits (docs/versions.md, "Checking 3.12 and 3.13"):
# 3.11 calls are PRECALL n; CALL n, methods are loaded by LOAD_METHOD; 3.12
# has CALL n alone and LOAD_ATTR with bit 0 of its argument set; 3.13 puts the
# NULL (or self) *after* the callable, passes keyword names as a constant on
# the stack to CALL_KW, and tests a bool (TO_BOOL) before a conditional jump.
HAS_PRECALL = "PRECALL" in OP
HAS_LOAD_METHOD = "LOAD_METHOD" in OP
LOAD_ATTR_METHOD_BIT = not HAS_LOAD_METHOD
NULL_AFTER_CALLABLE = VERSION >= (3, 13)
HAS_KW_NAMES = "KW_NAMES" in OP
HAS_TO_BOOL = "TO_BOOL" in OP
CALL_OPS = frozenset(OP[n] for n in ("CALL", "CALL_KW") if n in OP)
# conditional jump on true towards higher offsets
POP_JUMP_FORWARD_IF_TRUE = ("POP_JUMP_FORWARD_IF_TRUE"
                            if "POP_JUMP_FORWARD_IF_TRUE" in OP
                            else "POP_JUMP_IF_TRUE")
# the local loads an analysis of fast locals must see as reads
LOCAL_READS = frozenset(OP[n] for n in ("LOAD_FAST", "LOAD_FAST_CHECK",
                                        "LOAD_FAST_AND_CLEAR") if n in OP)

CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200
GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE

_NEVER_RAISE = frozenset(OP[n] for n in stack_io.NEVER_RAISE[VERSION] if n in OP)
_SKIPPED = {OP[n]: tuple(OP[s] for s in skipped)
            for n, skipped in stack_io.SKIPPED_AFTER_TARGET[VERSION].items()}


def has_arg(op):
    return op in HASARG


def stack_effect(op, arg, jump):
    """The compiler's stack effect (section 4.1): ``jump`` False/True."""
    if op not in HASARG:
        return dis.stack_effect(op, jump=jump)
    return dis.stack_effect(op, arg, jump=jump)


def may_raise(op, arg):
    if op in _NEVER_RAISE:
        return False
    if op == OP["RESUME"] and arg in (2, 3):
        return False
    return True


def _io(op, arg, jump):
    e = _IO[NAME[op]]
    pops = stack_io.count(e["jpops" if jump else "pops"], arg)
    pushes = stack_io.count(e["jpushes" if jump else "pushes"], arg)
    return pops, pushes


def real_pops_pushes(op, arg, jump):
    """(pops, pushes) on the real stack (section 4.5), for slot-identity
    tracking, from scripts/stack_io.py.

    A taken jump that the interpreter makes land after its target (3.12's
    exhausted FOR_ITER skips the END_FOR at its target) is counted up to the
    target itself, as the compiler counts it: the skipped instructions' pops
    are added back as pushed values.

    Special shapes (PUSH_NULL, LOAD_GLOBAL, LOAD_METHOD, BEFORE_WITH, SWAP,
    COPY, CALL, ...) are handled by the caller; this covers the rest.
    """
    pops, pushes = _io(op, arg, jump)
    if jump:
        for s in _SKIPPED.get(op, ()):
            sp, sq = _io(s, 0, False)
            pushes += sp - sq
    return pops, pushes


def _compare_args():
    """COMPARE_OP's arguments per comparison (index into opcode.cmp_op), as
    the running compiler writes them: a list per use (a value; a condition).
    3.12 keeps a result mask in the low bits; 3.13 also a to-bool bit."""
    out = []
    for form in ("    return (%s)\n", "    if %s: pass\n"):
        body = ", ".join("a %s b" % c for c in opcode.cmp_op) \
            if form.startswith("    return") else None
        src = "def f(a, b):\n" + (form % body if body else "".join(
            form % ("a %s b" % c) for c in opcode.cmp_op))
        ns = {}
        exec(compile(src, "<cmp>", "exec"), ns)
        args = [i.arg for i in dis.get_instructions(ns["f"])
                if i.opname == "COMPARE_OP"]
        assert len(args) == len(opcode.cmp_op), args
        out.append(args)
    return out


COMPARE_ARGS = _compare_args()

# 3.13's superinstructions: two locals packed in one argument (4 bits each).
# The decoder splits them into their two plain instructions, so the locals
# can be renumbered freely (a resume function reorders co_varnames).
SUPERINSTRUCTIONS = {OP[n]: (OP[a], OP[b]) for n, (a, b) in {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}.items() if n in OP}


def method_load_pops(op, arg):
    """Values a method load pops (it pushes ``[meth, self]`` or
    ``[NULL, attr]``): 3.11's LOAD_METHOD, 3.12's LOAD_ATTR and
    LOAD_SUPER_ATTR with bit 0 of the argument; 0 for anything else."""
    if HAS_LOAD_METHOD:
        return 1 if op == OP["LOAD_METHOD"] else 0
    if isinstance(arg, int) and arg & 1 and op in (OP["LOAD_ATTR"],
                                                    OP["LOAD_SUPER_ATTR"]):
        return 1 if op == OP["LOAD_ATTR"] else 3
    return 0


def call_group_start(instrs, k):
    """Index of the first instruction of the call group ending at the CALL
    ``instrs[k]``: ``[KW_NAMES] [PRECALL] CALL``; None if 3.11's PRECALL is
    missing or has another argument."""
    g = k
    if instrs[k].op == OP.get("CALL_KW"):
        # 3.13: the keyword names are the LOAD_CONST right before CALL_KW
        if k < 1 or instrs[k - 1].op != OP["LOAD_CONST"]:
            return None
        return k - 1
    if HAS_PRECALL:
        if k < 1 or instrs[k - 1].op != OP["PRECALL"] or \
                instrs[k - 1].arg != instrs[k].arg:
            return None
        g = k - 1
    if HAS_KW_NAMES and g >= 1 and instrs[g - 1].op == OP["KW_NAMES"]:
        g -= 1
    return g


def call_kw_names(instrs, k):
    """The KW_NAMES constant index of the CALL at ``instrs[k]``, or None."""
    g = call_group_start(instrs, k)
    if g is not None and g < k and instrs[g].op in (OP.get("KW_NAMES"),
                                                     OP.get("LOAD_CONST")):
        return instrs[g].arg
    return None
