#!/usr/bin/python3.11
"""Mutation corpus: plant context-balance bugs into stdlib code objects.

Runs under python3.11, 3.12, 3.13 or 3.14 (the Pyodide oracle) and mutates
that interpreter's bytecode (its stdlib corpus; pyverify gets --python-version).

For every code object of every .pyc under --pyc-dir, find the with sites
(the version's enter: BEFORE_WITH / BEFORE_ASYNC_WITH, 3.14's CALL 0 of
LOAD_SPECIAL __enter__ / __aenter__), their body entries, handlers and normal
exits, and apply each mutation class of README.md through CodeType.replace.
Each mutant is written as a marshal file and checked with
`pyverify check --format=json`; a mutant is detected iff pyverify reports the
class's expected check id in the mutated code object.

Self-contained: own instruction decoder, own exception-table codec, own
tagged real-stack abstract interpreter (for reachability, exit slots and the
harmless-mutant reasons). See README.md for the definitions.
"""

import argparse
import collections
import dis
import json
import marshal
import opcode
import os
import random
import re
import shutil
import subprocess
import sys
import time
import types

PY = sys.version_info[:2]
if PY not in ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15)):
    sys.exit("mutate_stdlib.py needs python3.11, 3.12, 3.13, 3.14 or 3.15 "
             "(it mutates the bytecode of the interpreter it runs under)")

# pyverify's own tables, as python/pyverify_rewriter/_tables.py has them
# (generated from the C++ .def files by scripts/gen-python-tables.py), and the
# one evaluation of their counts (pyverify_rewriter.opcodes.count).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "python"))
from pyverify_rewriter import _tables  # noqa: E402
from pyverify_rewriter import opcodes as pv  # noqa: E402

TRAITS = _tables.TRAITS[PY]
TABLE = _tables.OPCODES[PY]
RULES = _tables.OPERAND_RULES[PY]

# --- Opcodes -----------------------------------------------------------------
# Numbers, arguments and caches come from the running interpreter's `opcode`
# module; the jump kinds, the terminators and the version's shape facts from
# pyverify's tables (Opcodes3NN.def, VersionTraits.def); what may raise and
# the real stack are written below for 3.11 and read from the tables for
# 3.12 and 3.13.

OPMAP = opcode.opmap
OPNAME = opcode.opname
HAVE_ARGUMENT = opcode.HAVE_ARGUMENT
if hasattr(opcode._inline_cache_entries, "get"):  # 3.13+: by name (3.15: a frozendict)
    CACHES = [opcode._inline_cache_entries.get(OPNAME[op], 0) for op in range(256)]
else:  # 3.11, 3.12: by opcode
    CACHES = opcode._inline_cache_entries
# 3.12+ says which opcodes take an argument (3.13's WITH_EXCEPT_START is at
# HAVE_ARGUMENT and takes none); 3.11: those at or above HAVE_ARGUMENT.
HASARG = (set(opcode.hasarg) if hasattr(opcode, "hasarg")
          else set(range(HAVE_ARGUMENT, 256)))


def _op(name):
    """The opcode of `name`, or -1 if this version has no such (real) one."""
    op = OPMAP.get(name, -1)
    return op if op < 256 else -1


EXTENDED_ARG = _op("EXTENDED_ARG")
CACHE = _op("CACHE")
NOP = _op("NOP")
POP_TOP = _op("POP_TOP")
SWAP = _op("SWAP")
COPY = _op("COPY")
LOAD_CONST = _op("LOAD_CONST")
LOAD_COMMON_CONSTANT = _op("LOAD_COMMON_CONSTANT")  # 3.14+
PUSH_NULL = _op("PUSH_NULL")
PRECALL = _op("PRECALL")                  # 3.11 only
CALL = _op("CALL")
BEFORE_WITH = _op("BEFORE_WITH")
BEFORE_ASYNC_WITH = _op("BEFORE_ASYNC_WITH")
GET_AWAITABLE = _op("GET_AWAITABLE")
SEND = _op("SEND")
END_SEND = _op("END_SEND")                # 3.12+
YIELD_VALUE = _op("YIELD_VALUE")
RESUME = _op("RESUME")
PUSH_EXC_INFO = _op("PUSH_EXC_INFO")
WITH_EXCEPT_START = _op("WITH_EXCEPT_START")
LOAD_METHOD = _op("LOAD_METHOD")          # 3.11 only (a pseudo opcode after)
FOR_ITER = _op("FOR_ITER")
RETURN_VALUE = _op("RETURN_VALUE")
RETURN_CONST = _op("RETURN_CONST")        # 3.12+
RAISE_VARARGS = _op("RAISE_VARARGS")
RERAISE = _op("RERAISE")
JUMP_FORWARD = _op("JUMP_FORWARD")
JUMP_BACKWARD = _op("JUMP_BACKWARD")
JUMP_BACKWARD_NO_INTERRUPT = _op("JUMP_BACKWARD_NO_INTERRUPT")
JUMP_IF_TRUE_OR_POP = _op("JUMP_IF_TRUE_OR_POP")    # 3.11 only
JUMP_IF_FALSE_OR_POP = _op("JUMP_IF_FALSE_OR_POP")  # 3.11 only

# 3.11's with exit is LOAD_CONST None x3; PRECALL 2; CALL 2; 3.12+ has no
# PRECALL: LOAD_CONST None x3; CALL 2.
HAS_PRECALL = TRAITS["precall_before_call"]

# How the compiler pushes None: LOAD_CONST of a None constant; 3.15 with
# LOAD_COMMON_CONSTANT and the index of None in the running interpreter's
# opcode._common_constants (7 in 3.15.0rc1; 3.14's list has no None).
_COMMON = getattr(opcode, "_common_constants", [])
NONE_COMMON = next((k for k, c in enumerate(_COMMON) if c is None), -1)


def loads_none(ins, consts):
    """Whether `ins` pushes None the compiler's way."""
    if ins.op == LOAD_CONST:
        return consts[ins.arg] is None
    return NONE_COMMON >= 0 and ins.op == LOAD_COMMON_CONSTANT and \
        ins.arg == NONE_COMMON


# An await's head before its SEND: GET_AWAITABLE; LOAD_CONST None (3.15:
# GET_AWAITABLE; PUSH_NULL; LOAD_COMMON_CONSTANT None: SEND reads the
# receiver, a NULL and the value, pyverify's table: Reads 3).
AWAIT_NULL = _tables.OPCODES[PY]["SEND"]["reads"] == ("Zero", 3)
AWAIT_HEAD_LEN = 3 + AWAIT_NULL  # through the SEND

# 3.12+ lists pseudo jumps too; 3.14+ lists END_ASYNC_FOR, whose argument
# is the loop's offset for dis ("from L12") but which does not jump
# (pyverify's table: Jump None, operand BackwardLabel).
JREL = {op for op in opcode.hasjrel
        if op < 256 and TABLE.get(OPNAME[op], {}).get("jump") != "None"}
BACKWARD_JUMPS = {_op(n) for n, r in TABLE.items()
                  if r["jump"] in ("Backward", "BackwardCond")}
UNCONDITIONAL_JUMPS = {_op(n) for n, r in TABLE.items()
                       if r["jump"] in ("Forward", "Backward")}
# Jumps a jump-into-with mutant may retarget (not the await loop's SEND /
# JUMP_BACKWARD_NO_INTERRUPT, not FOR_ITER, whose jump pops the iterator).
# 3.12+: see await_machinery(), which also excludes the jumps into an
# await loop from its CLEANUP_THROW (3.13 also ends with handlers in loops
# with a JUMP_BACKWARD_NO_INTERRUPT, which stays plantable there).
if PY == (3, 11):
    PLANTABLE_JUMPS = JREL - {SEND, FOR_ITER, JUMP_BACKWARD_NO_INTERRUPT}
else:
    PLANTABLE_JUMPS = JREL - {SEND, FOR_ITER}
NO_FALLTHROUGH = {_op(n) for n, r in TABLE.items() if r["terminator"]} | \
    UNCONDITIONAL_JUMPS
# Taken backward jumps run the eval breaker. 3.11 and 3.12 check it with the
# instruction pointer already at the target (lookup key: target - 1 unit);
# 3.13's JUMP_BACKWARD checks it before jumping, and the lookup key is its own
# cache unit: it raises at the jump (measured on each interpreter with a
# SIGALRM handler that raises in a `while True: pass` loop in a with body).
# (VersionTraits.def: BreakerAtBackEdgeTarget.)
if not TRAITS["breaker_at_back_edge_target"]:
    EVAL_BREAKER_JUMPS = set()
else:
    EVAL_BREAKER_JUMPS = BACKWARD_JUMPS - {JUMP_BACKWARD_NO_INTERRUPT}
# The base opcodes that can appear in co_code: the rows of the version's
# opcode table (not the specialised or INSTRUMENTED_* ones, ENTER_EXECUTOR,
# RESERVED or INTERPRETER_EXIT), CACHE aside.
VALID_OPS = {_op(n) for n in TABLE} - {CACHE}

# Bytecode notes section 1.3: instructions that cannot raise at their own
# lookup key (JUMP_BACKWARD and the backward *_IF_[NOT_]NONE jumps raise only
# through the eval breaker at target - 1; RESUME 2|3 never).
if PY == (3, 11):
    NEVER_RAISE = {OPMAP[n] for n in (
        "NOP", "LOAD_CONST", "SWAP", "COPY", "PUSH_NULL", "POP_TOP", "STORE_FAST",
        "STORE_DEREF", "IS_OP", "KW_NAMES", "EXTENDED_ARG", "POP_EXCEPT",
        "PUSH_EXC_INFO", "JUMP_FORWARD", "POP_JUMP_FORWARD_IF_NONE",
        "POP_JUMP_FORWARD_IF_NOT_NONE", "RETURN_VALUE", "LOAD_ASSERTION_ERROR",
        "COPY_FREE_VARS", "LOAD_CLOSURE", "MAKE_CELL", "RETURN_GENERATOR",
        "JUMP_BACKWARD", "POP_JUMP_BACKWARD_IF_NONE",
        "POP_JUMP_BACKWARD_IF_NOT_NONE")}
    STACK_IO = None
    SKIPPED_AFTER_TARGET = {}
