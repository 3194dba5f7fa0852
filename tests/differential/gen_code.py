"""Random code objects for the differential sweep (CPython is the oracle).

Runs under the interpreter whose bytecode it makes (3.11 to 3.15; 3.14
and 3.15 are Pyodide's WebAssembly builds, scripts/pyodide/python.mjs):
opcode numbers, inline-cache counts, comparison arguments and the shapes of
calls and handlers come from that interpreter's ``opcode``/``dis`` modules.

A case is a *spec* (plain JSON, so a case can be saved, rebuilt and
minimised): constants, local names, a list of items -- ``{"op": NAME, "arg":
N, "t": LABEL|None, "h": [LABEL, DEPTH, LASTI]|None}`` or ``{"label": ID}``
-- then edits applied after assembly (exception-table entries, co_stacksize,
location-table form).  ``build(spec)`` assembles it: EXTENDED_ARG where an
argument needs it, relative jump arguments from the labels, zeroed inline
caches, an exception table from the runs of instructions that share a
handler tag (as the compiler does), co_stacksize from a flow pass with
``dis.stack_effect``, a valid co_linetable, all put into a template
function's code object with ``CodeType.replace``.

``make_spec(seed, index)`` draws a case from ``random.Random(f"{seed}:{index}")``:
a well-formed program (the compiler's shapes: expressions over constants and
locals, if/else, loops bounded by a fuel local that every backward jump
re-checks, try/except with and without a match, with over the stand-in
context manager, calls of a stand-in callable that may raise, 1/0, raise,
returns) and, in about half the cases, one to three small corruptions
(operands out of range, COPY/SWAP 0 or too deep, loads of unbound locals,
instructions deleted, duplicated, swapped or replaced, a missing return, a
wrong exception-table entry, a wrong co_stacksize, empty code).  Nothing here
avoids a corruption because pyverify is known to miss it.

The function's parameters are the only way out: ``(cm, boom, exc, a, b, c)``
-- a context manager, a callable, an exception class and three values (see
run_sweep.py's child).  No LOAD_GLOBAL/LOAD_NAME/IMPORT_*, no attribute
access: nothing the code does reaches I/O.

CLI (under the target interpreter):
  gen_code.py generate --seed S --count N --out DIR [--start K] [--generators]
      DIR/code/NNNNNN.marshal per case and DIR/cases.jsonl (one spec a line)
  gen_code.py build SPEC.json OUT.marshal     rebuild one spec (a crash artifact)
  gen_code.py build-many SPECS.jsonl OUTDIR   rebuild many (OUTDIR/<line>.marshal)
  gen_code.py describe FILE.marshal           JSON: dis listing, co_code hex, table hex
"""
import argparse
import dis
import io
import json
import marshal
import opcode
import os
import random
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lit", "Inputs"))
import breakcode as bc  # noqa: E402  (the exception-table varint codec)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
import stack_io  # noqa: E402  (the real stack facts dis leaves out)

VERSION = "%d.%d" % sys.version_info[:2]
V311 = sys.version_info[:2] == (3, 11)
V313 = sys.version_info[:2] >= (3, 13)
# 3.14: `with` through LOAD_SPECIAL (no BEFORE_WITH), subscripts as BINARY_OP
# NB_SUBSCR, END_FOR; POP_ITER, NOT_TAKEN after a conditional jump, borrowed
# loads (LOAD_FAST_BORROW), LOAD_SMALL_INT; no RETURN_CONST.
V314 = sys.version_info[:2] >= (3, 14)
OPMAP = opcode.opmap
HAVE_ARGUMENT = opcode.HAVE_ARGUMENT
NB_OPS = len(dis._nb_ops)
NB_SUBSCR = [n for n, _ in dis._nb_ops].index("NB_SUBSCR") if V314 else None
# LOAD_COMMON_CONSTANT's index of None (3.15; 3.14's table has no None).
COMMON_NONE = next((k for k, c in enumerate(getattr(opcode, "_common_constants", ()))
                    if c is None), None)
# ** (8, 21) only on small constants: 7 ** 2**70 runs for ever in C.
BINOPS = [i for i in range(NB_OPS) if i not in (8, 21)]
ARGNAMES = ("cm", "boom", "exc", "a", "b", "c")
FUEL = len(ARGNAMES)          # the local every loop head decrements
# Stack slots a for loop's iterator takes in its body: 1, and from 3.15 2
# (GET_ITER pushes the iterator and an index; POP_ITER pops both).
ITER_SLOTS = 1 + dis.stack_effect(OPMAP["GET_ITER"],
                                  0 if OPMAP["GET_ITER"] >= HAVE_ARGUMENT
                                  else None)


def template(cm, boom, exc, a, b, c):
    pass


def _yield_template(a):
    yield a


def _yield_step():
    """The compiler's `yield <value>` after the value: YIELD_VALUE and the
    RESUME after it, with this version's arguments (the POP_TOP of the sent
    value follows)."""
    ins = list(dis.get_instructions(_yield_template))
    k = next(i for i, x in enumerate(ins) if x.opname == "YIELD_VALUE")
    assert ins[k + 1].opname == "RESUME", ins[k + 1]
    return [("YIELD_VALUE", ins[k].arg or 0), ("RESUME", ins[k + 1].arg or 0)]


YIELD_STEP = _yield_step()
CO_GENERATOR = 0x20


def has(name):
    return name in OPMAP


def caches(name):
    if isinstance(name, int):
        return 0
    ice = opcode._inline_cache_entries
    if hasattr(ice, "get"):   # a dict (3.12+; 3.15: a frozendict)
        return ice.get(name, 0)
    return ice[OPMAP[name]]


def opnum(name):
    return name if isinstance(name, int) else OPMAP[name]


def takes_arg(name):
    return opnum(name) >= HAVE_ARGUMENT


