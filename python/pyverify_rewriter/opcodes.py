"""CPython opcode facts used by the rewriter (bytecode notes sections 1 and 4).

The rewriter emits the bytecode of the interpreter it runs under: 3.11, 3.12,
3.13, 3.14 or 3.15 (``VERSION``).  The facts about each opcode and each version's shape
are read from ``_tables.py``, which scripts/gen-python-tables.py generates
from the C++ tables pyverify itself reads (docs/versions.md, "The tables"):
opcode numbers, inline cache sizes, arguments and jump kinds, terminators,
the *real* pops/pushes of each instruction (section 4.5, which
``dis.stack_effect`` folds into a net value), which instructions cannot raise
(1.3) and what a taken jump skips (Opcodes3NN.def); what an argument indexes
(OperandRules.def); what an enumerated argument means (PYV_ARG_TEXT:
LOAD_SPECIAL's method, BINARY_OP's operator); the call, method-load and
with-statement shapes (VersionTraits.def).
The running interpreter is asked only for the compiler's net stack effect
(``dis.stack_effect``), the comparison arguments its compiler writes
(``COMPARE_ARGS``) and which constants it loads by argument
(``SMALL_INTS``, ``COMMON_CONSTANTS``).
"""

import ast
import dis
import opcode
import sys

from . import _tables

VERSION = sys.version_info[:2]
SUPPORTED = tuple(_tables.TRAITS)

if VERSION not in SUPPORTED:  # pragma: no cover - depends on the interpreter
    raise ImportError(
        "pyverify_rewriter emits CPython %s bytecode only (running %s; "
        "pyverify's tables have no row for it)"
        % (", ".join("%d.%d" % v for v in SUPPORTED), sys.version.split()[0]))

TRAITS = _tables.TRAITS[VERSION]
_RULES = _tables.OPERAND_RULES[VERSION]
# The version's base opcodes (those that can appear in co_code): their rows
# of Opcodes3NN.def by number, and the numbers by name.
_ROW = {r["number"]: r for r in _tables.OPCODES[VERSION].values()}
OP = {n: r["number"] for n, r in _tables.OPCODES[VERSION].items()}
NAME = ["<%d>" % o for o in range(256)]
for _n, (_o, _base) in _tables.SPECIALIZED[VERSION].items():
    NAME[_o] = _n
for _n, _o in OP.items():
    NAME[_o] = _n
# opcodes that take an argument (3.13's WITH_EXCEPT_START, numbered
# HAVE_ARGUMENT, takes none)
HASARG = frozenset(o for o, r in _ROW.items() if r["has_arg"])
EXTENDED_ARG = OP["EXTENDED_ARG"]
CACHES = [0] * 256
for _o, _r in _ROW.items():
    CACHES[_o] = _r["caches"]

HASJREL = frozenset(o for o, r in _ROW.items() if r["jump"] != "None")
BACKWARD_JUMPS = frozenset(o for o, r in _ROW.items()
                           if r["jump"] in ("Backward", "BackwardCond"))
UNCONDITIONAL_JUMPS = frozenset(o for o, r in _ROW.items()
                                if r["jump"] in ("Forward", "Backward"))
TERMINATORS = frozenset(o for o, r in _ROW.items() if r["terminator"]
                        ) | UNCONDITIONAL_JUMPS

# Operands that are one co_localsplusnames index (fast locals, cells, free
# variables; OperandRules.def: the whole argument, LocalsPlus or Cell):
# decoded as Local(name) and renumbered when assembled.
LOCALSPLUS = frozenset(OP[n] for n, rules in _RULES.items()
                       if [(f, b) for f, b, _lo, _hi in rules]
                       in ([("Arg", "LocalsPlus")], [("Arg", "Cell")]))