else:
    # 3.12, 3.13: the real stack effects and the never-raising instructions
    # of pyverify's tables (Opcodes3NN.def: Raises, Pops .. JumpPushes), with
    # the eval breaker and throw() as this tool models them: 3.12's
    # JUMP_BACKWARD raises only through the eval breaker edge at target - 1
    # (as in 3.11), 3.13's at itself; 3.13's YIELD_VALUE stays a raise point
    # (the opcode itself cannot fail, but generator.throw() unwinds from its
    # lookup key: the CLEANUP_THROW entries of every await loop cover it).
    _never = {n for n, r in TABLE.items() if r["raises"] == "Never"} - {
        "YIELD_VALUE", "JUMP_BACKWARD"}
    if TRAITS["breaker_at_back_edge_target"]:
        _never.add("JUMP_BACKWARD")
    NEVER_RAISE = {_op(n) for n in _never} - {-1}
    STACK_IO = {_op(n): r for n, r in TABLE.items() if _op(n) >= 0}
    # An exhausted FOR_ITER lands after the END_FOR (3.13: END_FOR; POP_TOP)
    # at its target (JumpSkip).
    SKIPPED_AFTER_TARGET = dict(pv.SKIPPED_AFTER_TARGET)

ONE_UNIT_STORES = {OPMAP[n] for n in (
    "POP_TOP", "STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")}

# An outside NOP becomes a one-unit jump: JUMP_FORWARD, or backward
# JUMP_BACKWARD (3.13's has a cache unit: JUMP_BACKWARD_NO_INTERRUPT, which
# 3.13's compiler also emits at the end of with handlers in loops).
NOP_JUMPS = (JUMP_FORWARD, JUMP_BACKWARD if CACHES[JUMP_BACKWARD] == 0
             else JUMP_BACKWARD_NO_INTERRUPT)
assert CACHES[JUMP_FORWARD] == 0 and CACHES[NOP_JUMPS[1]] == 0


# --- The with statement's shape ----------------------------------------------
# The one place that says what a version's with looks like; the tags, the
# site finder and the mutation classes ask here.
#
# * 3.11 - 3.13: BEFORE_WITH (BEFORE_ASYNC_WITH) pops the manager and pushes
#   its bound __exit__ (one slot) under the enter result.
# * 3.14: COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL
#   __enter__; CALL 0 (async: __aexit__, __aenter__): the context is two
#   slots, the __exit__ function and its self (NULL if LOAD_SPECIAL found a
#   plain attribute), and the CALL 0 enters it (pyverify's withEnterAt()).
#
# The normal exit is LOAD_CONST None x3; [PRECALL n;] CALL n with n = 1 +
# the exit slots (2 up to 3.13, 3 in 3.14): the __exit__ is the callable
# slot, PEEK(n + 2); a with handler's WITH_EXCEPT_START calls PEEK(3 + the
# exit slots) (4, 5) and its body entry keeps the depth of the exit slots'
# top. (VersionTraits.def: WithExitSlots.) Measured on each interpreter.
WITH_SLOTS = TRAITS["with_exit_slots"]
EXIT_CALL_ARG = 1 + WITH_SLOTS
HANDLER_EXIT_PEEK = 3 + WITH_SLOTS
LOAD_SPECIAL = _op("LOAD_SPECIAL")        # 3.14+
SPECIAL_NAMES = getattr(dis, "_special_method_names", [])
# Opcodes one of which a code object with a with site holds (a fast filter).
ENTER_OPS = [op for op in (BEFORE_WITH, BEFORE_ASYNC_WITH, LOAD_SPECIAL)
             if op >= 0]


def special_name(ins):
    """The method a LOAD_SPECIAL loads, or None."""
    if ins.op != LOAD_SPECIAL or ins.arg >= len(SPECIAL_NAMES):
        return None
    return SPECIAL_NAMES[ins.arg]


def enter_tag(insts, k):
    """'X' if insts[k] enters a with, 'P' an async with (its __aexit__ is
    pending until the await of __aenter__ ends), else None."""
    ins = insts[k]
    if LOAD_SPECIAL < 0:
        return {BEFORE_WITH: "X", BEFORE_ASYNC_WITH: "P"}.get(ins.op)
    if ins.op != CALL or ins.arg != 0 or k == 0:
        return None
    return {"__enter__": "X", "__aenter__": "P"}.get(special_name(insts[k - 1]))


def compiler_enter(insts, k):
    """Whether the enter at insts[k] is the compiler's whole sequence (3.14:
    the five instructions before the CALL 0; before: BEFORE_WITH alone)."""
    if LOAD_SPECIAL < 0:
        return True
    seq = insts[k - 5:k] if k >= 5 else []
    exit_name = "__exit__" if enter_tag(insts, k) == "X" else "__aexit__"
    return ([(i.op, i.arg) for i in seq[:1] + seq[2:4]] ==
            [(COPY, 1), (SWAP, 2), (SWAP, 3)] and
            special_name(seq[1]) == exit_name)


class Inst:
    __slots__ = ("idx", "start", "off", "op", "arg", "end")

    def __init__(self, idx, start, off, op, arg, end):
        self.idx, self.start, self.off = idx, start, off
        self.op, self.arg, self.end = op, arg, end

    @property
    def name(self):
        return OPNAME[self.op]

    def target(self):
        """The jump's target as dis shows it: counted in code units from
        the end of its inline caches (3.11's relative jumps have none)."""
        if self.op not in JREL:
            return None
        if self.op in BACKWARD_JUMPS:
            return self.end - 2 * self.arg
        return self.end + 2 * self.arg

    def may_raise(self):
        """May raise with lookup key = this instruction's opcode unit (3.13's
        JUMP_BACKWARD: its cache unit, in the same entry)."""
        if self.op in NEVER_RAISE:
            return False
        if self.op == RESUME:
            # VersionTraits.def: ResumeWhereMask
            return (self.arg & TRAITS["resume_where_mask"]) < 2
        return True

    def text(self):
        a = "" if self.arg is None else " %d" % self.arg
        return "%d %s%s" % (self.off, self.name, a)


def decode(code):
    """Instructions of co_code; raises ValueError if malformed."""
    insts, i, ext, start = [], 0, 0, None
    if len(code) % 2:
        raise ValueError("odd co_code length")
    while i < len(code):
        op, a = code[i], code[i + 1]
        if start is None:
            start = i
        if op not in VALID_OPS:
            raise ValueError("invalid opcode %d at %d" % (op, i))
        if op == EXTENDED_ARG:
            ext = (ext | a) << 8
            i += 2
            continue
        arg = (ext | a) if op in HASARG else None
        if op not in HASARG and a:
            raise ValueError("argument byte on %s at %d" % (OPNAME[op], i))
        end = i + 2 + 2 * CACHES[op]
        if end > len(code):
            raise ValueError("caches past the end at %d" % i)
        if any(code[j] != CACHE or code[j + 1] for j in range(i + 2, end, 2)):
            raise ValueError("non-zero cache after %s at %d" % (OPNAME[op], i))
        insts.append(Inst(len(insts), start, i, op, arg, end))
        ext, start = 0, None
        i = end
    if start is not None:
        raise ValueError("dangling EXTENDED_ARG")
    return insts


# --- Exception table codec ---------------------------------------------------
# Entries are (start, end, target, depth, lasti) with byte offsets and an
# exclusive end, like dis._parse_exception_table; the encoding is in units.

def parse_table(raw):
    entries, pos = [], 0

    def varint():
        nonlocal pos
        b = raw[pos]
        pos += 1
        v = b & 63
        while b & 64:
            b = raw[pos]
            pos += 1
            v = (v << 6) | (b & 63)
        return v

    while pos < len(raw):
        if not raw[pos] & 0x80:
            raise ValueError("entry without start bit at byte %d" % pos)
        start = varint()
        length = varint()
        target = varint()
        dl = varint()
        entries.append((2 * start, 2 * (start + length), 2 * target,
                        dl >> 1, dl & 1))
    return entries


def _varint(v, first):
    chunks = [v & 63]
    v >>= 6
    while v:
        chunks.append(v & 63)
        v >>= 6
    chunks.reverse()
    out = bytearray(c | 0x40 for c in chunks[:-1]) + bytes([chunks[-1]])
    if first:
        out[0] |= 0x80
    return bytes(out)


