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
for 3.12's CALL, are skipped). How `dis` shows an argument (its argrepr: the operand kind, and the texts of
enumerated arguments) is measured by probing that `dis` with one instruction at a time. Facts `dis` lacks
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
import json
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
EXCLUDED = {"RESERVED", "INTERPRETER_EXIT", "ENTER_EXECUTOR", "TRACE_RECORD"}
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
    c = opcode._inline_cache_entries  # a list (3.11), a dict, a frozendict (3.15)
    return c.get(name, 0) if hasattr(c, "get") else c[op]


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
    if op not in opcode.hasjrel or name in stack_io.NOT_TAKEN_JUMPS[VERSION]:
        return "None"
    backward = "BACKWARD" in name
    cond = name not in UNCONDITIONAL_JUMPS
    return ("Backward" if backward else "Forward") + ("Cond" if cond else "")


# Probes: one instruction NAME ARG in a code object with these tables, shown by the
# interpreter's own dis. What dis prints for an argument (its argrepr) is measured this
# way, so each version's table says how that version's dis shows each opcode's argument.
PROBE_NAMES = ("n0", "n1", "n2", "n3", "n4")
PROBE_CODE = compile("def f(l0, l1, l2, l3, l4):\n    return l0\n", "<probe>",
                     "exec").co_consts[0]


def probe(name, arg):
    """dis's argrepr of NAME ARG, or None where dis raises (an argument it cannot
    show)."""
    op = opcode.opmap[name]
    code = bytes([op, arg]) + bytes(2 * caches_of(name, op))
    co = PROBE_CODE.replace(co_code=code, co_names=PROBE_NAMES, co_consts=(None,),
                            co_linetable=b"", co_exceptiontable=b"")
    try:
        return next(dis.get_instructions(co)).argrepr
    except (IndexError, KeyError, ValueError, AssertionError):
        return None


JUMP_LISTS = ("hasjrel", "hasjabs", "hasjump")
# Opcodes dis shows through a table of its own, selected by name in dis itself.
BY_NAME = {"FORMAT_VALUE": "FormatValue", "CONVERT_VALUE": "Conversion",
           "MAKE_FUNCTION": "MakeFunction", "SET_FUNCTION_ATTRIBUTE": "MakeFunction",
           "BINARY_OP": "BinaryOp", "CALL_INTRINSIC_1": "Intrinsic1",
           "CALL_INTRINSIC_2": "Intrinsic2", "LOAD_SPECIAL": "SpecialMethod",
           "LOAD_COMMON_CONSTANT": "CommonConstant"}


def operand_kind(name, op):
    """How dis shows the argument (Opcode.h, OperandKind), in dis's own order of
    tests: its has* lists, then the opcodes it names, each packing measured by a
    probe. An argument dis shows that no kind models stops the generator."""
    if not has_arg(op):
        return "None"
    if op in opcode.hasconst:
        # 3.11's dis shows LOAD_CONST's constant only, not KW_NAMES's.
        return "Const" if probe(name, 0) == "None" else "Raw"
    if op in opcode.hasname:
        with_bit0 = probe(name, 1)
        if with_bit0 == PROBE_NAMES[1]:
            return "Name"
        # The name is in the higher bits (OperandRules.def says which); bit 0
        # adds the NULL (LOAD_GLOBAL) or NULL|self (LOAD_ATTR, LOAD_SUPER_ATTR),
        # or makes 3.15's IMPORT_NAME lazy (bit 1: eager).
        if with_bit0 and with_bit0.endswith(" + lazy"):
            return "ImportName"
        return "AttrName" if "NULL|self" in with_bit0 else "GlobalName"
    if any(op in getattr(opcode, lst, ()) for lst in JUMP_LISTS):
        # A label dis shows for an instruction that never jumps (3.14's END_ASYNC_FOR:
        # the loop's SEND, behind it).
        if name in stack_io.NOT_TAKEN_JUMPS[VERSION]:
            assert dis._is_backward_jump(op), name
            return "BackwardLabel"
        return "Jump"
    if op in opcode.haslocal or op in opcode.hasfree:
        pair = probe(name, 0x01)
        if pair == "l0, l1":
            return "LocalPair"
        return "Local" if op in opcode.haslocal else "Free"
    if op in opcode.hascompare:
        return "CompareBool" if (probe(name, (2 << 5) | 16) or "").startswith("bool(") \
            else "Compare"
    if name in BY_NAME:
        return BY_NAME[name]
    # 3.14's IS_OP / CONTAINS_OP: "is" / "is not", "in" / "not in" (any nonzero argument).
    if probe(name, 0) and probe(name, 0) in ("is", "in"):
        return {"is": "IsOp", "in": "ContainsOp"}[probe(name, 0)]
    if probe(name, 1):
        raise SystemExit(f"dis shows {name}'s argument as {probe(name, 1)!r}: no operand "
                         "kind models it (Opcode.h, OperandKind)")
    return "Raw"