# Version shapes the rewriter emits (docs/versions.md, "Checking 3.12 and 3.13";
# VersionTraits.def): 3.11 calls are PRECALL n; CALL n, methods are loaded by
# LOAD_METHOD; 3.12 has CALL n alone and LOAD_ATTR with bit 0 of its argument
# set; 3.13 puts the NULL (or self) *after* the callable, passes keyword names
# as a constant on the stack to CALL_KW, and tests a bool (TO_BOOL) before a
# conditional jump.
HAS_PRECALL = TRAITS["precall_before_call"]
LOAD_ATTR_METHOD_BIT = TRAITS["method_bit_in_load_attr"]
HAS_LOAD_METHOD = not LOAD_ATTR_METHOD_BIT
NULL_AFTER_CALLABLE = TRAITS["null_after_callable"]
HAS_KW_NAMES = "KW_NAMES" in OP
HAS_TO_BOOL = "TO_BOOL" in OP
CALL_OPS = frozenset(OP[n] for n in ("CALL", "CALL_KW") if n in OP)
# conditional jump on true towards higher offsets
POP_JUMP_FORWARD_IF_TRUE = ("POP_JUMP_FORWARD_IF_TRUE"
                            if "POP_JUMP_FORWARD_IF_TRUE" in OP
                            else "POP_JUMP_IF_TRUE")
# the local loads an analysis of fast locals must see as reads (3.14:
# LOAD_FAST_BORROW, a load without a new reference)
LOCAL_READS = frozenset(OP[n] for n in ("LOAD_FAST", "LOAD_FAST_CHECK",
                                        "LOAD_FAST_AND_CLEAR",
                                        "LOAD_FAST_BORROW") if n in OP)

# What an enumerated argument means (PYV_ARG_TEXT rows): text -> argument.
ARG = {table: {t: i for i, t in texts.items()}
       for table, texts in _tables.ARG_TEXT[VERSION].items()}

# The with statement (docs/rewriter.md, "CPython 3.14"). Up to 3.13 the
# compiler enters a context with BEFORE_WITH, which leaves one slot below the
# enter result: the bound __exit__. 3.14 has no BEFORE_WITH: ``COPY 1;
# LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0``
# leaves two (the __exit__ function and its self, or the bound __exit__ and
# NULL). WITH_EXIT_SLOTS (the traits row) is how many: the handler's depth
# is the exit slot + WITH_EXIT_SLOTS, the exit call is CALL 1 + slots (the
# three Nones after the slots), and the handler's suppress path pops the
# slots after lasti.
WITH_EXIT_SLOTS = TRAITS["with_exit_slots"]
HAS_BEFORE_WITH = "BEFORE_WITH" in OP
# LOAD_SPECIAL's argument that loads a with's exit (3.14): {arg: async}
EXIT_SPECIAL_ARGS = {ARG["SpecialMethod"][n]: n == "__aexit__"
                     for n in ("__exit__", "__aexit__")
                     if "SpecialMethod" in ARG}
# ... and its enter, whose CALL 0 enters the with
ENTER_SPECIAL_ARGS = frozenset(ARG["SpecialMethod"][n]
                               for n in ("__enter__", "__aenter__")
                               if "SpecialMethod" in ARG)
# 3.14's compiler follows every conditional jump with NOT_TAKEN (the
# fall-through's branch event)
HAS_NOT_TAKEN = "NOT_TAKEN" in OP


def _compiler_loads(value):
    """(opname, arg) of the instruction the running compiler loads the
    constant ``value`` with (as a call's argument)."""
    ns = {}
    exec(compile("def f(g):\n    g(%r)\n" % (value,), "<const>", "exec"), ns)
    ins = list(dis.get_instructions(ns["f"]))
    k = next(i for i, x in enumerate(ins) if x.opname == "PUSH_NULL")
    return ins[k + 1].opname, ins[k + 1].arg


# the ints the running compiler loads with LOAD_SMALL_INT (3.14+): from the
# operand rule's Lo up to the largest it writes so, measured (the rule is
# what the interpreter accepts: 0..256 on 3.14, 0..1024 on 3.15; both
# compilers write 0..255, 256 as LOAD_CONST); empty where the opcode does
# not exist
SMALL_INTS = range(0)
for _f, _b, _lo, _hi in _RULES.get("LOAD_SMALL_INT", ()):
    _top, _out = _lo, _hi + 1           # _top is loaded so, _out is not
    while _out - _top > 1:
        _mid = (_top + _out) // 2
        if _compiler_loads(_mid)[0] == "LOAD_SMALL_INT":
            _top = _mid
        else:
            _out = _mid
    SMALL_INTS = range(_lo, _top + 1)