def encode_table(entries):
    out = bytearray()
    for start, end, target, depth, lasti in entries:
        assert start % 2 == 0 and end % 2 == 0 and target % 2 == 0
        assert end > start
        out += _varint(start // 2, True)
        out += _varint((end - start) // 2, False)
        out += _varint(target // 2, False)
        out += _varint((depth << 1) | lasti, False)
    return bytes(out)


# --- Tagged real-stack abstract interpretation -------------------------------
# Slot tags: None (any value), ('X', site) live bound __exit__, ('P', site)
# pending __aexit__ (await of __aenter__ not done), ('C', site) exit already
# called, 'M' different tags on merged paths.

def is_x(t):
    return isinstance(t, tuple) and t[0] == "X"



def pop_n(s, n):
    """Pops up to `n` tags off the abstract stack `s` (an underflow is
    the depth check's, not this tool's)."""
    for _ in range(n):
        if s:
            s.pop()

class Flow:
    """Fixpoint over instructions with normal and exception edges."""

    def __init__(self, co, code, table, insts=None):
        self.co = co
        self.code = code
        self.table = table
        self.insts = insts if insts is not None else decode(code)
        self.at = {ins.start: ins.idx for ins in self.insts}
        self.enters = {i: t for i in range(len(self.insts))
                       for t in [enter_tag(self.insts, i)] if t}
        self.by_off = {ins.off: ins.idx for ins in self.insts}
        nunits = len(code) // 2
        self.cover = [-1] * nunits
        for k in range(len(table) - 1, -1, -1):  # first entry wins, as CPython
            s, e = table[k][0], table[k][1]
            for u in range(s // 2, min(e // 2, nunits)):
                self.cover[u] = k
        self.state = [None] * len(self.insts)
        self.conflicts = set()
        self.max_depth = 0
        self._run()
        self._raise_points()

    def lookup(self, key):
        u = key // 2
        return self.cover[u] if 0 <= u < len(self.cover) else -1

    def landing(self, ins):
        """Index of the instruction a taken jump of ins runs next: its
        target, or (3.12+'s exhausted FOR_ITER) the instruction after the
        END_FOR (3.13: END_FOR; POP_TOP) there, which the jump skips."""
        i = self.at.get(ins.target())
        skip = SKIPPED_AFTER_TARGET.get(ins.op)
        if i is None or not skip:
            return i
        if [x.op for x in self.insts[i:i + len(skip)]] != list(skip):
            return None  # malformed: no landing
        return i + len(skip)

    def landing_offset(self, ins):
        i = self.landing(ins)
        return self.insts[i].start if i is not None and i < len(self.insts) else None

    # Transfer on the fall-through (jump=False) or jump edge.
    def step(self, s, ins, jump):
        """The with protocol's tags (an enter leaves the bound exit under the
        enter result: X, 3.14's self above it: S; WITH_EXCEPT_START calls it,
        COPY does not copy a tag, SWAP moves it) in every version; the
        instructions' stacks by the version's own model (step_311 or
        step_io)."""
        s = list(s)
        op, arg = ins.op, ins.arg
        if op == WITH_EXCEPT_START:
            k = HANDLER_EXIT_PEEK
            if len(s) >= k and is_x(s[-k]):
                s[-k] = ("C", s[-k][1])
            s.append(None)
        elif op == COPY:
            v = s[-arg] if 1 <= arg <= len(s) else None
            s.append(None if isinstance(v, tuple) else v)
        elif op == SWAP:
            if 2 <= arg <= len(s):
                s[-1], s[-arg] = s[-arg], s[-1]
        elif STACK_IO is not None:
            self.step_io(s, ins, jump)
        else:
            self.step_311(s, ins, jump)
        tag = self.enters.get(ins.idx)
        if tag and len(s) > WITH_SLOTS:
            slot = len(s) - 1 - WITH_SLOTS
            s[slot] = (tag, ins.off)
            for j in range(1, WITH_SLOTS):
                s[slot + j] = ("S", ins.off)
        return tuple(s)

    @staticmethod
    def step_311(s, ins, jump):
        """3.11, in place: the real stacks written by hand (the notes'
        section 4.5); the await of __aenter__ ends at the SEND's jump, which
        turns the pending __aexit__ under the receiver into a bound exit."""
        op, arg = ins.op, ins.arg
        if op == PRECALL:
            pass
        elif op == CALL:
            pop_n(s, arg + 2)
            s.append(None)
        elif op == SEND:
            if jump:
                pop_n(s, 2)
                s.append(None)
                if len(s) >= 2 and isinstance(s[-2], tuple) and s[-2][0] == "P":
                    s[-2] = ("X", s[-2][1])
            else:
                pop_n(s, 1)
                s.append(None)
        elif op in (LOAD_METHOD, PUSH_EXC_INFO):
            pop_n(s, 1)
            s += [None, None]
        elif op == FOR_ITER:
            if jump:
                pop_n(s, 1)
            else:
                s.append(None)
        elif op in (JUMP_IF_TRUE_OR_POP, JUMP_IF_FALSE_OR_POP):
            if not jump:
                pop_n(s, 1)
        else:
            eff = dis.stack_effect(op, arg if op >= HAVE_ARGUMENT else None,
                                   jump=jump)
            if eff < 0:
                pop_n(s, -eff)
            else:
                s += [None] * eff

    @staticmethod
    def step_io(s, ins, jump):
        """3.12, 3.13, in place: the real pops and pushes of pyverify's
        tables; the await of __aenter__ ends at the END_SEND
        that drops the receiver with the pending __aexit__ right under it
        (reached from the SEND's jump or from the CLEANUP_THROW of a
        throw())."""
        op, arg = ins.op, ins.arg
        if op == END_SEND:
            # receiver, value (3.15: receiver, NULL, value) above the exit
            # slots
            n = pv.count(STACK_IO[op]["pops"], 0)
            k = n + WITH_SLOTS
            pending = len(s) >= k and isinstance(s[-k], tuple) and s[-k][0] == "P"
            pop_n(s, n)
            s.append(None)
            if pending:
                s[-1 - WITH_SLOTS] = ("X", s[-1 - WITH_SLOTS][1])
        else:
            e = STACK_IO[op]
            a = arg or 0
            pop_n(s, pv.count(e["jump_pops" if jump else "pops"], a))
            s += [None] * pv.count(e["jump_pushes" if jump else "pushes"], a)

    @staticmethod
    def exit_events(s, ins):
        """State seen by a handler when ins raises: an exit call that raised
        was still called."""
        s = list(s)
        k = HANDLER_EXIT_PEEK
        if ins.op == WITH_EXCEPT_START and len(s) >= k and is_x(s[-k]):
            s[-k] = ("C", s[-k][1])
        elif ins.op == CALL and len(s) >= ins.arg + 2 and is_x(s[-(ins.arg + 2)]):
            k = -(ins.arg + 2)
            s[k] = ("C", s[k][1])
        return tuple(s)

    def handler_state(self, s, entry):
        _, _, target, depth, lasti = self.table[entry]
        s = list(s[:depth]) + [None] * max(0, depth - len(s))
        s += [None] * lasti + [None]
        return self.at.get(target), tuple(s)

    def _run(self):
        n = len(self.insts)
        if not n:
            return
        work = collections.deque()
        queued = [False] * n

        def merge(i, st):
            if i is None or i >= n:
                return
            self.max_depth = max(self.max_depth, len(st))
            old = self.state[i]
            if old is None:
                new = st
            elif len(old) != len(st):
                self.conflicts.add(i)
                return
            else:
                new = tuple(a if a == b else "M" for a, b in zip(old, st))
                if new == old:
                    return
            self.state[i] = new
            if not queued[i]:
                queued[i] = True
                work.append(i)

        # Every frame starts empty: RETURN_GENERATOR pushes the value a
        # generator's first resumption sends (the tables, every version).
        merge(0, ())
        while work:
            i = work.popleft()
            queued[i] = False
            s = self.state[i]
            ins = self.insts[i]
            for succ, st, key in self._succs(ins, s):
                if key is None:
                    merge(succ, st)
                else:
                    e = self.lookup(key)
                    if e >= 0:
                        merge(*self.handler_state(st, e))

    def _succs(self, ins, s):
        """(successor index, state, None) for normal edges and
        (None, state, lookup key) for exception edges."""
        out = []
        op = ins.op
        tgt = ins.target()
        if op not in NO_FALLTHROUGH:
            out.append((ins.idx + 1, self.step(s, ins, False), None))
        if tgt is not None:
            sj = self.step(s, ins, True)
            out.append((self.landing(ins), sj, None))
            if op in EVAL_BREAKER_JUMPS and tgt >= 2:
                out.append((None, sj, tgt - 2))
        if ins.may_raise():
            out.append((None, self.exit_events(s, ins), ins.off))
        return out

    def _raise_points(self):
        """Every reachable (instruction, lookup key, state at the raise)."""
        self.raises = []
        for ins in self.insts:
            s = self.state[ins.idx]
            if s is None:
                continue
            for succ, st, key in self._succs(ins, s):
                if key is not None:
                    self.raises.append((ins, key, st))

    def escapes_with_context(self, lo, hi):
        """Raise points with key in [lo, hi) that find no entry while an
        __exit__ is live."""
        out = []
        for ins, key, st in self.raises:
            if lo <= key < hi and self.lookup(key) < 0 and any(map(is_x, st)):
                out.append((ins, key))
        return out

    def raising_keys_in(self, lo, hi):
        return [(ins, key) for ins, key, st in self.raises if lo <= key < hi]

    def jump_targets_from_outside(self, lo, hi):
        """Jump targets (or landings) strictly inside (lo, hi) from
        instructions outside."""
        bad = []
        for ins in self.insts:
            t = ins.target()
            if t is None or lo <= ins.start < hi:
                continue
            if lo < t < hi or lo < (self.landing_offset(ins) or t) < hi:
                bad.append(ins)
        return bad


# --- Sites -------------------------------------------------------------------

class Site:
    def __init__(self, enter, first, body_entry, handler, slot, is_async):
        self.enter = enter            # Inst
        self.first = first            # Inst: first protected instruction
        self.body_entry = body_entry  # table index
        self.handler = handler        # byte offset
        self.slot = slot              # stack index of the bound __exit__
        self.is_async = is_async
        self.exits = []               # (first LOAD_CONST idx, CALL idx, end idx)
        self.entries = []             # table indices targeting the handler


def find_sites(flow, skipped):
    co, insts, table = flow.co, flow.insts, flow.table
    consts = co.co_consts
    sites = []
    for ins in insts:
        tag = flow.enters.get(ins.idx)
        if not tag:
            continue
        s = flow.state[ins.idx]
        if s is None:
            skipped["unreachable enter"] += 1
            continue
        if not compiler_enter(insts, ins.idx):
            skipped["enter not of the compiler's shape"] += 1
            continue
        is_async = tag == "P"
        i = ins.idx + 1
        if is_async:
            seq = insts[i:i + AWAIT_HEAD_LEN]
            if (len(seq) < AWAIT_HEAD_LEN or seq[0].op != GET_AWAITABLE or
                    (AWAIT_NULL and seq[1].op != PUSH_NULL) or
                    not loads_none(seq[-2], consts) or seq[-1].op != SEND):
                skipped["async enter without await loop"] += 1
                continue
            i = flow.at.get(seq[-1].target())
            # 3.12+: the SEND's target is the END_SEND that ends the await.
            if (END_SEND >= 0 and i is not None and i < len(insts) and
                    insts[i].op == END_SEND):
                i += 1
        while i is not None and i < len(insts) and insts[i].op == NOP:
            i += 1
        if i is None or i >= len(insts):
            skipped["no first protected instruction"] += 1
            continue
        first = insts[i]
        e = flow.lookup(first.off)
        if e < 0:
            skipped["first protected instruction uncovered"] += 1
            continue
        _, _, target, depth, lasti = table[e]
        h = flow.at.get(target)
        slot = len(flow.step(s, ins, False)) - 1 - WITH_SLOTS
        if (h is None or h + 1 >= len(insts) or insts[h].op != PUSH_EXC_INFO or
                insts[h + 1].op != WITH_EXCEPT_START or not lasti or
                depth != slot + WITH_SLOTS):
            skipped["body entry not a with-handler entry"] += 1
            continue
        site = Site(ins, first, e, target, slot, is_async)
        site.entries = [k for k, t in enumerate(table) if t[2] == target]
        sites.append(site)
    by_enter = {st.enter.off: st for st in sites}
    # Normal exits: LOAD_CONST None x3; PRECALL 2; CALL 2 on X(site)
    # (3.12, 3.13: LOAD_CONST None x3; CALL 2; 3.14: CALL 3, the X below
    # its self).
    npre = 1 if HAS_PRECALL else 0
    callee = -(EXIT_CALL_ARG + 2)
    for ins in insts:
        if ins.op != CALL or ins.arg != EXIT_CALL_ARG or ins.idx < 3 + npre:
            continue
        s = flow.state[ins.idx]
        if s is None or len(s) < -callee or not is_x(s[callee]):
            continue
        j = ins.idx
        pre = insts[j - 1]
        lcs = insts[j - 3 - npre:j - npre]
        if (HAS_PRECALL and (pre.op != PRECALL or pre.arg != 2)) or not all(
                loads_none(c, consts) for c in lcs):
            continue
        site = by_enter.get(s[callee][1])
        if site is None:
            continue
        if site.is_async:
            for shape in ASYNC_EXIT_TAILS:
                names = [t.name for t in insts[j + 1:j + 1 + len(shape)]]
                if names == shape:
                    break
            else:
                skipped["async exit of unexpected shape"] += 1
                continue
            end = j + len(shape)
        else:
            if j + 1 >= len(insts) or insts[j + 1].op != POP_TOP:
                skipped["exit call not followed by POP_TOP"] += 1
                continue
            end = j + 1
        site.exits.append((j - 3 - npre, j, end))
    return sites


# The await of __aexit__ after an async with's exit call, through the POP_TOP
# of its result. 3.12+ ends the await at END_SEND, and inside an exception
# handler places the throw() path's CLEANUP_THROW inline, right before it
# (elsewhere it is out of line and jumps back to the END_SEND).
# 3.15 pushes a NULL and None (PUSH_NULL; LOAD_COMMON_CONSTANT) before SEND.
_AWAIT_HEAD = (["GET_AWAITABLE"] + ["PUSH_NULL"] * AWAIT_NULL +
               ["LOAD_COMMON_CONSTANT" if NONE_COMMON >= 0 else "LOAD_CONST",
                "SEND"])
ASYNC_EXIT_TAILS = [_AWAIT_HEAD + ["YIELD_VALUE", "RESUME",
                                   "JUMP_BACKWARD_NO_INTERRUPT", "POP_TOP"]]
if END_SEND >= 0:
    ASYNC_EXIT_TAILS = [
        _AWAIT_HEAD + ["YIELD_VALUE", "RESUME",
                       "JUMP_BACKWARD_NO_INTERRUPT"] + cleanup +
        ["END_SEND", "POP_TOP"]
        for cleanup in ([], ["CLEANUP_THROW"])]


# --- Code objects left out --------------------------------------------------
# Three kinds of code object are neither mutated nor used as controls (none
# occurs in the 3.11 stdlib); each is listed with what pyverify reports on it.
#
# * The compiler's own back-edge fault: 3.11 and 3.12 look a backward jump's
#   eval-breaker exception up at its target - 1, and 3.12's compiler can leave
#   that unit uncovered, or covered by an entry of a with the jump is not in;
#   3.13 looks it up at the jump itself, and 3.13's compiler can leave the
#   jump uncovered (a `continue` in a for loop in a with body). Computed on
#   the unmutated code: an eval-breaker raise that leaves the frame with a
#   live __exit__, that finds an entry deeper than the stack there (the
#   unwinder's unchecked assumption), or a with handler whose __exit__ slot
#   holds no live exit. Such a code object is already wrong (measured:
#   README.md); a finding there is true, and a planted bug would not be the
#   only one.
# * The compiler's own uncovered jump (UNCOVERED_JUMPS): 3.12.1 and 3.13.0
#   leave some jumps of a with body outside its entry; a trace function's
#   exception there skips __exit__, and pyverify reports it.
# * Explicit __enter__ / __exit__ (and the async ones) attribute loads:
#   pyverify tracks those calls as contexts too (docs/checks.md), this tool's
#   model does not, so it could not tell a planted bug from the code's own.

EXPLICIT_PROTOCOL = ("__enter__", "__exit__", "__aenter__", "__aexit__")
EXPLICIT_KIND = "explicit __enter__/__exit__ calls"
LOAD_ATTR = _op("LOAD_ATTR")
LOAD_SUPER_ATTR = _op("LOAD_SUPER_ATTR")  # 3.12+


def back_edge_faults(flow, sites):
    handlers = {s.handler for s in sites}
    out = []
    for ins, key, st in flow.raises:
        # Only the eval breaker's raises: at target - 1 (3.11, 3.12), at the
        # jump (3.13's JUMP_BACKWARD).
        if key == ins.off and not (not TRAITS["breaker_at_back_edge_target"]
                                   and ins.op == JUMP_BACKWARD):
            continue
        e = flow.lookup(key)
        if e < 0:
            if any(map(is_x, st)):
                out.append("%s: lookup key %d has no entry, an __exit__ is "
                           "live" % (ins.text(), key))
            continue
        t = flow.table[e]
        if t[3] > len(st):
            out.append("%s: lookup key %d finds entry %s, deeper than the "
                       "stack (%d)" % (ins.text(), key, fmt_entry(t), len(st)))
        elif t[2] in handlers and not (t[3] >= WITH_SLOTS and
                                       is_x(st[t[3] - WITH_SLOTS])):
            out.append("%s: lookup key %d finds with-handler entry %s, no "
                       "live __exit__ at depth %d" % (ins.text(), key,
                                                      fmt_entry(t), t[3]))
    return out


# The jumps 3.12.1, 3.13.0 and 3.14.2 leave outside a with's entry while its
# __exit__ is live: 3.12's JUMP_BACKWARD closing a loop, 3.13's conditional
# jump before it and JUMP_BACKWARD_NO_INTERRUPT after CLEANUP_THROW; 3.14
# also the NOT_TAKEN after a conditional jump and a loop's JUMP_BACKWARD
# (the exemptions of corpus-block-stack-ast-3.14). A trace function's
# exception there skips __exit__ (measured:
# tests/versions/check_with_body_coverage.py); pyverify reports
# with-body-uncovered.
_COND_JUMPS = {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE",
               "POP_JUMP_IF_NOT_NONE"}
UNCOVERED_JUMPS = {(3, 12): {"JUMP_BACKWARD"},
                   (3, 13): _COND_JUMPS | {"JUMP_BACKWARD_NO_INTERRUPT"},
                   (3, 14): _COND_JUMPS | {"JUMP_BACKWARD_NO_INTERRUPT",
                                           "NOT_TAKEN", "JUMP_BACKWARD"},
                   # 3.15.0rc1 leaves the same (docs/versions.md, "3.15")
                   (3, 15): _COND_JUMPS | {"JUMP_BACKWARD_NO_INTERRUPT",
                                           "NOT_TAKEN", "JUMP_BACKWARD"},
                   }.get(PY, set())


def uncovered_jump_faults(flow):
    out = []
    ops = {_op(n) for n in UNCOVERED_JUMPS}
    for ins in flow.insts:
        st = flow.state[ins.idx]
        if ins.op not in ops or st is None:
            continue
        live = [k for k, t in enumerate(st) if is_x(t)]
        if not live:
            continue
        e = flow.lookup(ins.off)
        depth = flow.table[e][3] if e >= 0 else 0
        if depth < live[-1] + WITH_SLOTS:  # the entry keeps the exit slots
            out.append("%s: no entry keeps the live __exit__ at depth %d"
                       % (ins.text(), live[-1]))
    return out


def explicit_protocol_calls(co, insts):
    names = set()
    for i in insts:
        if i.op in (LOAD_ATTR, LOAD_SUPER_ATTR, LOAD_METHOD):
            # the name index: 3.11's LOAD_ATTR arg, 3.12's arg >> 1, ...
            # (OperandRules.def)
            f, = [f for f, b, _lo, _hi in RULES[i.name] if b == "Names"]
            k = pv.field(f, i.arg)
        else:
            continue
        if co.co_names[k] in EXPLICIT_PROTOCOL:
            names.add(co.co_names[k])
    return sorted(names)


# A fourth kind, in the code objects nested in a control (which its marshal
# file holds and pyverify checks with it): the compiler's own entry deeper
# than the stack. 3.15.0rc1 runs a generator expression's `LOAD_FAST .0;
# GET_ITER 0` before RETURN_GENERATOR, and the entry covering its body keeps
# depth 2 over the POP_ITER, the LOAD_COMMON_CONSTANT None and the
# RETURN_VALUE after the loop, where the stack holds 0 and 1 values
# (docs/versions.md, "3.15": pyverify's handler-depth-exceeds-stack on each
# of the 417 generator expressions). Computed with this tool's model on the
# unmutated code object: a reachable instruction covered by an entry whose
# depth is above the stack there.
SHALLOW_KIND = "the compiler's own entry above the stack (nested)"


def shallow_entry_faults(flow):
    out = []
    for ins in flow.insts:
        st = flow.state[ins.idx]
        e = flow.lookup(ins.off)
        if st is not None and e >= 0 and flow.table[e][3] > len(st):
            out.append("%s: entry %s, stack depth %d" % (
                ins.text(), fmt_entry(flow.table[e]), len(st)))
    return out


def nested_faults(co, seen):
    """(nested code object, why) for each code object nested in `co` without
    a with of its own (those are judged in their own right) that has the
    compiler's own entry above the stack."""
    out = []
    for sub in list(walk_code(co))[1:]:
        if id(sub) in seen or any(op in sub.co_code[::2] for op in ENTER_OPS):
            continue
        seen.add(id(sub))
        table = parse_table(sub.co_exceptiontable)
        if not table:
            continue
        flow = Flow(sub, sub.co_code, table)
        if flow.conflicts:
            continue
        faults = shallow_entry_faults(flow)
        if faults:
            out.append((sub, (SHALLOW_KIND, "; ".join(faults))))
    return out


def excluded_reason(co, flow, sites):
    """(kind, detail) if the code object is left out (see above), else None."""
    faults = back_edge_faults(flow, sites)
    if faults:
        return ("the compiler's own back-edge fault", "; ".join(faults))
    faults = uncovered_jump_faults(flow)
    if faults:
        return ("the compiler's own uncovered jump", "; ".join(faults))
    names = explicit_protocol_calls(co, flow.insts)
    if names:
        return (EXPLICIT_KIND, ", ".join(names))
    return None


# --- Mutations ---------------------------------------------------------------

class Mutant:
    __slots__ = ("cls", "variant", "src", "qualname", "firstlineno", "site",
                 "desc", "expected", "code_obj", "region", "harmless",
                 "stacksize_note", "path", "reported", "detected", "orig_co",
                 "messages", "code", "table", "harmless_fn", "kills",
                 "kills_fn", "baseline")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))

    def finalize(self):
        """Build the code object from the planted code and table, with the
        mutant's own flow (the depth it needs, its harmless reason). Done
        only for the mutants kept (--limit samples before it: the flow is
        most of the cost)."""
        co, code, table = self.orig_co, self.code, self.table
        mflow = Flow(co, code, table)
        stacksize = co.co_stacksize
        need = mflow.max_depth
        for t in table:  # a handler is entered at depth + lasti + 1
            need = max(need, t[3] + t[4] + 1)
        if need > stacksize:
            self.stacksize_note = "co_stacksize %d -> %d" % (stacksize, need)
            stacksize = need
        self.code_obj = co.replace(co_code=code,
                                   co_exceptiontable=encode_table(table),
                                   co_stacksize=stacksize)
        self.harmless = self.harmless_fn(mflow) if self.harmless_fn else None
        # A mutant that leaves another with unreachable changes which code
        # runs, not the balance of what runs: see README.md, "Mutants that
        # kill a with".
        self.kills = self.kills_fn(mflow) if self.kills_fn else None
        if self.kills is not None and not self.harmless:
            self.expected = KILLED_WITH_EXPECTED
        self.code = self.table = self.harmless_fn = self.kills_fn = None


EXPECTED = {
    "drop-exit": "context-not-exited",
    "retarget-handler": "with-handler-mismatch",
    "entry-depth": "with-handler-mismatch",
    "drop-entry": "context-not-exited",
    "dup-enter": "context-not-exited",
    "swap-exits": "context-exit-order",
    "shrink-entry": "context-not-exited",
    "jump-into-with": "with-body-entered-without-enter",
}
if WITH_SLOTS > 1:
    # 3.14's two-slot context and six-instruction enter (README.md).
    EXPECTED.update({
        "drop-load-exit": "context-not-exited",
        "drop-enter-call": "with-body-entered-without-enter",
        "swap-exit-self": "context-not-exited",
        "swap-self": "context-exit-order",
    })
CLASSES = list(EXPECTED)
# What a mutant whose change leaves a with's BEFORE_WITH unreachable must get
# instead: the remark naming the dead range that holds it (pyverify judges
# only reachable code; the reachable code of such a mutant is balanced).
KILLED_WITH_EXPECTED = "unreachable-code"


def patch(code, start, units):
    """Replace code units from byte `start` with (op, arg) pairs."""
    b = bytearray(code)
    for k, (op, arg) in enumerate(units):
        b[start + 2 * k] = op
        b[start + 2 * k + 1] = arg
    return bytes(b)


def fmt_entry(t):
    s, e, tg, d, l = t
    return "%d to %d -> %d [%d]%s" % (s, e - 2, tg, d, " lasti" if l else "")


def names_of(insts):
    return ", ".join("%d %s" % (i.off, i.name) for i in insts)


class Mutator:
    def __init__(self, src, co, flow, sites):
        self.src, self.co, self.flow, self.sites = src, co, flow, sites
        self.code = co.co_code
        self.table = flow.table
        self.insts = flow.insts
        self.out = []

    def emit(self, cls, variant, site, desc, code=None, table=None,
             region=None, harmless_fn=None, kills_fn=None):
        code = self.code if code is None else code
        table = self.table if table is None else table
        # The mutant's own flow (depth needed, harmless reason) comes later:
        # Mutant.finalize().
        self.out.append(Mutant(
            cls=cls, variant=variant, src=self.src, qualname=self.co.co_qualname,
            firstlineno=self.co.co_firstlineno, site=site.enter.off, desc=desc,
            expected=EXPECTED[cls], region=region, orig_co=self.co,
            code=code, table=table, harmless_fn=harmless_fn,
            kills_fn=kills_fn))

    def entry_insts(self, t):
        return [i for i in self.insts if t[0] <= i.start < t[1]]

    def unused_entry_reason(self, t):
        """Harmless reason if no reachable raise has its key in entry t."""
        if self.flow.raising_keys_in(t[0], t[1]):
            return None
        covered = self.entry_insts(t)
        live = [i for i in covered if self.flow.state[i.idx] is not None]
        if not live:
            return "entry %s covers only unreachable instructions" % fmt_entry(t)
        return ("entry %s covers only %s, none of which can raise: the entry "
                "is never consulted" % (fmt_entry(t), names_of(live)))

    def uncovered_reason(self, lo, hi):
        """For drop/shrink: None if an exception can escape the frame from
        [lo, hi) with a live __exit__ in the mutant, else the reason."""
        def fn(mflow):
            if mflow.escapes_with_context(lo, hi):
                return None
            covered = [i for i in self.insts if lo <= i.start < hi]
            live = [i for i in covered if self.flow.state[i.idx] is not None]
            if not live:
                return "the uncovered instructions (%s) are unreachable" % (
                    names_of(covered))
            raising = [i for i in live if i.may_raise()]
            if raising:
                return ("the uncovered %s may raise but no __exit__ is live "
                        "there" % names_of(raising))
            what = "instruction" if len(live) == 1 else "instructions"
            jumps = [i for i in live if i.op in EVAL_BREAKER_JUMPS]
            extra = ""
            if jumps:
                extra = " (%s raise%s only through the eval breaker, with " \
                    "lookup key target - 1 = %s, outside the uncovered " \
                    "range)" % (
                        names_of(jumps), "s" if len(jumps) == 1 else "",
                        ", ".join(str(i.target() - 2) for i in jumps))
            return "the uncovered %s %s cannot raise%s" % (
                what, names_of(live), extra)
        return fn

    def run(self):
        for site in self.sites:
            self.drop_exit(site)
            self.retarget(site)
            self.entry_depth(site)
            self.drop_entry(site)
            self.dup_enter(site)
            self.swap_exits(site)
            self.shrink_entry(site)
            self.jump_into_with(site)
            if WITH_SLOTS > 1:
                self.drop_load_exit(site)
                self.drop_enter_call(site)
                self.swap_exit_self(site)
                self.swap_self(site)
        return self.out

    # -- classes --

    def drop_exit(self, site):
        for n, (lc, call, end) in enumerate(site.exits):
            # From the PRECALL (3.12+: the CALL) through the POP_TOP.
            pre = self.insts[call - 1] if HAS_PRECALL else self.insts[call]
            lo, hi = pre.start, self.insts[end].end
            if pre.start != pre.off:
                continue
            units = (hi - lo) // 2
            npop = EXIT_CALL_ARG + 2  # the exit slots and the three Nones
            if units < npop:
                continue
            code = patch(self.code, lo, [(POP_TOP, 0)] * npop +
                         [(NOP, 0)] * (units - npop))
            table, extra = None, ""
            outside = self.flow.jump_targets_from_outside(lo, hi)
            if site.is_async and not HAS_PRECALL:
                # 3.12+: the await loop's YIELD_VALUE has an entry of its own
                # to a CLEANUP_THROW (inline, or out of line jumping back to
                # the loop's END_SEND). Rewritten, the entry covers NOPs only
                # (never consulted): it is dropped, which leaves the
                # CLEANUP_THROW and its jump back unreachable.
                inside = [k for k, t in enumerate(self.table)
                          if lo <= t[0] and t[1] <= hi]
                if inside:
                    table = [t for k, t in enumerate(self.table) if k not in inside]
                    extra = "; entry %s inside it dropped" % ", ".join(
                        fmt_entry(self.table[k]) for k in inside)
                if outside:
                    mflow = Flow(self.co, code, table or self.table)
                    if any(mflow.state[i.idx] is not None for i in outside):
                        continue
            elif outside:
                continue
            self.emit("drop-exit", "exit%d" % n, site,
                      "exit of with@%d at %d: %s..%s -> POP_TOP x%d + NOP x%d%s" % (
                          site.enter.off, self.insts[lc].off, pre.text(),
                          self.insts[end].text(), npop, units - npop, extra),
                      code=code, table=table, region=(self.insts[lc].start, hi))

    def retarget(self, site):
        if len(self.sites) < 2:
            return
        k = self.sites.index(site)
        t = self.table[site.body_entry]
        for step in range(1, len(self.sites)):
            other = self.sites[(k + step) % len(self.sites)]
            if other.handler != site.handler and not t[0] <= other.handler < t[1]:
                break
        else:
            return
        table = list(self.table)
        table[site.body_entry] = (t[0], t[1], other.handler, t[3], t[4])
        self.emit("retarget-handler", "to%d" % other.enter.off, site,
                  "body entry %s of with@%d retargeted to %d (handler of with@%d)" % (
                      fmt_entry(t), site.enter.off, other.handler, other.enter.off),
                  table=table, region=(t[0], t[1]),
                  harmless_fn=lambda m, t=t: self.unused_entry_reason(t),
                  kills_fn=lambda m, o=other: (
                      o.enter.off if m.state[o.enter.idx] is None else None))

    def entry_depth(self, site):
        t = self.table[site.body_entry]
        # 3.14 also: both exit slots dropped on unwind (minus2).
        for delta in (-1, +1) + ((-WITH_SLOTS,) if WITH_SLOTS > 1 else ()):
            d = t[3] + delta
            if d < 0:
                continue
            table = list(self.table)
            table[site.body_entry] = (t[0], t[1], t[2], d, t[4])
            self.emit("entry-depth", "%s%d" % ("minus" if delta < 0 else "plus",
                                               abs(delta)), site,
                      "body entry %s of with@%d: depth %d -> %d" % (
                          fmt_entry(t), site.enter.off, t[3], d),
                      table=table, region=(t[0], t[1]),
                      harmless_fn=lambda m, t=t: self.unused_entry_reason(t))

    def drop_entry(self, site):
        for k in site.entries:
            t = self.table[k]
            table = self.table[:k] + self.table[k + 1:]
            self.emit("drop-entry", "entry%d" % k, site,
                      "with-body entry %s of with@%d dropped" % (
                          fmt_entry(t), site.enter.off),
                      table=table, region=(t[0], t[1]),
                      harmless_fn=self.uncovered_reason(t[0], t[1]))

    def dup_enter(self, site):
        # 3.14's enter is six instructions (nine code units): no spare
        # room after an enter holds a second one.
        if site.is_async or BEFORE_WITH < 0:
            return
        nxt = self.insts[site.enter.idx + 1]
        if (nxt.op not in ONE_UNIT_STORES or nxt.start != nxt.off or
                nxt.end != nxt.off + 2):
            return
        code = patch(self.code, nxt.off, [(BEFORE_WITH, 0)])
        self.emit("dup-enter", "", site,
                  "%s after BEFORE_WITH@%d -> BEFORE_WITH" % (
                      nxt.text(), site.enter.off),
                  code=code, region=(site.enter.start, nxt.end))

    def jump_targets(self):
        """Jump targets, and where 3.12+'s exhausted FOR_ITER lands."""
        if not hasattr(self, "_targets"):
            self._targets = ({i.target() for i in self.insts} |
                             {self.flow.landing_offset(i) for i in self.insts
                              if i.op in SKIPPED_AFTER_TARGET}) - {None}
        return self._targets

    def swap_exits(self, site):
        """Two stack-neutral ways to make the inner exit call the outer
        __exit__ (CPython emits no spare unit on the fall-through path, and a
        CALL without its PRECALL would break the compiler's depth accounting):
        a NOP right before the inner exit becomes SWAP k; or, on a return
        path (value kept under the exits), the inner SWAP 2 becomes SWAP 3
        and the directly following outer SWAP 2 a NOP."""
        targets = self.jump_targets()
        insts = self.insts
        mine = ("X", site.enter.off)
        # A NOP right after the first protected instruction (a `try:` or
        # `while True:` line) dominates the whole body: as SWAP k it makes
        # every exit of this with (normal and handler) call the outer one.
        nop = insts[site.first.idx + 1] if site.first.idx + 1 < len(insts) else None
        s = self.flow.state[nop.idx] if nop else None
        if (nop is not None and nop.op == NOP and nop.start == nop.off and
                nop.start not in targets and s and s[-1] == mine):
            below = [q for q in range(len(s) - 1) if is_x(s[q])]
            if below:
                q = below[-1]
                k = len(s) - q
                code = patch(self.code, nop.off, [(SWAP, k)])
                self.emit("swap-exits", "body-nop", site,
                          "NOP at %d at the start of the body of with@%d "
                          "becomes SWAP %d: its exits call the exit of with@%d "
                          "(slot %d) while it is still active" % (
                              nop.off, site.enter.off, k, s[q][1], q),
                          code=code, region=(site.enter.start, nop.end))
        for n, (lc, call, end) in enumerate(site.exits):
            if lc < 1 or insts[lc].start in targets:
                continue
            prev = insts[lc - 1]
            s = self.flow.state[lc - 1]
            if not s or prev.start != prev.off:
                continue
            if prev.op == NOP and s[-1] == mine:
                below = [q for q in range(len(s) - 1) if is_x(s[q])]
                if not below:
                    continue
                q = below[-1]
                k = len(s) - q
                code = patch(self.code, prev.off, [(SWAP, k)])
                self.emit("swap-exits", "nop%d" % n, site,
                          "exit of with@%d at %d: the NOP before it becomes "
                          "SWAP %d, so it calls the exit of with@%d (slot %d) "
                          "and the later exit of with@%d calls this one" % (
                              site.enter.off, insts[lc].off, k, s[q][1], q,
                              s[q][1]),
                          code=code, region=(prev.start, insts[end].end))
                continue
            # Return path: [.., Xo, Xi, v] SWAP 2; inner exit; SWAP 2; outer exit.
            if (prev.op != SWAP or prev.arg != 2 or len(s) < 3 or
                    s[-2] != mine or not is_x(s[-3])):
                continue
            outer = s[-3]
            k = 6 if HAS_PRECALL else 5  # SWAP 2; None x3; [PRECALL 2;] CALL 2
            nxt = insts[end + 1:end + 1 + k]
            if (len(nxt) < k or nxt[0].op != SWAP or nxt[0].arg != 2 or
                    nxt[0].start != nxt[0].off or nxt[0].start in targets or
                    nxt[k - 1].op != CALL or nxt[k - 1].arg != 2 or
                    not self.flow.state[nxt[k - 1].idx] or
                    self.flow.state[nxt[k - 1].idx][-4] != outer or
                    (HAS_PRECALL and nxt[4].op != PRECALL) or
                    not all(loads_none(c, self.co.co_consts)
                            for c in nxt[1:4])):
                continue
            code = patch(self.code, prev.off, [(SWAP, 3)])
            code = patch(code, nxt[0].off, [(NOP, 0)])
            self.emit("swap-exits", "ret%d" % n, site,
                      "return path at %d: SWAP 2 -> SWAP 3 before the exit of "
                      "with@%d and SWAP 2 -> NOP at %d before the exit of "
                      "with@%d: the outer exit is called first" % (
                          prev.off, site.enter.off, nxt[0].off, outer[1]),
                      code=code, region=(prev.start, nxt[k - 1].end))

    def shrink_entry(self, site):
        for k in site.entries:
            t = self.table[k]
            covered = self.entry_insts(t)
            if len(covered) < 2:
                continue
            last = covered[-1]
            table = list(self.table)
            table[k] = (t[0], last.start, t[2], t[3], t[4])
            self.emit("shrink-entry", "entry%d" % k, site,
                      "with-body entry %s of with@%d shrunk to end before %s" % (
                          fmt_entry(t), site.enter.off, last.text()),
                      table=table, region=(last.start, t[1]),
                      harmless_fn=self.uncovered_reason(last.start, t[1]))


    # -- 3.14: the enter sequence and the two-slot context --

    def enter_units(self, site, k, units, cls, what):
        """Plant `units` at the k-th instruction of the site's enter (COPY 1;
        LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__;
        CALL 0), which must have no prefix."""
        ins = self.insts[site.enter.idx - 5 + k]
        if ins.start != ins.off:
            return
        self.emit(cls, "", site, "%s of with@%d -> %s: %s" % (
                      ins.text(), site.enter.off,
                      "; ".join(OPNAME[op] + ("" if op not in HASARG else
                                              " %d" % a) for op, a in units),
                      what),
                  code=patch(self.code, ins.off, units),
                  region=(self.insts[site.enter.idx - 5].start, site.enter.end))

    def drop_load_exit(self, site):
        """LOAD_SPECIAL __exit__ becomes COPY 1 (same depth): the manager
        takes both exit slots and its __exit__ is never called (the exit
        calls the manager; measured on 3.14.2)."""
        self.enter_units(site, 1, [(COPY, 1)], "drop-load-exit",
                         "the manager in the exit slots, __exit__ never loaded")

    def drop_enter_call(self, site):
        """The CALL 0 of __enter__ and its caches become POP_TOP and NOPs
        (same depth): the body runs, and its exits call __exit__, without
        __enter__ (measured on 3.14.2): the body is entered without the
        enter, with-body-entered-without-enter (context-exit-without-enter
        too where a normal exit runs). Sync only: an async with's await then
        fails on the unentered __aenter__ function, outside the body."""
        if site.is_async:
            return
        n = (site.enter.end - site.enter.off) // 2
        self.enter_units(site, 5, [(POP_TOP, 0)] + [(NOP, 0)] * (n - 1),
                         "drop-enter-call", "__enter__ never called")

    def swap_exit_self(self, site):
        """The enter's SWAP 2 becomes a NOP: the exit's function and self
        slots are exchanged, so every exit calls the manager (with the
        __exit__ function as its argument) and never __exit__ (measured on
        3.14.2)."""
        self.enter_units(site, 2, [(NOP, 0)], "swap-exit-self",
                         "the exit's function and self slots exchanged")

    def swap_self(self, site):
        """A NOP with this with's self on top (right after its first
        protected instruction, or right before one of its normal exits not
        jumped to) becomes SWAP k with the self of the nearest enclosing
        live with: each exit calls its own __exit__ function on the other's
        manager, so the inner exit exits the outer context first (measured
        on 3.14.2: enter a, enter b, exit a, exit b). The pair of slots of a
        context cannot be moved by one SWAP: 3.14 has no swap-exits."""
        targets = self.jump_targets()
        mine = ("S", site.enter.off)
        cands = []
        if site.first.idx + 1 < len(self.insts):
            cands.append(("body-nop", self.insts[site.first.idx + 1]))
        for n, (lc, call, end) in enumerate(site.exits):
            if lc >= 1 and self.insts[lc].start not in targets:
                cands.append(("nop%d" % n, self.insts[lc - 1]))
        done = set()
        for variant, nop in cands:
            s = self.flow.state[nop.idx]
            if (nop.op != NOP or nop.start != nop.off or nop.start in targets or
                    nop.off in done or not s or s[-1] != mine):
                continue
            below = [q for q in range(1, len(s) - 1) if is_x(s[q - 1]) and
                     s[q] == ("S", s[q - 1][1])]
            if not below:
                continue
            done.add(nop.off)
            q = below[-1]
            k = len(s) - q
            self.emit("swap-self", variant, site,
                      "NOP at %d in the body of with@%d becomes SWAP %d: its "
                      "self and the self of with@%d (slot %d) are exchanged" % (
                          nop.off, site.enter.off, k, s[q][1], q),
                      code=patch(self.code, nop.off, [(SWAP, k)]),
                      region=(nop.start, nop.end))

    # -- jump-into-with --

    def outside_body(self, site, ins):
        """Reachable, not covered by one of the site's with-body entries, and
        no slot of its state belongs to the site (its __exit__ is not on the
        stack, live or called)."""
        s = self.flow.state[ins.idx]
        if s is None or self.flow.lookup(ins.off) in site.entries:
            return False
        return not any(isinstance(t, tuple) and t[1] == site.enter.off
                       for t in s)

    def body_targets(self, site):
        """(instruction, depth) inside the site's body after its first
        protected instruction (the store / POP_TOP of the enter result):
        reachable, covered by a with-body entry, the site's __exit__ live."""
        out = []
        for ins in self.insts:
            if ins.start <= site.first.start:
                continue
            s = self.flow.state[ins.idx]
            if (s is None or self.flow.lookup(ins.off) not in site.entries or
                    len(s) <= site.slot or s[site.slot] != ("X", site.enter.off)):
                continue
            out.append((ins, len(s)))
        return out

    def jump_sources(self, site):
        """(instruction, opcodes it may become, depth on its jump edge, how):
        an existing jump outside the body (keeps its opcode: a forward jump
        stays forward), or an outside NOP that becomes JUMP_FORWARD /
        JUMP_BACKWARD (one unit, like the NOP)."""
        out = []
        for ins in self.insts:
            if not self.outside_body(site, ins):
                continue
            s = self.flow.state[ins.idx]
            if ins.op in PLANTABLE_JUMPS and not self.await_machinery(ins):
                st, ops, how = self.flow.step(s, ins, True), (ins.op,), "retarget"
            elif ins.op == NOP and ins.start == ins.off:
                st, ops, how = s, NOP_JUMPS, "nop"
            else:
                continue
            # Another with's live __exit__ in this with's slot is, for the
            # analysis, the same context (a resume prologue re-entering the
            # with): not this class.
            if len(st) > site.slot and is_x(st[site.slot]):
                continue
            out.append((ins, ops, len(st), how))
        return out

    def await_machinery(self, ins):
        """3.12+: a jump back into an await loop (its SEND) or to its END_SEND
        (the CLEANUP_THROW of a throw()); 3.11's are all
        JUMP_BACKWARD_NO_INTERRUPT, not in PLANTABLE_JUMPS."""
        if END_SEND < 0:
            return False
        i = self.flow.at.get(ins.target())
        return i is not None and self.insts[i].op in (SEND, END_SEND)

    @staticmethod
    def jump_units(ins, op, target):
        """Units from ins.start making `op` jump to byte `target` with the
        same number of EXTENDED_ARG prefixes, or None if it cannot (the
        argument counts from the end of the inline caches: ins.end, as `op`
        is ins's own opcode or, for a NOP, a jump without caches)."""
        back = op in BACKWARD_JUMPS
        arg = (ins.end - target) // 2 if back else (target - ins.end) // 2
        if arg < 0 or (back and arg == 0):
            return None
        k = (ins.off - ins.start) // 2
        if arg >= 256 ** (k + 1):
            return None
        return [(EXTENDED_ARG, (arg >> (8 * (k - i))) & 0xFF) for i in range(k)] \
            + [(op, arg & 0xFF)]

    def jump_into_with(self, site):
        """One mutant per site: a jump from outside the body retargeted (or
        an outside NOP made a jump) to an instruction inside it; the pair
        whose depths agree is preferred (then existing jumps, then code
        order), so the mutant is not merely a stack-depth conflict."""
        targets = self.body_targets(site)
        if not targets:
            return
        best = None
        for src, ops, sdepth, how in self.jump_sources(site):
            for tgt, tdepth in targets:
                for op in ops:
                    units = self.jump_units(src, op, tgt.start)
                    if units is None:
                        continue
                    key = (sdepth != tdepth, how != "retarget", src.off, tgt.off)
                    if best is None or key < best[0]:
                        best = (key, src, tgt, op, units, sdepth, tdepth, how)
                    break
        if best is None:
            return
        _, src, tgt, op, units, sdepth, tdepth, how = best
        code = patch(self.code, src.start, units)
        self.emit("jump-into-with", "%s-%s" % (
                      how, "depth-agrees" if sdepth == tdepth else "depth-differs"),
                  site,
                  "%s becomes %s to %s, inside the body of with@%d (depth %d "
                  "on the jump, %d at the target)" % (
                      src.text(), OPNAME[op], tgt.text(), site.enter.off,
                      sdepth, tdepth),
                  code=code, region=(min(src.start, tgt.start),
                                     max(src.end, tgt.end)))


# --- Corpus walk -------------------------------------------------------------

def walk_code(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from walk_code(c)


def load_pyc(path):
    with open(path, "rb") as f:
        data = f.read()
    return marshal.loads(data[16:])


def sanity_check(m):
    """The mutant decodes with dis and with our decoder, and its table
    round-trips; returns an error string or None."""
    co = m.code_obj
    try:
        insts = decode(co.co_code)
        ours = parse_table(co.co_exceptiontable)
        theirs = [(e.start, e.end, e.target, e.depth, int(e.lasti))
                  for e in dis._parse_exception_table(co)]
        if ours != theirs:
            return "table differs from dis: %r vs %r" % (ours, theirs)
        if encode_table(ours) != co.co_exceptiontable:
            return "table does not re-encode"
        starts = {i.start for i in insts}
        ends = {i.end for i in insts}
        prev_end = 0
        for s, e, t, d, l in ours:
            if s not in starts or e not in ends or e <= s or s < prev_end:
                return "entry %s off instruction bounds or unsorted" % (
                    fmt_entry((s, e, t, d, l)))
            if t not in starts or s <= t < e:
                return "entry %s target invalid" % fmt_entry((s, e, t, d, l))
            prev_end = e
        for i in insts:
            tg = i.target()
            if tg is not None and tg not in starts:
                return "jump %s to a non-instruction" % i.text()
        # Bytecode.dis() decodes through the generator get_instructions()
        # uses (_get_instructions_bytes, with the same labels and
        # positions) and formats each line: a failure of either is one here.
        dis.Bytecode(co).dis()
    except Exception as exc:  # noqa: BLE001 - any failure is a broken mutant
        return "%s: %s" % (type(exc).__name__, exc)
    if len(co.co_code) != len(m.orig_co.co_code):
        return "length changed"
    return None


def safe_name(s, n):
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", s)
    return s[:n]


# The marshal files hold this interpreter's bytecode; said for 3.11 too: a
# mutant that looks like another version's is an input error unasked.
VERSION_FLAG = ["--python-version=%d.%d" % PY]


def run_pyverify(pyverify, paths, batch=400, extra=()):
    """path -> list of diagnostics; raises on pyverify failure (rc 2+)."""
    out = collections.defaultdict(list)
    for k in range(0, len(paths), batch):
        chunk = paths[k:k + batch]
        r = subprocess.run([pyverify, "check", "--format=json", "--jobs=0",
                            *VERSION_FLAG, *extra, *chunk], capture_output=True,
                           text=True)
        if r.returncode not in (0, 1):
            raise RuntimeError("pyverify exited %d: %s" % (r.returncode,
                                                           r.stderr[-2000:]))
        doc = json.loads(r.stdout)
        for d in doc["diagnostics"]:
            out[d["file"]].append(d)
    return out


def dis_region(co, lo, hi, pad=24):
    lines = []
    for i in dis.get_instructions(co):
        if lo - pad <= i.offset < hi + pad:
            mark = ">>" if lo <= i.offset < hi else "  "
            lines.append("  %s %5d %-28s %s" % (mark, i.offset, i.opname,
                                                i.argrepr or ("" if i.arg is None else i.arg)))
    lines.append("  ExceptionTable:")
    for e in dis._parse_exception_table(co):
        lines.append("    " + fmt_entry((e.start, e.end, e.target, e.depth,
                                         int(e.lasti))))
    lines.append("  co_stacksize %d" % co.co_stacksize)
    return "\n".join(lines)


def dead_range_holds(d, off):
    """Whether the unreachable-code remark d names a range holding `off`."""
    r = re.search(r"from (\d+) to (\d+) are unreachable", d["message"])
    return bool(r) and int(r.group(1)) <= off <= int(r.group(2))


CONTROL_IDS_PREFIXES = ("context-", "with-", "stack-", "handler-", "block-",
                        "exception-table-", "exception-slot-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--pyc-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int, default=0,
                    help="sample this many mutants (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-mutants", type=int, default=1000)
    ap.add_argument("--min-rate", type=float, default=99.0)
    ap.add_argument("--left-out-too", action="store_true",
                    help="also mutate the code objects left out for the "
                    "compiler's own faults; their mutants count as detected "
                    "on an expected finding at a place (its offset or an "
                    "'also:' note's) where the unmutated code object has "
                    "none of that id")
    a = ap.parse_args()
    t0 = time.time()

    if not os.access(a.pyverify, os.X_OK):
        print("error: %s is not executable" % a.pyverify, file=sys.stderr)
        return 2
    pycs = []
    for root, dirs, files in os.walk(a.pyc_dir):
        dirs.sort()
        pycs += [os.path.join(root, f) for f in files if f.endswith(".pyc")]
    pycs.sort()
    if not pycs:
        print("error: no .pyc under %s" % a.pyc_dir, file=sys.stderr)
        return 2

    skipped = collections.Counter()
    mutants, controls, excluded = [], [], []
    nested_seen = set()
    n_code = n_sites = n_code_with = 0
    site_kinds = collections.Counter()
    for path in pycs:
        rel = os.path.relpath(path, a.pyc_dir)
        try:
            top = load_pyc(path)
        except Exception as exc:  # noqa: BLE001
            print("error: cannot load %s: %s" % (path, exc), file=sys.stderr)
            return 2
        for co in walk_code(top):
            n_code += 1
            code = co.co_code
            if not any(op in code[::2] for op in ENTER_OPS):
                continue
            insts = decode(code)
            if not any(enter_tag(insts, k) for k in range(len(insts))):
                continue
            table = parse_table(co.co_exceptiontable)
            theirs = [(e.start, e.end, e.target, e.depth, int(e.lasti))
                      for e in dis._parse_exception_table(co)]
            assert table == theirs, (rel, co.co_qualname)
            assert encode_table(table) == co.co_exceptiontable
            flow = Flow(co, code, table, insts)
            if flow.conflicts or flow.max_depth > co.co_stacksize:
                skipped["code object: own depth model disagrees"] += 1
                continue
            sites = find_sites(flow, skipped)
            if not sites:
                continue
            why = excluded_reason(co, flow, sites)
            if why:
                skipped["code object: " + why[0]] += 1
                excluded.append((rel, co, why))
                if a.left_out_too and why[0] != EXPLICIT_KIND:
                    for m in Mutator(rel, co, flow, sites).run():
                        m.baseline = (rel, co.co_qualname, co.co_firstlineno)
                        mutants.append(m)
                continue
            n_code_with += 1
            n_sites += len(sites)
            for s in sites:
                site_kinds["async" if s.is_async else "sync"] += 1
            controls.append((rel, co))
            for sub, why in nested_faults(co, nested_seen):
                skipped["code object: " + why[0]] += 1
                excluded.append((rel, sub, why))
            mutants += Mutator(rel, co, flow, sites).run()

    total_generated = len(mutants)
    if a.limit and a.limit < len(mutants):
        rng = random.Random(a.seed)
        keep = sorted(rng.sample(range(len(mutants)), a.limit))
        mutants = [mutants[k] for k in keep]
    for m in mutants:
        m.finalize()

    # Write.
    mdir = os.path.join(a.out, "mutants")
    cdir = os.path.join(a.out, "controls")
    for d in (mdir, cdir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    broken = []
    for k, m in enumerate(mutants):
        err = sanity_check(m)
        if err:
            broken.append((m, err))
        stem = "%s__%s__%s__%05d" % (safe_name(m.src[:-4], 60),
                                     safe_name(m.qualname, 60), m.cls, k)
        m.path = os.path.join(mdir, stem + ".marshal")
        with open(m.path, "wb") as f:
            f.write(marshal.dumps(m.code_obj))
    excluded_paths = []
    if excluded:
        edir = os.path.join(a.out, "excluded")
        shutil.rmtree(edir, ignore_errors=True)
        os.makedirs(edir)
        for k, (rel, co, why) in enumerate(excluded):
            p = os.path.join(edir, "%s__%s__%05d.marshal" % (
                safe_name(rel[:-4], 60), safe_name(co.co_qualname, 60), k))
            with open(p, "wb") as f:
                f.write(marshal.dumps(co))
            excluded_paths.append((p, rel, co, why))
    control_paths = []
    for k, (rel, co) in enumerate(controls):
        p = os.path.join(cdir, "%s__%s__%05d.marshal" % (
            safe_name(rel[:-4], 60), safe_name(co.co_qualname, 60), k))
        with open(p, "wb") as f:
            f.write(marshal.dumps(co))
        control_paths.append((p, co))
    if broken:
        for m, err in broken[:20]:
            print("error: mutant %s (%s) does not decode: %s" % (
                m.path, m.desc, err), file=sys.stderr)
        print("error: %d broken mutants" % len(broken), file=sys.stderr)
        return 2

    # Check.
    try:
        diags = run_pyverify(a.pyverify, [m.path for m in mutants],
                             extra=["--checks=%s" % KILLED_WITH_EXPECTED])
        cdiags = run_pyverify(a.pyverify, [p for p, _ in control_paths])
        ediags = run_pyverify(a.pyverify, [e[0] for e in excluded_paths])
    except RuntimeError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2

    def in_code(ds, co):
        return [d for d in ds if d["code"] == co.co_qualname and
                d["firstlineno"] == co.co_firstlineno]

    def cdiags_in(ds, p, co):
        return [d for d in in_code(ds.get(p, []), co)
                if d["severity"] in ("error", "warning")]

    # A control's file holds its nested code objects too; a nested one that
    # is left out is judged there, not here.
    left_out = {(rel, co.co_qualname, co.co_firstlineno)
                for _, rel, co, _ in excluded_paths}
    control_rel = {p: rel for (p, _), (rel, _) in zip(control_paths, controls)}
    control_bad = []
    for p, co in control_paths:
        bad = [d for d in cdiags.get(p, []) if d["check"].startswith(CONTROL_IDS_PREFIXES)
               and (control_rel[p], d["code"], d["firstlineno"]) not in left_out]
        if bad:
            control_bad.append((p, bad))

    # --left-out-too: the places of what pyverify reports on each left-out
    # code object, (id, offset) pairs: a finding's own and those of its
    # "also:" notes (one finding groups the places of one cause); its
    # mutants are judged on findings with a place not among them.
    def places(d):
        return {(d["check"], d["offset"])} | {
            (d["check"], n["offset"]) for n in d.get("notes", [])
            if n["message"].startswith("also:")}

    baseline = {(rel, co.co_qualname, co.co_firstlineno):
                set().union(*map(places, in_code(ediags.get(p, []), co)))
                for p, rel, co, _ in excluded_paths}
    for m in mutants:
        ds = in_code(diags.get(m.path, []), m.code_obj)
        dead = [d for d in ds if d["check"] == KILLED_WITH_EXPECTED]
        ds = [d for d in ds if d["severity"] in ("error", "warning")]
        if m.baseline:
            ds = [d for d in ds if places(d) - baseline[m.baseline]]
        m.reported = sorted({d["check"] for d in ds})
        m.messages = ["%s @%d: %s" % (d["check"], d["offset"], d["message"])
                      for d in ds]
        if m.kills is None:
            m.detected = m.expected in m.reported
        else:
            m.detected = any(dead_range_holds(d, m.kills) for d in dead)
            if m.detected:
                m.reported = sorted(m.reported + [KILLED_WITH_EXPECTED])

    # Report.
    rows = []
    per = {c: [m for m in mutants if m.cls == c] for c in CLASSES}
    missed_all, harmless_all = [], []
    for c in CLASSES:
        ms = per[c]
        harmless = [m for m in ms if m.harmless]
        live = [m for m in ms if not m.harmless]
        det = [m for m in live if m.detected]
        missed = [m for m in live if not m.detected]
        other = collections.Counter(i for m in ms for i in m.reported if i != m.expected)
        rows.append((c, len(ms), len(det), len(harmless), len(missed),
                     100.0 * len(det) / len(live) if live else 100.0, other))
        missed_all += missed
        harmless_all += harmless

    n = len(mutants)
    n_h = len(harmless_all)
    n_live = n - n_h
    n_det = sum(r[2] for r in rows)
    rate = 100.0 * n_det / n_live if n_live else 0.0

    if PY != (3, 11):
        print("bytecode: CPython %d.%d (pyverify check %s)" % (PY + (VERSION_FLAG[0],)))
    print("corpus: %d files, %d code objects, %d with sites (%d sync, %d async) in "
          "%d code objects" % (len(pycs), n_code, n_sites, site_kinds["sync"],
                               site_kinds["async"], n_code_with))
    if skipped:
        print("skipped: " + ", ".join("%s %d" % kv for kv in sorted(skipped.items())))
    if a.limit and total_generated > n:
        print("sampled %d of %d mutants (seed %d)" % (n, total_generated, a.seed))
    print()
    hdr = "%-17s %-22s %7s %8s %8s %6s %8s" % ("class", "expected id", "mutants",
                                                "detected", "harmless", "missed",
                                                "rate")
    print(hdr)
    print("-" * len(hdr))
    for c, cnt, det, h, mi, r, other in rows:
        print("%-17s %-22s %7d %8d %8d %6d %7.2f%%" % (c, EXPECTED[c], cnt, det, h, mi, r))
    print("-" * len(hdr))
    print("%-17s %-22s %7d %8d %8d %6d %7.2f%%" % ("total", "", n, n_det, n_h,
                                                   len(missed_all), rate))
    killed = [m for m in mutants if m.kills is not None and not m.harmless]
    if killed:
        print("of them, leaving another with unreachable (expected %s over its "
              "BEFORE_WITH instead): %s" % (KILLED_WITH_EXPECTED, ", ".join(
                  "%s %d (%d detected)" % (c, len(ks), sum(m.detected for m in ks))
                  for c in CLASSES
                  for ks in [[m for m in killed if m.cls == c]] if ks)))
    print()
    print("other ids reported (mutants per id):")
    for c, cnt, det, h, mi, r, other in rows:
        if other:
            print("  %-17s %s" % (c, ", ".join("%s %d" % kv for kv in sorted(other.items()))))
    print()
    print("distinct code objects (planted / reported with the expected id):")
    for c in CLASSES:
        ms = per[c]
        key = lambda m: (m.src, m.qualname, m.firstlineno)  # noqa: E731
        planted = {key(m) for m in ms}
        found = {key(m) for m in ms if m.detected}
        variants = collections.Counter(m.variant for m in ms if m.variant)
        extra = ""
        if c == "jump-into-with":
            extra = "  (" + ", ".join("%s %d" % kv for kv in sorted(variants.items())) + ")"
        print("  %-17s %5d / %5d%s" % (c, len(planted), len(found), extra))
    adj = collections.Counter(m.cls for m in mutants if m.stacksize_note)
    if adj:
        print("co_stacksize raised (mutants per class): " +
              ", ".join("%s %d" % kv for kv in sorted(adj.items())))

    # Harmless list.
    with open(os.path.join(a.out, "harmless.txt"), "w") as f:
        for m in harmless_all:
            f.write("%s  %s:%s  %s\n    reason: %s\n    pyverify: %s\n" % (
                m.cls, m.src, m.qualname, m.desc, m.harmless,
                ", ".join(m.reported) or "-"))
    print()
    print("harmless: %d (each listed in %s)" % (n_h, os.path.join(a.out, "harmless.txt")))
    kinds = collections.Counter()
    for m in harmless_all:
        r = re.sub(r"entry \d+ to \d+ -> \d+ \[\d+\]( lasti)?", "entry", m.harmless)
        r = re.sub(r"\d+ ([A-Z])", r"\1", r)
        r = re.sub(r"\d+", "N", r)
        kinds[(m.cls, r)] += 1
    for (c, r), cnt in sorted(kinds.items()):
        print("  %4d  %-15s %s" % (cnt, c, r))

    # Missed list.
    with open(os.path.join(a.out, "missed.log"), "w") as f:
        for m in missed_all:
            lo, hi = m.region
            f.write("=" * 78 + "\n")
            f.write("%s  %s:%s (line %d)\n  %s\n  file: %s\n" % (
                m.cls, m.src, m.qualname, m.firstlineno, m.desc, m.path))
            f.write("  expected %s; pyverify reported: %s\n" % (
                m.expected, ", ".join(m.reported) or "nothing"))
            for msg in m.messages:
                f.write("    " + msg + "\n")
            f.write("  original:\n" + dis_region(m.orig_co, lo, hi) + "\n")
            f.write("  mutant:\n" + dis_region(m.code_obj, lo, hi) + "\n")
    if missed_all:
        print()
        print("missed: %d (dis of each region in %s)" % (
            len(missed_all), os.path.join(a.out, "missed.log")))
        for m in missed_all:
            print("  %-16s %s:%s  %s  -> reported: %s" % (
                m.cls, m.src, m.qualname, m.desc, ", ".join(m.reported) or "nothing"))
        print("missed, by class and the ids pyverify reported instead:")
        groups = collections.Counter((m.cls, ", ".join(m.reported) or "nothing")
                                     for m in missed_all)
        for (c, ids), cnt in sorted(groups.items()):
            print("  %4d  %-16s %s" % (cnt, c, ids))

    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump([{
            "class": m.cls, "variant": m.variant, "file": m.src,
            "qualname": m.qualname, "firstlineno": m.firstlineno,
            "site": m.site, "description": m.desc, "expected": m.expected,
            "harmless": m.harmless, "stacksize": m.stacksize_note,
            "reported": m.reported, "detected": m.detected,
            "mutant": os.path.relpath(m.path, a.out),
            **({"left_out": bool(m.baseline)} if a.left_out_too else {})}
            for m in mutants], f, indent=1)

    print()
    print("controls: %d unmutated code objects, %d with context/with/stack/table/slot "
          "findings" % (len(control_paths), len(control_bad)))
    for p, bad in control_bad[:20]:
        print("  %s: %s" % (p, ", ".join(sorted({d["check"] for d in bad}))))
    if excluded_paths:
        # Each left-out code object with the ids pyverify reports on it.
        lpath = os.path.join(a.out, "left_out.txt")
        kinds = collections.Counter()
        with open(lpath, "w") as f:
            for p, rel, co, why in excluded_paths:
                ids = ", ".join(sorted({
                    d["check"] for d in cdiags_in(ediags, p, co)
                    if d["check"].startswith(CONTROL_IDS_PREFIXES)})) or "-"
                kinds[(why[0], ids)] += 1
                f.write("%s  %s:%s (line %d)\n    %s\n    pyverify: %s\n" % (
                    why[0], rel, co.co_qualname, co.co_firstlineno, why[1], ids))
        print()
        print("left out: %d code objects, neither mutated nor controls (each "
              "listed in %s), by the ids pyverify reports on them:" % (
                  len(excluded_paths), lpath))
        for (kind, ids), cnt in sorted(kinds.items()):
            print("  %4d  %-36s %s" % (cnt, kind, ids))
    lo_ms = [m for m in mutants if m.baseline and not m.harmless]
    if a.left_out_too:
        print()
        print("of them in left-out code objects (--left-out-too, judged on "
              "new findings): %d mutants in %d code objects, %d of %d "
              "non-harmless detected" % (
                  sum(1 for m in mutants if m.baseline),
                  len({m.baseline for m in mutants if m.baseline}),
                  sum(m.detected for m in lo_ms), len(lo_ms)))
    print()
    print("%d mutants, %d detected (%.2f%% of %d non-harmless), %d harmless  "
          "[%.1fs]" % (n, n_det, rate, n_live, n_h, time.time() - t0))
    ok = n >= a.min_mutants and rate >= a.min_rate and not control_bad
    if n < a.min_mutants:
        print("FAIL: fewer than %d mutants" % a.min_mutants)
    if rate < a.min_rate:
        print("FAIL: detection %.2f%% < %.2f%%" % (rate, a.min_rate))
    if control_bad:
        print("FAIL: findings on unmutated controls")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
