#!/usr/bin/env python3
"""Generate include/pyverify/Bytecode/Opcodes3NN.def from CPython 3.12's or 3.13's own
tables, as scripts/gen-opcodes.py does Opcodes.def from 3.11's.

Run it with the interpreter of the version it describes:

    python3.12 scripts/gen-version-opcodes.py > include/pyverify/Bytecode/Opcodes312.def
    python3.13 scripts/gen-version-opcodes.py > include/pyverify/Bytecode/Opcodes313.def

Numbers, names, argument flags (opcode.hasarg), inline cache counts and relative-jump
membership come from the interpreter's `opcode` module. The net stack effect on both
edges is fitted to `dis.stack_effect` (the compiler's own) with one formula per opcode,
verified over a sweep of arguments (arguments `dis.stack_effect` rejects, such as 2**31 - 1
for CALL, are skipped). Terminators -- instructions with no fall-through -- are not in
`dis` and are written here once per version (Python/bytecodes.c). Only base opcodes that
can appear in co_code are listed: not the INSTRUMENTED_* ones, ENTER_EXECUTOR, RESERVED
or INTERPRETER_EXIT, and not the pseudo opcodes (>= 256).

tests/versions/check_version_opcodes.py re-checks a committed table against its
interpreter at test time.
"""
import dis
import opcode
import sys

import re
import sysconfig

import stack_io
from effect_formulas import FORMULAS, SWEEP, c_int
from stack_io import fmt

VERSION = sys.version_info[:2]
assert VERSION in ((3, 12), (3, 13)), "run with python3.12 or python3.13"

TERMINATORS = stack_io.TERMINATORS[VERSION]
UNCONDITIONAL_JUMPS = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
EXCLUDED = {"RESERVED", "INTERPRETER_EXIT", "ENTER_EXECUTOR"}

def effect(op, a, jump):
    try:
        return dis.stack_effect(op, a, jump=jump)
    except ValueError:
        return None


def base_opcodes():
    for name, op in sorted(opcode.opmap.items(), key=lambda kv: kv[1]):
        if op >= 256 or name in EXCLUDED or name.startswith("INSTRUMENTED_"):
            continue
        yield name, op


def caches_of(name, op):
    c = opcode._inline_cache_entries
    return c.get(name, 0) if isinstance(c, dict) else c[op]


def fit(name, op, has_arg):
    if name == "CACHE":
        return "Const", 0, 0
    if not has_arg:
        return "Const", dis.stack_effect(op, jump=False), dis.stack_effect(op, jump=True)
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


def operand_kind(name, op):
    """What the argument indexes, where 3.11's kinds still describe it (LOAD_ATTR's and
    LOAD_SUPER_ATTR's packed names, 3.13's packed local pairs and the changed COMPARE_OP
    encoding are Raw: the listing shows their raw argument)."""
    if op not in opcode.hasarg:
        return "None"
    if name in ("LOAD_ATTR", "LOAD_SUPER_ATTR", "COMPARE_OP") or "FAST_" in name[5:]:
        return "Raw"
    if name == "LOAD_GLOBAL":
        return "GlobalName"
    for lst, kind in ((opcode.hasconst, "Const"), (opcode.hasname, "Name"),
                      (opcode.haslocal, "Local"), (opcode.hasfree, "Free"),
                      (opcode.hasjrel, "Jump")):
        if op in lst:
            return kind
    return {"BINARY_OP": "BinaryOp"}.get(name, "Raw")


def effect_by_name(name, a, jump):
    op = opcode.opmap[name]
    return effect(op, a if op in opcode.hasarg else None, jump)


def metadata_flags():
    """The interpreter's own flags per opcode (pycore_opcode_metadata.h, installed with
    3.13's headers), or None where it is not installed (3.12 never installs it)."""
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


def main():
    major, minor = VERSION
    out = sys.stdout
    out.write(f"//===- Opcodes{major}{minor}.def - CPython {major}.{minor} base opcodes "
              "-----------*- C++ -*-===//\n")
    out.write("//\n")
    out.write(f"// GENERATED by scripts/gen-version-opcodes.py from python{major}.{minor}'s "
              "opcode/dis\n")
    out.write("// modules. Do not edit by hand; tests/versions/check_version_opcodes.py\n")
    out.write("// re-checks every field against that interpreter.\n")
    out.write("//\n")
    out.write("// PYV_VERSION_OPCODE(Name, Number, Caches, HasArg, Jump, Terminator, Raises,\n")
    out.write("//                    Effect, FT, JT, Operand, JumpSkip, Pops, Pushes,\n")
    out.write("//                    JumpPops, JumpPushes, Reads, NullIn, NullOut)\n")
    out.write("//   Jump:   None | Forward | ForwardCond | Backward | BackwardCond\n")
    out.write("//   Effect: Const (FT on fall-through, JT on the jump edge) or a formula of\n")
    out.write("//           the argument shared by both edges (EffectKind, Opcode.h).\n")
    out.write("//   Raises, Operand, Pops .. NullOut: as in Opcodes.def (scripts/stack_io.py).\n")
    out.write("//   JumpSkip: code units the interpreter skips after the jump target (an\n")
    out.write("//           exhausted FOR_ITER steps over END_FOR, and in 3.13 its POP_TOP).\n")
    out.write("//===----------------------------------------------------------------------===//\n\n")
    out.write("#ifndef PYV_VERSION_OPCODE\n#error \"define PYV_VERSION_OPCODE before including "
              f"Opcodes{major}{minor}.def\"\n#endif\n\n")
    flags = metadata_flags()
    for name, op in base_opcodes():
        has_arg = op in opcode.hasarg
        kind, ft, jt = fit(name, op, has_arg)
        term = "true" if name in TERMINATORS else "false"
        if name != "CACHE":
            stack_io.check_stack_io(VERSION, op, name, has_arg, op in opcode.hasjrel,
                                    effect_by_name, SWEEP, c_int)
        check_raises(flags, name)
        e = stack_io.STACK_IO[VERSION].get(name, stack_io.io(stack_io.K(0), stack_io.K(0)))
        out.write(f"PYV_VERSION_OPCODE({name}, {op}, {caches_of(name, op)}, "
                  f"{'true' if has_arg else 'false'}, {jump_kind(name, op)}, {term}, "
                  f"{stack_io.raises(VERSION, name)}, {kind}, {ft}, {jt}, "
                  f"{operand_kind(name, op)}, {jump_skip(name)},\n                   "
                  + ", ".join(fmt(e[k]) for k in ("pops", "pushes", "jpops", "jpushes",
                                                   "reads", "null_in", "null_out"))
                  + ")\n")
    out.write("\n#undef PYV_VERSION_OPCODE\n")


if __name__ == "__main__":
    main()