# the constants the running compiler loads with LOAD_COMMON_CONSTANT (3.15:
# None, '', True, False, -1): (value, argument), for the PYV_ARG_TEXT rows
# that are literals, where the compiler does (measured)
COMMON_CONSTANTS = []
for _a, _t in sorted(_tables.ARG_TEXT[VERSION].get("CommonConstant",
                                                     {}).items()):
    try:
        _v = ast.literal_eval(_t)
    except (ValueError, SyntaxError):
        continue            # a builtin (AssertionError, tuple, all, ...)
    if _compiler_loads(_v) == ("LOAD_COMMON_CONSTANT", _a):
        COMMON_CONSTANTS.append((_v, _a))
# a subscript: BINARY_SUBSCR up to 3.13, BINARY_OP [] in 3.14
SUBSCRIPT = (("BINARY_SUBSCR", None) if "BINARY_SUBSCR" in OP
             else ("BINARY_OP", ARG["BinaryOp"]["[]"]))

CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200
GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE


# ---------------------------------------------------------------------------
# Operands (OperandRules.def)

_FIELD_SHIFT = {"Arg": 0, "Shr1": 1, "Shr2": 2, "Shr4": 4, "Shr5": 5}


def field(name, arg):
    """The part of an argument an operand rule names: Arg, Shr1 (arg >> 1),
    Shr2, Shr4, Shr5 or Low4 (arg & 15)."""
    if name == "Low4":
        return arg & 15
    return arg >> _FIELD_SHIFT[name]


def operand_fields(op, bound):
    """The fields of ``op``'s argument that index ``bound`` (Consts, Names,
    LocalsPlus, Cell, ...), in table order."""
    return [f for f, b, _lo, _hi in _RULES.get(NAME[op], ()) if b == bound]


def name_index(op, arg):
    """The co_names index in the argument of ``op`` (LOAD_GLOBAL: arg >> 1;
    LOAD_ATTR: 3.11 arg, 3.12+ arg >> 1)."""
    f, = operand_fields(op, "Names")
    return field(f, arg)


def name_arg(op, index, low=0):
    """The argument of ``op`` whose co_names operand is ``index``, with
    ``low`` in the bits below it (LOAD_GLOBAL's NULL bit, LOAD_ATTR's method
    bit)."""
    f, = operand_fields(OP[op] if isinstance(op, str) else op, "Names")
    shift = _FIELD_SHIFT[f]
    if not 0 <= low < (1 << shift) and low:
        raise ValueError("%s: no bit below its name index for %d" % (op, low))
    return (index << shift) | low


