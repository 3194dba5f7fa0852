#!/usr/bin/env python3
"""Generate include/pyverify/Bytecode/Opcodes3NN.def, the opcode table of the CPython
version that runs it, from that interpreter's own `opcode` / `dis` modules. One generator
and one row shape for every version:

    python3.11 scripts/gen-opcodes.py > include/pyverify/Bytecode/Opcodes311.def
    python3.12 scripts/gen-opcodes.py > include/pyverify/Bytecode/Opcodes312.def
    python3.13 scripts/gen-opcodes.py > include/pyverify/Bytecode/Opcodes313.def

then `python3 scripts/gen-opcode-names.py` (the enum's names).

Numbers, names, argument flags, inline cache counts and relative-jump membership come from
the interpreter's `opcode` module. The net stack effect on both edges is fitted to
`dis.stack_effect` (the compiler's own) with one formula per opcode (effect_formulas.py),
verified over a sweep of arguments (arguments `dis.stack_effect` rejects, such as 2**31 - 1
for 3.12's CALL, are skipped). What an argument indexes is measured: the generator compiles
a sample of each and compares the argument with what `dis` shows. Facts `dis` lacks
(terminators, which instructions can raise, the real stack, what a jump skips) are written
once in scripts/stack_io.py and checked here against the interpreter (its
pycore_opcode_metadata.h too where it is installed). Only base opcodes that can appear in
co_code are rows: not the specialised or INSTRUMENTED_* ones, ENTER_EXECUTOR, RESERVED,
INTERPRETER_EXIT or the pseudo opcodes (>= 256); the specialised ones are listed apart
(PYV_SPECIALIZED) for messages.

tests/versions/check_version_opcodes.py (every version) and OpcodeTableTest re-check a
committed table against its interpreter at test time.
"""
import dis
import opcode
import re
import sys
import sysconfig

import stack_io
from effect_formulas import FORMULAS, SWEEP, c_int
from stack_io import fmt

VERSION = sys.version_info[:2]
assert VERSION in stack_io.STACK_IO, "no stack_io facts for %d.%d" % VERSION

TERMINATORS = stack_io.TERMINATORS[VERSION]
UNCONDITIONAL_JUMPS = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
EXCLUDED = {"RESERVED", "INTERPRETER_EXIT", "ENTER_EXECUTOR"}
SPECIALIZED = set(getattr(opcode, "_specialized_instructions", ())) | \
    set(getattr(opcode, "_specialized_opmap", {}))


def has_arg(op):
    hasarg = getattr(opcode, "hasarg", None)  # 3.12+; before, the numbering says it
    return op in hasarg if hasarg is not None else op >= opcode.HAVE_ARGUMENT


def effect(op, a, jump):
    try:
        return dis.stack_effect(op, a if has_arg(op) else None, jump=jump)
    except ValueError:
        return None


def base_opcodes():
    for name, op in sorted(opcode.opmap.items(), key=lambda kv: kv[1]):
        if op >= 256 or name in EXCLUDED or name.startswith("INSTRUMENTED_") or \
                name in SPECIALIZED:
            continue
        yield name, op


def caches_of(name, op):
    c = opcode._inline_cache_entries
    return c.get(name, 0) if isinstance(c, dict) else c[op]


def fit(name, op):
    if name == "CACHE":
        return "Const", 0, 0
    if not has_arg(op):
        return "Const", effect(op, None, False), effect(op, None, True)
    args = [a for a in SWEEP if effect(op, a, False) is not None]
    ft = [effect(op, a, False) for a in args]
    jp = [effect(op, a, True) for a in args]
    if len(set(ft)) == 1 and len(set(jp)) == 1:
        return "Const", ft[0], jp[0]
    for kind, fn in FORMULAS.items():
        want = [c_int(fn(a)) for a in args]
        if want == ft and want == jp:
            return kind, 0, 0
    raise SystemExit(f"no formula fits {name}")


def jump_kind(name, op):
    if op not in opcode.hasjrel:
        return "None"
    backward = "BACKWARD" in name
    cond = name not in UNCONDITIONAL_JUMPS
    return ("Backward" if backward else "Forward") + ("Cond" if cond else "")