def format_of(name, arg, value):
    """dis's text for NAME ARG with the operand VALUE replaced by {0}."""
    text = probe(name, arg)
    assert text and text.count(value) == 1, (name, arg, text)
    return text.replace(value, "{0}")


def arg_texts():
    """[(table, index, text)]: the texts this version's dis shows for enumerated
    arguments (ArgTextTable, VersionOpcodes.h)."""
    rows = [("CompareOp", i, t) for i, t in enumerate(dis.cmp_op)]
    rows += [("BinaryOp", i, t) for i, (_, t) in enumerate(dis._nb_ops)]
    for table, attr in (("Intrinsic1", "_intrinsic_1_descs"),
                        ("Intrinsic2", "_intrinsic_2_descs")):
        rows += [(table, i, t) for i, t in enumerate(getattr(opcode, attr, ()))]
    flags = getattr(dis, "FUNCTION_ATTR_FLAGS", None) or dis.MAKE_FUNCTION_FLAGS
    rows += [("FunctionFlag", i, t) for i, t in enumerate(flags)]
    if hasattr(dis, "FORMAT_VALUE_CONVERTERS"):
        rows += [("Conversion", i, t) for i, (_, t) in
                 enumerate(dis.FORMAT_VALUE_CONVERTERS)]
    else:
        rows += [("Conversion", i, probe("CONVERT_VALUE", i)) for i in range(4)]
    kinds = {name: operand_kind(name, op) for name, op in base_opcodes()}
    for table, kind in (("IsOp", "IsOp"), ("ContainsOp", "ContainsOp")):
        for name in (n for n, k in kinds.items() if k == kind):
            rows += [(table, i, probe(name, i)) for i in (0, 1)]
    if hasattr(opcode, "_special_method_names"):
        rows += [("SpecialMethod", i, t) for i, t in enumerate(opcode._special_method_names)]
    if hasattr(opcode, "_common_constants"):
        rows += [("CommonConstant", i, probe("LOAD_COMMON_CONSTANT", i))
                 for i in range(len(opcode._common_constants))]
    rows.append(("NullFormat", 0, format_of("LOAD_GLOBAL", 1, PROBE_NAMES[0])))
    attr = [n for n, k in kinds.items() if k == "AttrName"]
    if attr:
        rows.append(("NullSelfFormat", 0, format_of(attr[0], 1, PROBE_NAMES[0])))
    for name in (n for n, k in kinds.items() if k == "ImportName"):
        rows += [("ImportFormat", i, format_of(name, (1 << 2) | i, PROBE_NAMES[1]))
                 for i in (1, 2)]
    cmp_bool = [n for n, k in kinds.items() if k == "CompareBool"]
    if cmp_bool:
        rows.append(("CompareBoolFormat", 0,
                     format_of(cmp_bool[0], (2 << 5) | 16, dis.cmp_op[2])))
    return rows


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
    w("//   Operand: how dis shows the argument (OperandKind, Opcode.h; measured\n")
    w("//           by probing this version's dis): None | Const | Name |\n")
    w("//           GlobalName | AttrName | Local | Free | LocalPair | Jump |\n")
    w("//           Compare | CompareBool | FormatValue | Conversion |\n")
    w("//           MakeFunction | BinaryOp | Intrinsic1 | Intrinsic2 | Raw\n")
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
    w("//\n")
    w("// PYV_ARG_TEXT(Table, Index, Text): what this version's dis shows for an\n")
    w("// enumerated argument (ArgTextTable, VersionOpcodes.h); the *Format rows are\n")
    w("// patterns with {0} for the operand.\n")
    w("//===----------------------------------------------------------------------===//\n\n")
    w("#ifndef PYV_VERSION_OPCODE\n#error \"define PYV_VERSION_OPCODE before including "
      f"Opcodes{major}{minor}.def\"\n#endif\n")
    w("#ifndef PYV_SPECIALIZED\n#define PYV_SPECIALIZED(Name, Number, Base)\n#endif\n")
    w("#ifndef PYV_ARG_TEXT\n#define PYV_ARG_TEXT(Table, Index, Text)\n#endif\n\n")
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
    w("\n")
    for table, i, text in arg_texts():
        w(f"PYV_ARG_TEXT({table}, {i}, {json.dumps(text)})\n")
    w("\n#undef PYV_VERSION_OPCODE\n#undef PYV_SPECIALIZED\n#undef PYV_ARG_TEXT\n")


if __name__ == "__main__":
    main()