# 3.13's (and 3.14's) superinstructions: two locals packed in one argument (two rules,
# Shr4 and Low4, in the order of the two instructions).  The decoder splits
# them into their two plain instructions, so the locals can be renumbered
# freely (a resume function reorders co_varnames).
SUPERINSTRUCTIONS = {OP[n]: (OP[a], OP[b]) for n, (a, b) in {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST_BORROW", "LOAD_FAST_BORROW"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}.items() if n in OP}
SUPERINSTRUCTION_FIELDS = {o: tuple(operand_fields(o, "LocalsPlus"))
                           for o in SUPERINSTRUCTIONS}
assert all(len(f) == 2 for f in SUPERINSTRUCTION_FIELDS.values()), \
    SUPERINSTRUCTION_FIELDS


# ---------------------------------------------------------------------------
# The stack and raising (Opcodes3NN.def)

def count(c, arg):
    """The one evaluation of a table count (Formula, K): Formula(arg) + K
    (CountFormula, Opcode.h)."""
    formula, k = c
    if formula == "Zero":
        v = 0
    elif formula == "Arg":
        v = arg
    elif formula == "TwoArg":
        v = 2 * arg
    elif formula == "ArgBit0":
        v = arg & 1
    elif formula == "ArgBit2":
        v = (arg >> 2) & 1
    elif formula == "Popcount4":
        v = bin(arg & 0xF).count("1")
    elif formula == "UnpackEx":
        v = (arg & 0xFF) + (arg >> 8)
    elif formula == "ArgIs3":
        v = 1 if arg == 3 else 0
    elif formula == "TwoArgBit0":
        v = 2 * (arg & 1)
    else:
        raise ValueError("unknown count formula %r" % (formula,))
    return v + k


def table_io(op, arg, jump):
    """(pops, pushes) on the real stack (section 4.5) on the fall-through
    (``jump`` False) or the jump edge, as the table gives them (a taken jump
    that skips instructions: up to where it lands)."""
    r = _ROW[op]
    return (count(r["jump_pops" if jump else "pops"], arg),
            count(r["jump_pushes" if jump else "pushes"], arg))


def pushed_nulls(op, arg):
    """The values ``op`` pushes on the fall-through, deepest first: True for
    one that may be NULL (the NullOut mask)."""
    r = _ROW[op]
    mask = count(r["null_out"], arg)
    return [bool(mask >> i & 1) for i in range(count(r["pushes"], arg))]


# 3.14's POP_TOP takes a NULL (the NullIn mask; up to 3.13 it crashes)
POP_TOP_TAKES_NULL = bool(count(_ROW[OP["POP_TOP"]]["null_in"], 0) & 1)


# What a taken jump steps over at its target: JumpSkip code units, made of
# the instructions Decoder::checkSkipped expects there, in this order
# (lib/Bytecode/InstructionStream.cpp): an exhausted FOR_ITER lands after
# 3.12's END_FOR, after 3.13's END_FOR; POP_TOP.
_SKIP_ORDER = ("END_FOR", "POP_TOP")


def _skipped(row):
    out, units = [], 0
    for n in _SKIP_ORDER:
        if units >= row["jump_skip"]:
            break
        out.append(OP[n])
        units += 1 + CACHES[OP[n]]
    if units != row["jump_skip"]:
        raise ImportError("a JumpSkip of %d units is not made of %s"
                          % (row["jump_skip"], ", ".join(_SKIP_ORDER)))
    return tuple(out)


# opcode -> the opcodes its taken jump steps over at the target
SKIPPED_AFTER_TARGET = {o: _skipped(r) for o, r in _ROW.items() if r["jump_skip"]}


def has_arg(op):
    return op in HASARG


def stack_effect(op, arg, jump):
    """The compiler's stack effect (section 4.1): ``jump`` False/True."""
    if op not in HASARG:
        return dis.stack_effect(op, jump=jump)
    return dis.stack_effect(op, arg, jump=jump)


def may_raise(op, arg):
    """Whether the instruction can raise by itself (Raises: Never, Always;
    ArgDependent -- RESUME -- where it checks the eval breaker,
    (arg & ResumeWhereMask) < 2)."""
    raises = _ROW[op]["raises"] if op in _ROW else "Always"
    if raises == "ArgDependent":
        return (arg & TRAITS["resume_where_mask"]) < 2
    return raises != "Never"


def real_pops_pushes(op, arg, jump):
    """(pops, pushes) on the real stack (section 4.5), for slot-identity
    tracking (``table_io``).

    A taken jump that the interpreter makes land after its target (3.12's
    exhausted FOR_ITER skips the END_FOR at its target) is counted up to the
    target itself, as the compiler counts it: the skipped instructions' pops
    are added back as pushed values.

    Special shapes (PUSH_NULL, LOAD_GLOBAL, LOAD_METHOD, BEFORE_WITH, SWAP,
    COPY, CALL, ...) are handled by the caller; this covers the rest.
    """
    pops, pushes = table_io(op, arg, jump)
    if jump:
        for s in SKIPPED_AFTER_TARGET.get(op, ()):
            sp, sq = table_io(s, 0, False)
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


def method_load_pops(op, arg):
    """Values a method load pops (it pushes ``[meth, self]`` or
    ``[NULL, attr]``): 3.11's LOAD_METHOD, 3.12's LOAD_ATTR and
    LOAD_SUPER_ATTR with bit 0 of the argument; 0 for anything else."""
    if not LOAD_ATTR_METHOD_BIT:
        return table_io(op, 0, False)[0] if op == OP["LOAD_METHOD"] else 0
    if isinstance(arg, int) and arg & 1 and op in (OP["LOAD_ATTR"],
                                                    OP["LOAD_SUPER_ATTR"]):
        return table_io(op, arg, False)[0]
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