# Samples whose instructions show, in `dis`, whether the argument is the plain index the
# operand kind names or packs more (3.12's LOAD_ATTR: name << 1 | method; COMPARE_OP's
# comparison << 4 or << 5).
SAMPLES = ["def f(x, y):\n    return x.a < y.b.c(y)\n",
           "def f(x):\n    return f'{x!r:>3}', lambda a=1: a\n",
           "def f(x):\n    global g\n    g = x.a\n    return g\n"]


def measured_packing():
    """{opname: True} where an instruction's argument is not what `dis` shows as the
    index of its operand kind, measured on SAMPLES."""
    packed = {}

    def walk(co):
        yield co
        for c in co.co_consts:
            if hasattr(c, "co_code"):
                yield from walk(c)
    for src in SAMPLES:
        for co in walk(compile(src, "<sample>", "exec")):
            for ins in dis.get_instructions(co):
                if ins.opcode in opcode.hasname and ins.opname != "LOAD_GLOBAL":
                    plain = ins.arg < len(co.co_names) and co.co_names[ins.arg] == ins.argval
                    packed[ins.opname] = packed.get(ins.opname, False) or not plain
                elif ins.opcode in opcode.hascompare:
                    plain = ins.arg < len(dis.cmp_op) and dis.cmp_op[ins.arg] == ins.argval
                    packed[ins.opname] = packed.get(ins.opname, False) or not plain
    return packed


PACKED = measured_packing()


def operand_kind(name, op):
    """What the argument indexes or encodes (dis's has* lists); Raw where the version packs
    more into it (measured) or packs two operands (LOAD_FAST_LOAD_FAST & co.)."""
    if not has_arg(op):
        return "None"
    if PACKED.get(name) or "FAST_" in name[5:] or name == "LOAD_SUPER_ATTR":
        return "Raw"
    if name == "LOAD_GLOBAL":
        return "GlobalName"
    for lst, kind in ((opcode.hasconst, "Const"), (opcode.hasname, "Name"),
                      (opcode.haslocal, "Local"), (opcode.hasfree, "Free"),
                      (opcode.hasjrel, "Jump"), (opcode.hascompare, "Compare")):
        if op in lst:
            return kind
    return {"FORMAT_VALUE": "FormatValue", "MAKE_FUNCTION": "MakeFunction",
            "BINARY_OP": "BinaryOp"}.get(name, "Raw")


def metadata_flags():
    """The interpreter's own flags per opcode (pycore_opcode_metadata.h, installed with
    3.13's headers), or None where it is not installed (3.11 and 3.12 never install it)."""
    path = sysconfig.get_paths()["include"] + "/internal/pycore_opcode_metadata.h"
    try:
        text = open(path).read()
    except OSError:
        return None
    return {m.group(1): m.group(2) for m in
            re.finditer(r"\[(\w+)\] = \{ (?:true|false), \w+, ([^}]*)\}", text)}


def check_raises(flags, name):
    """Never-raising must be what the interpreter's metadata says: no HAS_ERROR and no
    HAS_EVAL_BREAK (allocation-only failures aside)."""
    if flags is None or name not in flags or name in stack_io.ARG_DEPENDENT_RAISE:
        return
    header_never = "ERROR_FLAG" not in flags[name] and "EVAL_BREAK" not in flags[name]
    ours = stack_io.raises(VERSION, name) == "Never"
    if ours != header_never and name not in stack_io.ALLOCATION_ONLY | \
            stack_io.RAISES_WITHOUT_ERROR_FLAG:
        raise SystemExit(f"{name}: stack_io says never-raises={ours}, the interpreter's "
                         f"metadata {flags[name]}")


def jump_skip(name):
    skipped = stack_io.SKIPPED_AFTER_TARGET[VERSION].get(name, ())
    return sum(1 + caches_of(s, opcode.opmap[s]) for s in skipped)


def effect_by_name(name, a, jump):
    return effect(opcode.opmap[name], a, jump)


def specialized_rows():
    """(name, number, base) of each specialised opcode with its own number below 256."""
    specs = getattr(opcode, "_specializations", {})
    base_of = {s: base for base, ss in specs.items() for s in ss}
    allmap = getattr(dis, "_all_opmap", None) or getattr(opcode, "_specialized_opmap", {})
    for name, op in sorted(allmap.items(), key=lambda kv: kv[1]):
        if name in SPECIALIZED and name in base_of and op < 256:
            yield name, op, base_of[name]


