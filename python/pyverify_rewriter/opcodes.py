"""CPython 3.11 opcode facts used by the rewriter (bytecode notes sections 1 and 4).

Everything here is derived from the running interpreter's ``opcode``/``dis``
modules where they carry the fact, and written down by hand where they do not
(the *real* pops/pushes of section 4.5, which ``dis.stack_effect`` folds into a
net value).
"""

import dis
import opcode
import sys

if sys.version_info[:2] != (3, 11):  # pragma: no cover - the package is 3.11 only
    raise ImportError("pyverify_rewriter targets CPython 3.11 bytecode only "
                      "(running %s)" % sys.version.split()[0])

OP = opcode.opmap
NAME = opcode.opname
HAVE_ARGUMENT = opcode.HAVE_ARGUMENT
EXTENDED_ARG = opcode.EXTENDED_ARG
CACHES = list(opcode._inline_cache_entries)

HASJREL = frozenset(opcode.hasjrel)
HASLOCAL = frozenset(opcode.haslocal)
HASFREE = frozenset(opcode.hasfree)
HASCONST = frozenset(opcode.hasconst)
HASNAME = frozenset(opcode.hasname)

BACKWARD_JUMPS = frozenset(o for o in HASJREL if "BACKWARD" in NAME[o])
UNCONDITIONAL_JUMPS = frozenset({OP["JUMP_FORWARD"], OP["JUMP_BACKWARD"],
                                 OP["JUMP_BACKWARD_NO_INTERRUPT"]})
TERMINATORS = frozenset({OP["RETURN_VALUE"], OP["RAISE_VARARGS"], OP["RERAISE"]}
                        ) | UNCONDITIONAL_JUMPS

CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
CO_VARARGS = 0x4
CO_VARKEYWORDS = 0x8
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ITERABLE_COROUTINE = 0x100
CO_ASYNC_GENERATOR = 0x200
GENERATOR_LIKE = CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE

# Opcodes that push nothing (real model).  Everything else not special-cased
# below pushes exactly one value and pops ``1 - stack_effect``.
_PUSH_NOTHING = frozenset(OP[n] for n in (
    "CACHE", "POP_TOP", "NOP", "STORE_SUBSCR", "DELETE_SUBSCR", "PRINT_EXPR",
    "RETURN_VALUE", "IMPORT_STAR", "SETUP_ANNOTATIONS", "POP_EXCEPT",
    "STORE_NAME", "DELETE_NAME", "STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL",
    "DELETE_GLOBAL", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
    "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE",
    "RERAISE", "STORE_FAST", "DELETE_FAST", "RAISE_VARARGS", "MAKE_CELL",
    "STORE_DEREF", "DELETE_DEREF", "EXTENDED_ARG", "LIST_APPEND", "SET_ADD",
    "MAP_ADD", "COPY_FREE_VARS", "RESUME", "LIST_EXTEND", "SET_UPDATE",
    "DICT_MERGE", "DICT_UPDATE", "KW_NAMES", "END_ASYNC_FOR",
))

# Section 1.3: instructions that cannot raise (without a tracer).
_CANNOT_RAISE = frozenset(OP[n] for n in (
    "NOP", "LOAD_CONST", "SWAP", "COPY", "PUSH_NULL", "POP_TOP", "STORE_FAST",
    "STORE_DEREF", "IS_OP", "KW_NAMES", "EXTENDED_ARG", "POP_EXCEPT",
    "PUSH_EXC_INFO", "JUMP_FORWARD", "POP_JUMP_FORWARD_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE", "RETURN_VALUE", "LOAD_ASSERTION_ERROR",
    "COPY_FREE_VARS", "LOAD_CLOSURE", "MAKE_CELL", "RETURN_GENERATOR",
))


def has_arg(op):
    return op >= HAVE_ARGUMENT


def stack_effect(op, arg, jump):
    """The compiler's stack effect (section 4.1): ``jump`` False/True."""
    if op < HAVE_ARGUMENT:
        return dis.stack_effect(op, jump=jump)
    return dis.stack_effect(op, arg, jump=jump)


def may_raise(op, arg):
    if op in _CANNOT_RAISE:
        return False
    if op == OP["RESUME"] and arg in (2, 3):
        return False
    return True


def real_pops_pushes(op, arg, jump):
    """(pops, pushes) on the real stack (section 4.5), for slot-identity tracking.

    Special shapes (PUSH_NULL, LOAD_GLOBAL, LOAD_METHOD, BEFORE_WITH, SWAP, COPY,
    CALL, PRECALL, ...) are handled by the caller; this covers the rest.
    """
    if op == OP["PRECALL"]:
        return 0, 0
    if op == OP["CALL"]:
        return arg + 2, 1
    if op == OP["FOR_ITER"]:
        return (1, 0) if jump else (0, 1)
    if op == OP["SEND"]:
        return (2, 1) if jump else (1, 1)
    if op in (OP["JUMP_IF_FALSE_OR_POP"], OP["JUMP_IF_TRUE_OR_POP"]):
        return (0, 0) if jump else (1, 0)
    if op == OP["UNPACK_SEQUENCE"]:
        return 1, arg
    if op == OP["UNPACK_EX"]:
        return 1, (arg & 0xFF) + (arg >> 8) + 1
    if op == OP["PUSH_EXC_INFO"]:
        return 1, 2
    if op in (OP["BEFORE_WITH"], OP["BEFORE_ASYNC_WITH"], OP["LOAD_METHOD"]):
        return 1, 2
    if op == OP["CHECK_EG_MATCH"]:
        return 2, 2
    if op == OP["LOAD_GLOBAL"]:
        return 0, 1 + (arg & 1)
    effect = stack_effect(op, arg, jump)
    pushes = 0 if op in _PUSH_NOTHING else 1
    return pushes - effect, pushes