def _compare_args():
    """COMPARE_OP arguments the compiler writes, per operator: (plain, for a
    branch).  3.12 keeps a mask in the low bits, 3.13 a to-bool bit."""
    out = []
    for sym in ("<", "<=", "==", "!=", ">", ">="):
        plain = [i.arg for i in dis.get_instructions(
            compile(f"x = a {sym} b", "", "exec")) if i.opname == "COMPARE_OP"][0]
        branch = [i.arg for i in dis.get_instructions(
            compile(f"if a {sym} b: pass", "", "exec")) if i.opname == "COMPARE_OP"][0]
        out.append((plain, branch))
    return out


CMP = _compare_args()
CMP_SHIFT = 0 if V311 else (5 if V313 else 4)   # oparg >> CMP_SHIFT is the operator
JUMP_IF_FALSE = "POP_JUMP_FORWARD_IF_FALSE" if V311 else "POP_JUMP_IF_FALSE"
JUMP_IF_TRUE = "POP_JUMP_FORWARD_IF_TRUE" if V311 else "POP_JUMP_IF_TRUE"
UNARY = [n for n in ("UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT",
                     "UNARY_POSITIVE") if has(n)]
TERMINATORS = {"RETURN_VALUE", "RETURN_CONST", "RERAISE", "RAISE_VARARGS",
               "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
# Opcodes a "replace" corruption may put in place of another (no jumps).
REPLACEMENTS = [n for n in (
    "POP_TOP", "PUSH_NULL", "NOP", "POP_EXCEPT", "PUSH_EXC_INFO", "RERAISE",
    "CHECK_EXC_MATCH", "WITH_EXCEPT_START", "BEFORE_WITH", "RETURN_VALUE",
    "RETURN_CONST", "LOAD_CONST", "LOAD_FAST", "STORE_FAST", "COPY", "SWAP",
    "BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "UNARY_NEGATIVE",
    "UNARY_NOT", "TO_BOOL", "CALL_INTRINSIC_1", "LOAD_FAST_CHECK",
    "LOAD_FAST_AND_CLEAR", "BUILD_TUPLE", "BINARY_SUBSCR", "RAISE_VARARGS",
    "LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "END_FOR",
    "CALL_INTRINSIC_2", "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
    "LOAD_SPECIAL", "POP_ITER", "LOAD_SMALL_INT", "NOT_TAKEN",
    "LOAD_COMMON_CONSTANT", "BUILD_LIST", "BUILD_MAP", "LIST_APPEND",
    "LIST_EXTEND", "MAP_ADD") if has(n)]


# --- building a spec into a code object -----------------------------------

def is_backward(name):
    return isinstance(name, str) and "BACKWARD" in name


def is_jump(name):
    return not isinstance(name, int) and OPMAP[name] in dis.hasjrel


def assemble(items):
    """co_code bytes, {label: unit}, [(unit, item)] for the op items."""
    sizes = {}
    while True:
        labels, pos, placed = {}, 0, []
        for k, it in enumerate(items):
            if "label" in it:
                labels[it["label"]] = pos
                continue
            placed.append((pos, k))
            pos += sizes.get(k, 1) + caches(it["op"])
        changed = False
        args = {}
        for pos, k in placed:
            it = items[k]
            arg = it.get("arg", 0)
            if it.get("t") is not None and it["t"] in labels:
                end = pos + sizes.get(k, 1) + caches(it["op"])
                arg = (end - labels[it["t"]] if is_backward(it["op"])
                       else labels[it["t"]] - end)
                arg = max(arg, 0)   # a jump the wrong way: distance 0
            args[k] = arg
            need = 1
            if takes_arg(it["op"]):
                v = arg >> 8
                while v:
                    need += 1
                    v >>= 8
            if need > sizes.get(k, 1):
                sizes[k] = need
                changed = True
        if not changed:
            break
    out = bytearray()
    ext = OPMAP["EXTENDED_ARG"]
    for pos, k in placed:
        it = items[k]
        arg = args[k]
        n = sizes.get(k, 1)
        for i in range(n - 1, 0, -1):
            out += bytes([ext, (arg >> (8 * i)) & 0xFF])
        out += bytes([opnum(it["op"]), arg & 0xFF if takes_arg(it["op"]) else
                      it.get("arg", 0) & 0xFF])
        out += bytes(2 * caches(it["op"]))
    return bytes(out), labels, [(pos, items[k]) for pos, k in placed], sizes


def encode_table(entries):
    """entries: (start, end, target, depth, lasti) in code units, end
    exclusive; the varints are breakcode's (the lit tests' table codec)."""
    out = bytearray()
    for start, end, target, depth, lasti in entries:
        out += bc.encode_varint(start, first=True)
        out += bc.encode_varint(max(end - start, 0))
        out += bc.encode_varint(target)
        out += bc.encode_varint((depth << 1) | int(bool(lasti)))
    return bytes(out)


def table_entries(items, labels, placed, sizes):
    """Runs of consecutive instructions with the same handler tag."""
    entries, run = [], None
    k_of = {id(it): k for k, it in enumerate(items)}
    for pos, it in placed:
        h = it.get("h")
        end = pos + sizes.get(k_of[id(it)], 1) + caches(it["op"])
        if h is not None and h[0] not in labels:
            h = None
        if run and h == run[3]:
            run[1] = end
            continue
        if run:
            entries.append(run)
        run = [pos, end, None, h] if h is not None else None
    if run:
        entries.append(run)
    return [[s, e, labels[h[0]], h[1], bool(h[2])] for s, e, _, h in entries]


def apply_table_edits(entries, edits, labels):
    entries = [list(e) for e in entries]
    for kind, k, value in edits:
        if not entries:
            break
        e = entries[k % len(entries)]
        if kind == "depth":
            e[3] = max(0, e[3] + value)
        elif kind == "lasti":
            e[4] = not e[4]
        elif kind == "drop":
            entries.remove(e)
        elif kind == "target":
            if value in labels:
                e[2] = labels[value]
        elif kind == "end":
            e[1] = max(e[0], e[1] + value)
        elif kind == "start":
            e[0] = max(0, min(e[1], e[0] + value))
    return entries


RESUMED_WITH_SENT_VALUE = stack_io.RESUMED_WITH_SENT_VALUE[sys.version_info[:2]]


def effect(name, arg, jump=None):
    """dis.stack_effect, plus the value a generator's first resumption pushes
    where dis leaves it out (3.11's and 3.12's RETURN_GENERATOR, whose
    compilers count it in the code's start depth: scripts/stack_io.py), so
    that every frame starts empty as the tables say."""
    extra = 1 if name in RESUMED_WITH_SENT_VALUE else 0
    if jump is None:
        return dis.stack_effect(opnum(name), arg) + extra
    return dis.stack_effect(opnum(name), arg, jump=jump) + extra


def stack_size(items, entries, labels):
    """The largest depth a flow pass over the items reaches (effect() per
    edge, handler entries at their depth + lasti + 1); capped."""
    ops = [it for it in items if "op" in it]
    if not ops:
        return 0
    index_of_label, n = {}, 0
    for it in items:
        if "label" in it:
            index_of_label[it["label"]] = n
        else:
            n += 1
    # handler targets per op index, from the (edited) table in units
    unit_of, pos = [], 0
    code, lab, placed, sizes = assemble(items)
    starts = [p for p, _ in placed]
    handler_of = {}
    for s, e, t, d, l in entries:
        tgt = starts.index(t) if t in starts else None
        for i, p in enumerate(starts):
            if s <= p < e and tgt is not None:
                handler_of.setdefault(i, (tgt, d + int(l) + 1))
    depth = {0: 0}
    work, best = [0], 0
    steps = 0
    while work and steps < 20000:
        steps += 1
        i = work.pop()
        d = depth[i]
        it = ops[i]
        name = it["op"]
        succ = []
        if i in handler_of:
            succ.append(handler_of[i])
        try:
            arg = it.get("arg", 0) if takes_arg(name) else None
            if is_jump(name):
                tgt = index_of_label.get(it.get("t"))
                if tgt is not None and tgt < len(ops):
                    succ.append((tgt, d + effect(name, arg, jump=True)))
                if name not in TERMINATORS:
                    succ.append((i + 1, d + effect(name, arg, jump=False)))
            elif name not in TERMINATORS:
                succ.append((i + 1, d + effect(name, arg)))
        except (ValueError, TypeError):
            pass
        for j, dj in succ:
            if j >= len(ops) or dj < 0 or dj > 200:
                continue
            best = max(best, dj)
            if j not in depth or dj > depth[j]:
                depth[j] = dj
                work.append(j)
    return best


def linetable(nunits, mode, firstlineno):
    if mode == "none":
        return bytes([0x80 | (15 << 3)]) * nunits
    # long form, one unit each, all on the first line
    return (bytes([0x80 | (14 << 3), 0, 0, 1, 2])) * nunits


def build(spec):
    """The code object a spec describes."""
    items = spec["items"]
    code, labels, placed, sizes = assemble(items)
    entries = table_entries(items, labels, placed, sizes)
    entries = apply_table_edits(entries, spec.get("table_edits", []), labels)
    size = stack_size(items, entries, labels)
    if spec.get("stacksize") is not None:
        size = spec["stacksize"]
    else:
        size = max(0, size + spec.get("stacksize_delta", 0))
    consts = tuple(decode_const(c) for c in spec["consts"])
    varnames = tuple(spec["varnames"])
    t = template.__code__
    firstlineno = t.co_firstlineno
    flags = t.co_flags | (CO_GENERATOR if spec.get("generator") else 0)
    return t.replace(
        co_flags=flags, co_code=code, co_consts=consts, co_names=tuple(spec.get("names", ())),
        co_varnames=varnames,
        co_nlocals=len(varnames), co_stacksize=size,
        co_cellvars=tuple(spec.get("cellvars", ())), co_freevars=(),
        co_exceptiontable=encode_table(entries),
        co_linetable=linetable(len(code) // 2, spec.get("lines", "none"),
                               firstlineno),
        co_name=spec.get("name", "case"), co_qualname=spec.get("name", "case"))


def encode_const(c):
    if isinstance(c, tuple):
        return ["tuple", [encode_const(x) for x in c]]
    if isinstance(c, float):
        return ["float", c.hex()]
    if c is None:
        return ["none", None]
    if isinstance(c, bool):
        return ["bool", c]
    return [type(c).__name__, c]


def decode_const(c):
    kind, v = c
    if kind == "tuple":
        return tuple(decode_const(x) for x in v)
    if kind == "float":
        return float.fromhex(v)
    if kind == "none":
        return None
    return v


# --- drawing a random spec -------------------------------------------------

class Gen:
    def __init__(self, rng, generator=False, cells=False):
        self.rng = rng
        self.generator = generator
        self.items = []
        self.nlabels = 0
        self.handler = None
        self.tags = []
        consts = [None, 0, 1, 2, -1, 7, 2 ** 70, 0.5, -3.25, "ab", "", "b",
                  (1, 2), ("a", None), (), 1e300]
        rng.shuffle(consts)
        self.consts = consts[:rng.randint(5, len(consts))]
        for must in (None, 0, 1):
            if not any(type(c) is type(must) and c == must for c in self.consts):
                self.consts.append(must)
        nextra = rng.randint(0, 4)
        self.varnames = list(ARGNAMES) + ["fuel"] + [f"x{i}" for i in range(nextra)]
        self.assigned = set(range(FUEL + 1))
        self.unassigned = []
        self.loop_heads = []
        # Cell variables (--cells): after the locals in localsplus, each
        # made a cell by MAKE_CELL before anything else, as the compiler
        # does; stored and loaded by STORE_DEREF / LOAD_DEREF only.
        self.cellvars = ([f"k{i}" for i in range(rng.randint(1, 2))]
                         if cells else [])

    def cell(self):
        """A cell variable's localsplus index."""
        return len(self.varnames) + self.rng.randrange(len(self.cellvars))

    def const(self, value):
        for i, c in enumerate(self.consts):
            if type(c) is type(value) and c == value:
                return i
        self.consts.append(value)
        return len(self.consts) - 1

    def label(self):
        self.nlabels += 1
        return self.nlabels

    def place(self, lab):
        self.items.append({"label": lab})

    def emit(self, name, arg=0, t=None):
        self.items.append({"op": name, "arg": arg, "t": t,
                           "h": list(self.handler) if self.handler else None})

    # expressions: each pushes exactly one value
    def expr(self, budget):
        r = self.rng
        choices = ["const", "local"]
        if budget > 0:
            choices += ["binop", "binop", "compare", "isop", "contains", "unary",
                        "swap", "copy", "tuple", "call", "subscr"]
            if has("CALL_INTRINSIC_1"):
                choices.append("intrinsic")
            if self.cellvars:
                choices.append("deref")
        kind = r.choice(choices)
        if kind in ("const", "local") and r.random() < 0.5:
            self.number()   # half the leaves are numbers: fewer TypeErrors
            return
        if kind == "const":
            self.emit("LOAD_CONST", r.randrange(len(self.consts)))
        elif kind == "local":
            self.load_local()
        elif kind == "binop":
            if r.random() < 0.2:   # a raising division
                self.emit("LOAD_CONST", self.const(1))
                self.emit("LOAD_CONST", self.const(0))
                self.emit("BINARY_OP", r.choice([11, 2, 6]))
                return
            if r.random() < 0.1:   # a small power
                self.emit("LOAD_CONST", self.const(r.choice([2, 7, 0.5])))
                self.emit("LOAD_CONST", self.const(r.choice([2, -1, 0.5])))
                self.emit("BINARY_OP", r.choice([8, 21]))
                return
            self.pair(budget)
            self.emit("BINARY_OP", r.choice(BINOPS + [0, 10, 5, 13, 23] * 3))
        elif kind == "compare":
            self.pair(budget)
            self.emit("COMPARE_OP", r.choice(CMP)[0])
        elif kind == "isop":
            self.pair(budget)
            self.emit("IS_OP", r.randrange(2))
        elif kind == "contains":
            self.expr(budget - 1)
            self.emit("LOAD_CONST", self.const(r.choice([(1, 2), "ab", ()])))
            self.emit("CONTAINS_OP", r.randrange(2))
        elif kind == "unary":
            self.expr(budget - 1)
            name = r.choice(UNARY)
            if name == "UNARY_NOT" and has("TO_BOOL"):
                self.emit("TO_BOOL")
            self.emit(name)
        elif kind == "swap":
            self.pair(budget)
            self.emit("SWAP", 2)
            self.emit("BINARY_OP", r.choice(BINOPS))
        elif kind == "copy":
            self.expr(budget - 1)
            self.emit("COPY", 1)
            self.emit("BINARY_OP", r.choice(BINOPS))
        elif kind == "tuple":
            n = r.randint(0, 3)
            for _ in range(n):
                self.expr(budget - 1)
            if n >= 2 and r.random() < 0.5:
                self.emit("COPY", r.randint(1, n))
                n += 1
            self.emit("BUILD_TUPLE", n)
        elif kind == "call":
            self.call_boom(r.randint(0, 1), budget)
        elif kind == "subscr":
            self.emit("LOAD_CONST", self.const(r.choice([(1, 2), "ab"])))
            self.expr(budget - 1)
            if has("BINARY_SUBSCR"):
                self.emit("BINARY_SUBSCR")
            else:
                self.emit("BINARY_OP", NB_SUBSCR)
        elif kind == "intrinsic":
            self.expr(budget - 1)
            self.emit("CALL_INTRINSIC_1", 5)   # INTRINSIC_UNARY_POSITIVE
        elif kind == "deref":   # NameError while the cell is empty
            self.emit("LOAD_DEREF", self.cell())

    def number(self):
        r = self.rng
        if r.random() < 0.5:
            self.emit(self.fast_load(), r.choice([3, 4, FUEL]))   # 7, 2.5, fuel
        else:
            value = r.choice([0, 1, 2, -1, 7, 0.5])
            if V314 and type(value) is int and value >= 0 and r.random() < 0.5:
                self.emit("LOAD_SMALL_INT", value)
            else:
                self.emit("LOAD_CONST", self.const(value))

    def load_none(self):
        """None, from 3.15 often as the compiler loads it: LOAD_COMMON_CONSTANT
        (opcode._common_constants holds it there)."""
        if COMMON_NONE is not None and self.rng.random() < 0.7:
            self.emit("LOAD_COMMON_CONSTANT", COMMON_NONE)
        else:
            self.emit("LOAD_CONST", self.const(None))

    def owned(self):
        """The value on top is about to be stored in a local: not a borrow
        (3.14's compiler never stores a LOAD_FAST_BORROW's value, which
        would outlive the local it was borrowed from)."""
        last = self.items[-1]
        if last.get("op") == "LOAD_FAST_BORROW":
            last["op"] = "LOAD_FAST"

    def fast_load(self):
        """LOAD_FAST, or on 3.14+ often its borrowed form, as the compiler
        writes it for a value used up before the local can change."""
        if V314 and self.rng.random() < 0.5:
            return "LOAD_FAST_BORROW"
        return "LOAD_FAST"

    def pair(self, budget):
        if has("LOAD_FAST_LOAD_FAST") and self.rng.random() < 0.15:
            a, b = (self.rng.choice(sorted(self.assigned)) for _ in range(2))
            if a < 16 and b < 16:
                name = "LOAD_FAST_LOAD_FAST"
                if V314 and self.rng.random() < 0.5:
                    name = "LOAD_FAST_BORROW_LOAD_FAST_BORROW"
                self.emit(name, (a << 4) | b)
                return
        self.expr(budget - 1)
        self.expr(budget - 1)

    def load_local(self):
        r = self.rng
        if r.random() < 0.1 and has("LOAD_FAST_CHECK"):
            self.emit("LOAD_FAST_CHECK", r.choice(sorted(self.assigned)))
        elif r.random() < 0.2:
            self.emit(self.fast_load(), r.choice(sorted(self.assigned)))
        else:   # mostly the numbers and strings, so that fewer operations raise
            self.emit(self.fast_load(),
                      r.choice(sorted(self.assigned - {0, 1, 2})))

    def call_boom(self, nargs, budget=1):
        if V313:
            self.emit("LOAD_FAST", 1)
            self.emit("PUSH_NULL")
        else:
            self.emit("PUSH_NULL")
            self.emit("LOAD_FAST", 1)
        for _ in range(nargs):
            self.expr(budget - 1)
        if nargs and self.rng.random() < 0.3:   # the last one by keyword
            names = self.const(("x",))
            if has("CALL_KW"):
                self.emit("LOAD_CONST", names)
                self.emit("CALL_KW", nargs)
                return
            self.emit("KW_NAMES", names)
        if V311:
            self.emit("PRECALL", nargs)
        self.emit("CALL", nargs)

    def cond_jump(self, target, if_true=False):
        r = self.rng
        if r.random() < 0.5:
            self.pair(1)
            self.emit("COMPARE_OP", r.choice(CMP)[1])
        else:
            self.expr(1)
            if has("TO_BOOL"):
                self.emit("TO_BOOL")
        self.emit(JUMP_IF_TRUE if if_true else JUMP_IF_FALSE, 0, target)
        self.not_taken()

    def not_taken(self):
        """3.14+: the compiler's NOT_TAKEN where a conditional jump falls
        through (a NOP to the interpreter, an event to monitoring)."""
        if V314 and self.rng.random() < 0.8:
            self.emit("NOT_TAKEN")

    # statements: stack depth unchanged
    def block(self, depth, nest, in_loop=False, n=None):
        n = n if n is not None else self.rng.randint(1, 4)
        for _ in range(n):
            self.stmt(depth, nest, in_loop)

    def stmt(self, depth, nest, in_loop):
        r = self.rng
        kinds = ["pop", "pop", "store", "store", "nop", "raise"]
        if nest < 3:
            kinds += ["if", "loop", "try", "try_match", "with", "with"]
        if depth == 0 or r.random() < 0.1:
            kinds += ["return"]   # deeper: values (an exit, an exception) left
        if has("LOAD_FAST_AND_CLEAR"):
            kinds.append("clear")
        kinds.append("unpack")
        if nest < 3:
            kinds += ["for", "comprehension"]
        if self.generator:
            kinds += ["yield", "yield"]
        if self.cellvars:
            kinds += ["cell_store", "cell_store", "cell_delete"]
        kind = r.choice(kinds)
        if kind == "pop":
            self.expr(2)
            self.emit("POP_TOP")
        elif kind == "store":
            self.expr(2)
            self.owned()
            targets = [i for i in range(3, len(self.varnames)) if i != FUEL]
            self.emit("STORE_FAST", r.choice(targets))
        elif kind == "nop":
            self.emit("NOP")
        elif kind == "cell_store":
            self.expr(2)
            self.owned()
            self.emit("STORE_DEREF", self.cell())
        elif kind == "cell_delete":   # NameError while the cell is empty
            self.emit("DELETE_DEREF", self.cell())
        elif kind == "yield":
            self.expr(1)
            for name, arg in YIELD_STEP:
                self.emit(name, arg)
            self.emit("POP_TOP")
        elif kind == "raise":
            if r.random() < 0.5:
                self.emit("LOAD_FAST", 2)
                self.emit("RAISE_VARARGS", 1)
            else:
                self.call_boom(0)
                self.emit("POP_TOP")
        elif kind == "clear":
            i = r.randrange(3, len(self.varnames))
            if i != FUEL:
                self.emit("LOAD_FAST_AND_CLEAR", i)
                self.emit("STORE_FAST", i)
        elif kind == "return":
            if depth:   # the compiler unwinds first: not a well-formed shape
                self.tags.append(f"return-at-depth-{depth}")
            if has("RETURN_CONST") and r.random() < 0.4:
                self.emit("RETURN_CONST", r.randrange(len(self.consts)))
            else:
                self.expr(1)
                self.emit("RETURN_VALUE")
        elif kind == "if":
            els, end = self.label(), self.label()
            self.cond_jump(els)
            self.block(depth, nest + 1, in_loop)
            if r.random() < 0.5:
                self.emit("JUMP_FORWARD", 0, end)
                self.place(els)
                self.block(depth, nest + 1, in_loop)
                self.place(end)
            else:
                self.place(els)
        elif kind == "loop":
            self.loop(depth, nest)
        elif kind == "for":
            self.for_loop(depth, nest)
        elif kind == "comprehension":
            self.comprehension()
        elif kind == "unpack":
            value = r.choice([(1, 2), ("a", None), (), (7,), "ab"])
            self.emit("LOAD_CONST", self.const(value))
            self.emit("UNPACK_SEQUENCE", len(value))
            targets = [i for i in range(3, len(self.varnames)) if i != FUEL]
            if len(value) == 2 and has("STORE_FAST_STORE_FAST") and r.random() < 0.5:
                i, j = r.choice(targets), r.choice(targets)
                self.emit("STORE_FAST_STORE_FAST", (i << 4) | j)
            else:
                for _ in value:
                    self.emit("STORE_FAST", r.choice(targets))
        elif kind in ("try", "try_match"):
            self.try_except(depth, nest, in_loop, kind == "try_match")
        elif kind == "with":
            self.with_stmt(depth, nest, in_loop)

    def loop(self, depth, nest):
        top, out = self.label(), self.label()
        self.place(top)
        self.loop_heads.append(top)
        self.emit("LOAD_FAST", FUEL)
        self.emit("LOAD_CONST", self.const(1))
        self.emit("BINARY_OP", 10)            # -
        self.emit("COPY", 1)
        self.emit("STORE_FAST", FUEL)
        self.emit("LOAD_CONST", self.const(0))
        self.emit("COMPARE_OP", CMP[4][1])    # >
        self.emit(JUMP_IF_FALSE, 0, out)
        self.not_taken()
        self.block(depth, nest + 1, True)
        self.emit("JUMP_BACKWARD", 0, top)
        self.place(out)

    def for_loop(self, depth, nest):
        """for x in <const tuple or str>: the iterator is on the stack in the
        body; as each version's compiler lays it out."""
        r = self.rng
        top, end, out = self.label(), self.label(), self.label()
        self.emit("LOAD_CONST", self.const(r.choice([(1, 2), ("a", None), (), "ab"])))
        self.iter_head(top, end, out)
        targets = [i for i in range(3, len(self.varnames)) if i != FUEL]
        self.emit("STORE_FAST", r.choice(targets))
        self.block(depth + ITER_SLOTS, nest + 1, True)
        self.iter_exit(top, end, out)

    def iter_head(self, top, end, out):
        """GET_ITER, the loop head top, FOR_ITER: exhausted, to end (3.12+:
        its END_FOR) or, 3.11, out."""
        self.emit("GET_ITER")
        self.place(top)
        self.loop_heads.append(top)
        self.emit("FOR_ITER", 0, out if V311 else end)

    def iter_exit(self, top, end, out):
        """The jump back to top, then the version's loop exit at end (END_FOR,
        3.13's POP_TOP or 3.14's POP_ITER) and the label out."""
        self.emit("JUMP_BACKWARD", 0, top)
        if not V311:
            self.place(end)
            self.emit("END_FOR")
            if has("POP_ITER"):
                self.emit("POP_ITER")
            elif V313:
                self.emit("POP_TOP")
        self.place(out)

    def comprehension(self):
        """[x for x in <const>] or {x: x for ...}, inlined as 3.12's compiler
        does (3.11's runs in a code object of its own, the same shape): the
        container under the iterator, LIST_APPEND / MAP_ADD reaching past
        the iterator's slots to it; then the container is stored or
        dropped."""
        r = self.rng
        top, end, out = self.label(), self.label(), self.label()
        as_dict = r.random() < 0.4
        self.emit("BUILD_MAP" if as_dict else "BUILD_LIST", 0)
        self.emit("LOAD_CONST", self.const(r.choice([(1, 2), ("a", None), (), "ab"])))
        self.iter_head(top, end, out)
        targets = [i for i in range(3, len(self.varnames)) if i != FUEL]
        x = r.choice(targets)
        self.emit("STORE_FAST", x)
        self.emit(self.fast_load(), x)
        if as_dict:
            self.emit(self.fast_load(), x)
            self.emit("MAP_ADD", 1 + ITER_SLOTS)
        else:
            self.emit("LIST_APPEND", 1 + ITER_SLOTS)
        self.iter_exit(top, end, out)
        if r.random() < 0.5:
            self.emit("STORE_FAST", r.choice(targets))
        else:
            self.emit("POP_TOP")

    def try_except(self, depth, nest, in_loop, match):
        r = self.rng
        handler, cleanup, end, nomatch = (self.label() for _ in range(4))
        saved = self.handler
        self.handler = (handler, depth, False)
        self.emit("NOP")
        self.block(depth, nest + 1, in_loop)
        self.handler = saved
        self.emit("JUMP_FORWARD", 0, end)
        self.place(handler)
        self.handler = (cleanup, depth + 1, True)
        self.emit("PUSH_EXC_INFO")
        if match:
            self.emit("LOAD_FAST", 2)
            self.emit("CHECK_EXC_MATCH")
            self.emit(JUMP_IF_FALSE, 0, nomatch)
            self.not_taken()
        self.emit("POP_TOP")
        if r.random() < 0.5:
            self.block(depth + 1, nest + 1, in_loop, r.randint(1, 2))
        self.handler = saved
        self.emit("POP_EXCEPT")
        self.emit("JUMP_FORWARD", 0, end)
        if match:
            self.place(nomatch)
            self.handler = (cleanup, depth + 1, True)
            self.emit("RERAISE", 0)
            self.handler = saved
        self.place(cleanup)
        self.emit("COPY", 3)
        self.emit("POP_EXCEPT")
        self.emit("RERAISE", 1)
        self.place(end)

    def with_stmt(self, depth, nest, in_loop):
        """`with cm:` as the version's compiler writes it: the bound __exit__
        below the body (to 3.13 BEFORE_WITH's method; 3.14 LOAD_SPECIAL's
        function and self, __enter__ called through LOAD_SPECIAL), the exit
        called with three Nones, the handler's WITH_EXCEPT_START over the
        exit, lasti, the saved exception and the raised one."""
        handler, cleanup, suppress, end = (self.label() for _ in range(4))
        saved = self.handler
        exit_slots = 2 if V314 else 1
        self.emit(self.fast_load(), 0)
        if V314:
            self.emit("COPY", 1)
            self.emit("LOAD_SPECIAL", 1)          # __exit__
            self.emit("SWAP", 2)
            self.emit("SWAP", 3)
            self.emit("LOAD_SPECIAL", 0)          # __enter__
            self.emit("CALL", 0)
        else:
            self.emit("BEFORE_WITH")
        self.handler = (handler, depth + exit_slots, True)
        self.emit("POP_TOP")
        self.block(depth + exit_slots, nest + 1, in_loop)
        self.handler = saved
        for _ in range(3):
            self.load_none()
        if V311:
            self.emit("PRECALL", 2)
        self.emit("CALL", 1 + exit_slots)
        self.emit("POP_TOP")
        self.emit("JUMP_FORWARD", 0, end)
        self.place(handler)
        self.handler = (cleanup, depth + exit_slots + 2, True)
        self.emit("PUSH_EXC_INFO")
        self.emit("WITH_EXCEPT_START")
        if has("TO_BOOL"):
            self.emit("TO_BOOL")
        self.emit(JUMP_IF_TRUE, 0, suppress)
        self.not_taken()
        self.emit("RERAISE", 2)
        self.place(suppress)
        self.emit("POP_TOP")
        self.handler = saved
        self.emit("POP_EXCEPT")
        for _ in range(1 + exit_slots):
            self.emit("POP_TOP")
        self.emit("JUMP_FORWARD", 0, end)
        self.place(cleanup)
        self.emit("COPY", 3)
        self.emit("POP_EXCEPT")
        self.emit("RERAISE", 1)
        self.place(end)

    def program(self):
        r = self.rng
        for k in range(len(self.cellvars)):
            self.emit("MAKE_CELL", len(self.varnames) + k)
        if self.generator:   # the compiler's prefix
            self.emit("RETURN_GENERATOR")
            self.emit("POP_TOP")
        if r.random() < 0.95:
            self.emit("RESUME", 0)
        self.emit("LOAD_CONST", self.const(r.choice([3, 5, 12])))
        self.emit("STORE_FAST", FUEL)
        for i in range(FUEL + 1, len(self.varnames)):
            if r.random() < 0.6:
                self.expr(1)
                self.owned()
                self.emit("STORE_FAST", i)
                self.assigned.add(i)
            else:
                self.unassigned.append(i)
        self.block(0, 0, n=r.randint(1, 5))
        if has("RETURN_CONST") and r.random() < 0.5:
            self.emit("RETURN_CONST", self.const(None))
        else:
            self.load_none()
            self.emit("RETURN_VALUE")


# --- corruptions -----------------------------------------------------------

def corrupt(g, spec):
    """One small corruption of spec (in place); returns its tag."""
    r = g.rng
    items = spec["items"]
    ops = [k for k, it in enumerate(items) if "op" in it]
    kinds = ["operand", "operand", "unbound", "copy_swap", "delete", "delete",
             "duplicate", "swap_adjacent", "replace", "replace", "insert",
             "fall_off", "table", "table", "stacksize", "retarget",
             "reraise_none", "empty"]
    kind = r.choice(kinds)
    if not ops and kind not in ("stacksize", "insert"):
        kind = "stacksize"
    if kind == "operand":
        cands = [k for k in ops if items[k]["op"] in (
            "LOAD_CONST", "LOAD_FAST", "STORE_FAST", "BINARY_OP", "COMPARE_OP",
            "IS_OP", "CONTAINS_OP", "RETURN_CONST", "CALL_INTRINSIC_1",
            "RERAISE", "COPY", "SWAP", "LOAD_FAST_LOAD_FAST", "BUILD_TUPLE",
            "LOAD_FAST_AND_CLEAR", "LOAD_FAST_CHECK", "RAISE_VARARGS", "CALL",
            "KW_NAMES", "CALL_KW", "UNPACK_SEQUENCE", "STORE_FAST_STORE_FAST",
            "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
            "LOAD_SPECIAL", "LOAD_COMMON_CONSTANT", "LOAD_SMALL_INT",
            "LIST_APPEND", "MAP_ADD", "MAKE_CELL", "LOAD_DEREF",
            "STORE_DEREF", "DELETE_DEREF")]
        if not cands:
            return corrupt(g, spec)
        it = items[r.choice(cands)]
        name = it["op"]
        if name in ("LOAD_CONST", "RETURN_CONST"):
            it["arg"] = len(g.consts) + r.choice([0, 0, 1, 5, 300])
        elif name in ("LOAD_FAST", "STORE_FAST", "LOAD_FAST_AND_CLEAR",
                      "LOAD_FAST_CHECK", "LOAD_FAST_BORROW"):
            it["arg"] = len(g.varnames) + r.choice([0, 0, 1, 200])
        elif name == "BINARY_OP":
            it["arg"] = r.choice([NB_OPS, NB_OPS + 1, 255, 1000])
        elif name == "COMPARE_OP":
            it["arg"] = r.choice([6, 7, 255]) << CMP_SHIFT
        elif name == "CALL_INTRINSIC_1":   # in range but typed, or out of range
            it["arg"] = r.choice([0, 3, 4, 6, 7, 8, 9, 10, 11, 12, 255, 1000])
        elif name in ("LOAD_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
                      "LOAD_FAST_BORROW_LOAD_FAST_BORROW"):
            it["arg"] = r.choice([0xF0, 0x0F, 0xFF])
        elif name == "KW_NAMES":   # another constant (not a tuple of str), or none
            it["arg"] = r.choice([r.randrange(len(g.consts)), len(g.consts)])
        else:
            it["arg"] = r.choice([0, 2, 3, 7, 255, 4000])
        return f"operand:{name}={it['arg']}"
    if kind == "unbound":
        loads = [k for k in ops if items[k]["op"] in ("LOAD_FAST", "LOAD_FAST_CHECK",
                                                      "LOAD_FAST_BORROW")
                 and items[k]["arg"] != FUEL]
        if not loads or not g.unassigned:
            return corrupt(g, spec)
        k = r.choice(loads)
        items[k]["arg"] = r.choice(g.unassigned)
        return f"unbound:{items[k]['op']} {items[k]['arg']}"
    if kind == "copy_swap":
        k = r.choice(ops)
        name = r.choice(["COPY", "SWAP"])
        arg = r.choice([0, 0, 1, 3, 6, 40])
        items.insert(k, {"op": name, "arg": arg, "t": None, "h": items[k]["h"]})
        return f"insert:{name} {arg}"
    if kind == "delete":
        k = r.choice(ops)
        name = items[k]["op"]
        del items[k]
        return f"delete:{name}"
    if kind == "duplicate":
        k = r.choice(ops)
        if items[k]["op"] in ("JUMP_BACKWARD",):
            return corrupt(g, spec)
        items.insert(k, dict(items[k]))
        return f"duplicate:{items[k]['op']}"
    if kind == "swap_adjacent":
        k = r.choice(ops)
        nxt = [j for j in ops if j > k]
        if not nxt:
            return corrupt(g, spec)
        j = nxt[0]
        items[k], items[j] = items[j], items[k]
        return f"swap:{items[j]['op']}<->{items[k]['op']}"
    if kind == "replace":
        k = r.choice(ops)
        if is_jump(items[k]["op"]):
            return corrupt(g, spec)
        old = items[k]["op"]
        new = r.choice(REPLACEMENTS)
        items[k] = dict(items[k], op=new, t=None)
        if takes_arg(new) and r.random() < 0.5:
            items[k]["arg"] = r.choice([0, 1, 2, 3])
        if new == "CALL_INTRINSIC_1" and items[k]["arg"] in (1, 2):
            items[k]["arg"] = 5   # not INTRINSIC_PRINT / IMPORT_STAR: no I/O
        return f"replace:{old}->{new} {items[k]['arg']}"
    if kind == "insert":
        k = r.randrange(len(items) + 1)
        name = r.choice(REPLACEMENTS)
        h = items[k - 1].get("h") if 0 < k <= len(items) and "op" in items[k - 1] else None
        arg = r.choice([0, 1, 2, 3])
        if name == "CALL_INTRINSIC_1" and arg in (1, 2):
            arg = 5
        items.insert(k, {"op": name, "arg": arg, "t": None, "h": h})
        return f"insert:{name}"
    if kind == "fall_off":
        last = ops[-1]
        name = items[last]["op"]
        del items[last]
        return f"fall_off:{name}"
    if kind == "table":
        e = r.randrange(8)
        what = r.choice(["depth", "depth", "lasti", "drop", "target", "end",
                         "start"])
        value = 0
        if what == "depth":
            value = r.choice([-2, -1, 1, 2, 5])
        elif what == "target":
            value = r.randint(1, max(1, g.nlabels))
        elif what in ("end", "start"):
            value = r.choice([-2, 2, 4])
        spec["table_edits"].append([what, e, value])
        return f"table:{what}{value:+d}"
    if kind == "stacksize":
        spec["stacksize_delta"] = r.choice([-1, -1, -2, -3, -20])
        return f"stacksize:{spec['stacksize_delta']}"
    if kind == "retarget":
        jumps = [k for k in ops if items[k].get("t") is not None]
        if not jumps:
            return corrupt(g, spec)
        k = r.choice(jumps)
        if is_backward(items[k]["op"]):
            if not g.loop_heads:
                return corrupt(g, spec)
            items[k]["t"] = r.choice(g.loop_heads)
        else:
            items[k]["t"] = r.randint(1, g.nlabels)
        return f"retarget:{items[k]['op']}"
    if kind == "reraise_none":
        copies = [k for k in ops if items[k]["op"] == "COPY" and items[k]["arg"] == 3]
        if not copies:
            return corrupt(g, spec)
        k = r.choice(copies)
        items[k] = dict(items[k], op="LOAD_CONST", arg=g.const(None))
        return "reraise_none"
    if kind == "empty":
        if r.random() < 0.5:
            del items[:]
            return "empty"
        del items[r.randint(1, max(1, len(items) // 3)):]
        return "truncate"
    return "none"


def make_spec(seed, index, generators=False, cells=False):
    """Case index of seed; generators: half the cases are generator code
    (the prefix, yields among the statements; the other cases' draws
    differ too, so a seed's cases are those of one setting); cells: half
    the cases have cell variables (the same)."""
    rng = random.Random(f"{seed}:{index}")
    generator = generators and rng.random() < 0.5
    cell = cells and rng.random() < 0.5
    g = Gen(rng, generator, cell)
    g.program()
    spec = {"version": VERSION, "seed": seed, "index": index,
            "generator": generator,
            "name": f"d{index}", "items": g.items, "table_edits": [],
            "stacksize_delta": 0,
            "lines": rng.choice(["none", "line"]),
            "args": {"suppress": rng.random() < 0.5,
                     "boom": rng.choice(["ZeroDivisionError", "ValueError",
                                         "return"]),
                     "exc": rng.choice(["ZeroDivisionError", "ValueError",
                                        "Exception"])},
            "tags": list(g.tags)}
    if rng.random() < 0.5:
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            spec["tags"].append(corrupt(g, spec))
    if rng.random() < 0.05:
        spec["stacksize_delta"] += rng.choice([1, 5])
        spec["tags"].append("stacksize:+")
    spec["consts"] = [encode_const(c) for c in g.consts]
    spec["varnames"] = g.varnames
    if g.cellvars:
        spec["cellvars"] = g.cellvars
    return spec


# --- CLI -------------------------------------------------------------------

def describe(code):
    out = io.StringIO()
    try:
        dis.dis(code, file=out, show_caches=False)
    except Exception as e:  # dis itself chokes on some broken code
        out.write(f"<dis failed: {type(e).__name__}: {e}>\n")
        raw = code.co_code
        for i in range(0, len(raw) - 1, 2):
            name = opcode.opname[raw[i]]
            out.write(f"{i:6d} {name:<28} {raw[i + 1]}\n")
    return {"dis": out.getvalue(), "co_code": code.co_code.hex(),
            "exceptiontable": code.co_exceptiontable.hex(),
            "stacksize": code.co_stacksize, "consts": repr(code.co_consts),
            "varnames": list(code.co_varnames)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--start", type=int, default=0)
    g.add_argument("--out", required=True)
    g.add_argument("--generators", action="store_true",
                   help="draw generator code for half the cases")
    g.add_argument("--cells", action="store_true",
                   help="draw cell variables for half the cases")
    b = sub.add_parser("build")
    b.add_argument("spec")
    b.add_argument("out")
    bm = sub.add_parser("build-many")
    bm.add_argument("specs", help="JSON lines, one spec each")
    bm.add_argument("outdir", help="writes OUTDIR/<line number>.marshal")
    d = sub.add_parser("describe")
    d.add_argument("file")
    a = ap.parse_args(argv)
    if a.cmd == "generate":
        os.makedirs(os.path.join(a.out, "code"), exist_ok=True)
        with open(os.path.join(a.out, "cases.jsonl"), "w") as f:
            for i in range(a.start, a.start + a.count):
                spec = make_spec(a.seed, i, a.generators, a.cells)
                path = os.path.join(a.out, "code", f"{i:06d}.marshal")
                with open(path, "wb") as m:
                    m.write(marshal.dumps(build(spec)))
                spec["file"] = path
                f.write(json.dumps(spec) + "\n")
    elif a.cmd == "build":
        with open(a.spec) as f:
            spec = json.load(f)
        spec = spec.get("spec", spec)
        with open(a.out, "wb") as m:
            m.write(marshal.dumps(build(spec)))
    elif a.cmd == "build-many":
        os.makedirs(a.outdir, exist_ok=True)
        with open(a.specs) as f:
            for k, line in enumerate(f):
                with open(os.path.join(a.outdir, f"{k}.marshal"), "wb") as m:
                    m.write(marshal.dumps(build(json.loads(line))))
    elif a.cmd == "describe":
        with open(a.file, "rb") as f:
            code = marshal.loads(f.read())
        json.dump(describe(code), sys.stdout)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