def main():
    major, minor = VERSION
    out = sys.stdout
    w = out.write
    w(f"//===- Opcodes{major}{minor}.def - CPython {major}.{minor} base opcodes "
      "-----------*- C++ -*-===//\n")
    w("//\n")
    w(f"// GENERATED by scripts/gen-opcodes.py from python{major}.{minor}'s opcode/dis\n")
    w("// modules. Do not edit by hand; tests/versions/check_version_opcodes.py\n")
    w("// re-checks every field against that interpreter.\n")
    w("//\n")
    w("// PYV_VERSION_OPCODE(Name, Number, Caches, HasArg, Jump, Terminator, Raises,\n")
    w("//                    Effect, FT, JT, Operand, JumpSkip, Pops, Pushes,\n")
    w("//                    JumpPops, JumpPushes, Reads, NullIn, NullOut)\n")
    w("//   Jump:   None | Forward | ForwardCond | Backward | BackwardCond\n")
    w("//   Raises: Never | Always | ArgDependent (RESUME: VersionTraits.def)\n")
    w("//   Effect: Const (FT on fall-through, JT on the jump edge) or a formula of\n")
    w("//           the argument shared by both edges (EffectKind, Opcode.h).\n")
    w("//   Operand: what the argument indexes or encodes (dis's has* lists; Raw\n")
    w("//           where it packs more): None | Const | Name | GlobalName | Local |\n")
    w("//           Free | Jump | Compare | FormatValue | MakeFunction | BinaryOp | Raw\n")
    w("//   JumpSkip: code units the interpreter skips after the jump target (an\n")
    w("//           exhausted FOR_ITER steps over END_FOR, and in 3.13 its POP_TOP).\n")
    w("//   Pops .. NullOut: the real stack (scripts/stack_io.py), each a count\n")
    w("//           (Formula, K) = Formula(arg) + K (CountFormula, Opcode.h): values\n")
    w("//           popped and pushed on the fall-through and on the jump edge (a\n")
    w("//           value replaced in place counts as both), the deepest slot read\n")
    w("//           (pops included), and bit masks over the popped / pushed values\n")
    w("//           (bit 0 = deepest) that may be NULL.\n")
    w("//\n")
    w("// PYV_SPECIALIZED(Name, Number, Base): specialised opcodes that live only in\n")
    w("// _co_code_adaptive, never valid in co_code (named for messages).\n")
    w("//===----------------------------------------------------------------------===//\n\n")
    w("#ifndef PYV_VERSION_OPCODE\n#error \"define PYV_VERSION_OPCODE before including "
      f"Opcodes{major}{minor}.def\"\n#endif\n")
    w("#ifndef PYV_SPECIALIZED\n#define PYV_SPECIALIZED(Name, Number, Base)\n#endif\n\n")
    flags = metadata_flags()
    for name, op in base_opcodes():
        kind, ft, jt = fit(name, op)
        term = "true" if name in TERMINATORS else "false"
        if name != "CACHE":
            stack_io.check_stack_io(VERSION, op, name, has_arg(op), op in opcode.hasjrel,
                                    effect_by_name, SWEEP, c_int)
        check_raises(flags, name)
        e = stack_io.STACK_IO[VERSION].get(name, stack_io.io(stack_io.K(0), stack_io.K(0)))
        w(f"PYV_VERSION_OPCODE({name}, {op}, {caches_of(name, op)}, "
          f"{'true' if has_arg(op) else 'false'}, {jump_kind(name, op)}, {term}, "
          f"{stack_io.raises(VERSION, name)}, {kind}, {ft}, {jt}, "
          f"{operand_kind(name, op)}, {jump_skip(name)},\n                   "
          + ", ".join(fmt(e[k]) for k in ("pops", "pushes", "jpops", "jpushes",
                                           "reads", "null_in", "null_out"))
          + ")\n")
    rows = list(specialized_rows())
    if rows:
        w("\n")
    for name, op, base in rows:
        w(f"PYV_SPECIALIZED({name}, {op}, {base})\n")
    w("\n#undef PYV_VERSION_OPCODE\n#undef PYV_SPECIALIZED\n")


if __name__ == "__main__":
    main()
