#!/usr/bin/env python3.11
"""Generate include/pyverify/Bytecode/Opcodes.def from python3.11's own tables.

Numbers, names, argument flags, inline cache counts and relative-jump membership come from
the interpreter's `opcode` module (which mirrors Include/opcode.h). Stack effects are fitted
to `dis.stack_effect` (the compiler's own stack_effect()) by choosing, per opcode, one of a
small set of formulas and verifying it over a sweep of arguments on both edges. Facts that
`dis` does not expose (terminators, which instructions can raise) are taken from
docs/cpython-3.11-bytecode.md and written here once.

Usage: python3.11 scripts/gen-opcodes.py > include/pyverify/Bytecode/Opcodes.def
The unit test OpcodeTableTest re-checks the committed table against `dis` at test time.
"""
import dis
import opcode
import sys

from effect_formulas import FORMULAS, SWEEP, c_int

assert sys.version_info[:2] == (3, 11), "run with python3.11"

TERMINATORS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
               "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
# Instructions that cannot raise in 3.11 without a tracer (bytecode doc, section 1.3).
NEVER_RAISE = {"NOP", "LOAD_CONST", "SWAP", "COPY", "PUSH_NULL", "POP_TOP", "STORE_FAST",
               "STORE_DEREF", "IS_OP", "KW_NAMES", "EXTENDED_ARG", "POP_EXCEPT",
               "PUSH_EXC_INFO", "JUMP_FORWARD", "POP_JUMP_FORWARD_IF_NONE",
               "POP_JUMP_FORWARD_IF_NOT_NONE", "RETURN_VALUE", "LOAD_ASSERTION_ERROR",
               "COPY_FREE_VARS", "LOAD_CLOSURE", "MAKE_CELL", "RETURN_GENERATOR", "CACHE"}
# RESUME 0|1 can raise (eval breaker), RESUME 2|3 cannot.
ARG_DEPENDENT_RAISE = {"RESUME"}

# What each instruction really does to the operand stack (Python/ceval.c, 3.11), written
# once here: counts are (formula, constant) pairs, value = COUNT_FORMULAS[formula](arg) + k.
#   pops / pushes   values taken off / put on the real stack on the fall-through edge; a
#                   value replaced in place (SET_TOP) counts as popped and pushed, so an
#                   analysis that tags slots sees it consumed
#   jpops / jpushes the same on the jump edge (only where it differs)
#   reads           the deepest slot read (PEEK(n)), counting the pops; default: pops
#   null_in         bit mask over the popped values (bit 0 = the deepest) that may be NULL
#   null_out        bit mask over the pushed values (bit 0 = the deepest) that may be NULL
# The generator checks pushes - pops == dis.stack_effect on both edges over the sweep, except
# PRECALL/CALL, whose real effects (PRECALL moves nothing, CALL pops n + 2) sum to the
# compiler's. The stdlib corpus test checks that no real pop or read goes below the stack.
COUNT_FORMULAS = {
    "Zero": lambda a: 0,
    "Arg": lambda a: a,
    "TwoArg": lambda a: 2 * a,
    "ArgBit0": lambda a: a & 1,
    "ArgBit2": lambda a: (a >> 2) & 1,
    "Popcount4": lambda a: bin(a & 0xF).count("1"),
    "UnpackEx": lambda a: (a & 0xFF) + (a >> 8),
    "ArgIs3": lambda a: 1 if a == 3 else 0,
}
Z = ("Zero", 0)


def K(n):
    return ("Zero", n)


def io(pops, pushes, jpops=None, jpushes=None, reads=None, null_in=Z, null_out=Z):
    return dict(pops=pops, pushes=pushes, jpops=jpops or pops, jpushes=jpushes or pushes,
                reads=reads or pops, null_in=null_in, null_out=null_out)


STACK_IO = {}
for n in ("CACHE", "NOP", "EXTENDED_ARG", "RESUME", "MAKE_CELL", "COPY_FREE_VARS", "KW_NAMES",
          "RETURN_GENERATOR", "SETUP_ANNOTATIONS", "DELETE_NAME", "DELETE_GLOBAL",
          "DELETE_FAST", "DELETE_DEREF", "JUMP_FORWARD", "JUMP_BACKWARD",
          "JUMP_BACKWARD_NO_INTERRUPT"):
    STACK_IO[n] = io(K(0), K(0))
# PRECALL moves nothing but reads the method-or-NULL slot (is_method: PEEK(oparg + 2)).
STACK_IO["PRECALL"] = io(K(0), K(0), reads=("Arg", 2))
for n in ("POP_TOP", "RETURN_VALUE", "PRINT_EXPR", "IMPORT_STAR", "POP_EXCEPT", "STORE_NAME",
          "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF", "DELETE_ATTR",
          "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_NONE",
          "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_FALSE",
          "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_NONE",
          "POP_JUMP_BACKWARD_IF_NOT_NONE"):
    STACK_IO[n] = io(K(1), K(0))
# v = POP(); container = PEEK(oparg)
for n in ("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE"):
    STACK_IO[n] = io(K(1), K(0), reads=("Arg", 1))
# update = POP(); dict = PEEK(oparg); on error the callable at PEEK(oparg + 2)
STACK_IO["DICT_MERGE"] = io(K(1), K(0), reads=("Arg", 3))
# val = POP(); with oparg, lasti = PEEK(oparg + 1) before the pop
STACK_IO["RERAISE"] = io(K(1), K(0), reads=("Arg", 1))
for n in ("LOAD_BUILD_CLASS", "LOAD_ASSERTION_ERROR", "LOAD_CONST", "LOAD_NAME", "LOAD_FAST",
          "LOAD_CLOSURE", "LOAD_DEREF", "LOAD_CLASSDEREF"):
    STACK_IO[n] = io(K(0), K(1))
STACK_IO["PUSH_NULL"] = io(K(0), K(1), null_out=K(1))
# Push a value computed from TOP (or TOP and SECOND) without popping.
for n in ("GET_LEN", "MATCH_MAPPING", "MATCH_SEQUENCE", "GET_ANEXT", "IMPORT_FROM"):
    STACK_IO[n] = io(K(0), K(1), reads=K(1))
STACK_IO["MATCH_KEYS"] = io(K(0), K(1), reads=K(2))
# res = PEEK(4)(type, val, tb): the bound __exit__ under lasti, prev_exc and exc
STACK_IO["WITH_EXCEPT_START"] = io(K(0), K(1), reads=K(4))
STACK_IO["COPY"] = io(K(0), K(1), reads=("Arg", 0))
STACK_IO["SWAP"] = io(K(0), K(0), reads=("Arg", 0))
for n in ("UNARY_POSITIVE", "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "GET_AITER",
          "GET_ITER", "GET_YIELD_FROM_ITER", "LIST_TO_TUPLE", "YIELD_VALUE", "ASYNC_GEN_WRAP",
          "LOAD_ATTR", "GET_AWAITABLE"):
    STACK_IO[n] = io(K(1), K(1))
# right = POP(); left = TOP(); PUSH(match)
STACK_IO["CHECK_EXC_MATCH"] = io(K(1), K(1), reads=K(2))
for n in ("PUSH_EXC_INFO", "BEFORE_WITH", "BEFORE_ASYNC_WITH"):
    STACK_IO[n] = io(K(1), K(2))
# [obj] -> [meth, obj] or [NULL, attr]
STACK_IO["LOAD_METHOD"] = io(K(1), K(2), null_out=K(1))
for n in ("BINARY_SUBSCR", "BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "IMPORT_NAME",
          "PREP_RERAISE_STAR"):
    STACK_IO[n] = io(K(2), K(1))
STACK_IO["CHECK_EG_MATCH"] = io(K(2), K(2))
for n in ("END_ASYNC_FOR", "DELETE_SUBSCR", "STORE_ATTR"):
    STACK_IO[n] = io(K(2), K(0))
# value = POP(); key = POP(); map = PEEK(oparg)
STACK_IO["MAP_ADD"] = io(K(2), K(0), reads=("Arg", 2))
STACK_IO["STORE_SUBSCR"] = io(K(3), K(0))
STACK_IO["MATCH_CLASS"] = io(K(3), K(1))
STACK_IO["UNPACK_SEQUENCE"] = io(K(1), ("Arg", 0))
STACK_IO["UNPACK_EX"] = io(K(1), ("UnpackEx", 1))
# The iterator stays on the fall-through; exhausted, it is popped.
STACK_IO["FOR_ITER"] = io(K(0), K(1), jpops=K(1), jpushes=K(0), reads=K(1))
# v = POP(); receiver = TOP(); returned: SET_TOP(retval) and jump; else PUSH(retval)
STACK_IO["SEND"] = io(K(1), K(1), jpops=K(2), jpushes=K(1), reads=K(2))
for n in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
    STACK_IO[n] = io(K(1), K(0), jpops=K(0), jpushes=K(0), reads=K(1))
for n in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_STRING"):
    STACK_IO[n] = io(("Arg", 0), K(1))
STACK_IO["BUILD_MAP"] = io(("TwoArg", 0), K(1))
STACK_IO["BUILD_CONST_KEY_MAP"] = io(("Arg", 1), K(1))
# oparg & 1: NULL first, then the global
STACK_IO["LOAD_GLOBAL"] = io(K(0), ("ArgBit0", 1), null_out=("ArgBit0", 0))
STACK_IO["RAISE_VARARGS"] = io(("Arg", 0), K(0))
# [method-or-NULL, self-or-callable, args...] -> [result]
STACK_IO["CALL"] = io(("Arg", 2), K(1), null_in=K(1))
# [NULL, func, callargs, (kwargs)] -> [result]
STACK_IO["CALL_FUNCTION_EX"] = io(("ArgBit0", 3), K(1), null_in=K(1))
STACK_IO["MAKE_FUNCTION"] = io(("Popcount4", 1), K(1))
STACK_IO["BUILD_SLICE"] = io(("ArgIs3", 2), K(1))
STACK_IO["FORMAT_VALUE"] = io(("ArgBit2", 1), K(1))


def count(c, a):
    return COUNT_FORMULAS[c[0]](a) + c[1]


def check_stack_io(op, name, has_arg):
    """pushes - pops must be dis.stack_effect on both edges (PRECALL/CALL: their sum)."""
    if name not in STACK_IO:
        raise SystemExit(f"no real stack effect for {name}")
    e = STACK_IO[name]
    for a in (SWEEP if has_arg else [0]):
        for jump in (False, True):
            if jump and op not in opcode.hasjrel:
                continue
            pops = count(e["jpops" if jump else "pops"], a)
            pushes = count(e["jpushes" if jump else "pushes"], a)
            want = dis.stack_effect(op, a if has_arg else None, jump=jump)
            if name in ("PRECALL", "CALL"):
                other = "CALL" if name == "PRECALL" else "PRECALL"
                o = STACK_IO[other]
                pops += count(o["pops"], a)
                pushes += count(o["pushes"], a)
                want += dis.stack_effect(opcode.opmap[other], a, jump=jump)
            if c_int(pushes - pops) != want:
                raise SystemExit(f"{name} {a} jump={jump}: real {pushes - pops}, dis {want}")
            if max(pops, count(e["reads"], a)) != count(e["reads"], a):
                raise SystemExit(f"{name} {a}: reads fewer slots than it pops")


def fmt(c):
    return f"({c[0]}, {c[1]})"


def fit(op, has_arg):
    if not has_arg:
        return "Const", dis.stack_effect(op, jump=False), dis.stack_effect(op, jump=True)
    ft = [dis.stack_effect(op, a, jump=False) for a in SWEEP]
    jp = [dis.stack_effect(op, a, jump=True) for a in SWEEP]
    if len(set(ft)) == 1 and len(set(jp)) == 1:
        return "Const", ft[0], jp[0]
    for kind, fn in FORMULAS.items():
        want = [c_int(fn(a)) for a in SWEEP]
        if want == ft and want == jp:
            return kind, 0, 0
    raise SystemExit(f"no formula fits {opcode.opname[op]}")


def operand_kind(op, name):
    if op < opcode.HAVE_ARGUMENT:
        return "None"
    if op in opcode.hasconst:
        return "Const"
    if name == "LOAD_GLOBAL":
        return "GlobalName"
    if op in opcode.hasname:
        return "Name"
    if op in opcode.haslocal:
        return "Local"
    if op in opcode.hasfree:
        return "Free"
    if op in opcode.hasjrel:
        return "Jump"
    if op in opcode.hascompare:
        return "Compare"
    return {"FORMAT_VALUE": "FormatValue", "MAKE_FUNCTION": "MakeFunction",
            "BINARY_OP": "BinaryOp"}.get(name, "Raw")


def main():
    out = sys.stdout
    out.write("//===- Opcodes.def - CPython 3.11 base opcodes ---------------*- C++ -*-===//\n")
    out.write("//\n// GENERATED by scripts/gen-opcodes.py from python3.11's opcode/dis modules.\n")
    out.write("// Do not edit by hand; OpcodeTableTest re-checks every field against dis.\n//\n")
    out.write("// PYV_OPCODE(Name, Number, Caches, Jump, Terminator, Raises, Effect, FT, JT,\n")
    out.write("//            Operand, Pops, Pushes, JumpPops, JumpPushes, Reads, NullIn,\n")
    out.write("//            NullOut)\n")
    out.write("//   Jump:   None | Forward | ForwardCond | Backward | BackwardCond\n")
    out.write("//   Raises: Never | Always | ArgDependent (RESUME: only arg 0|1)\n")
    out.write("//   Effect: Const (FT on fall-through, JT on the jump edge) or a formula of\n")
    out.write("//           the argument shared by both edges (see Opcode.cpp).\n")
    out.write("//   Operand: what the argument indexes or encodes (dis's has* lists):\n")
    out.write("//           None | Const | Name | GlobalName | Local | Free | Jump |\n")
    out.write("//           Compare | FormatValue | MakeFunction | BinaryOp | Raw\n")
    out.write("//   Pops .. NullOut: the real stack (Python/ceval.c), each a count\n")
    out.write("//           (Formula, K) = Formula(arg) + K, Formula one of Zero | Arg |\n")
    out.write("//           TwoArg | ArgBit0 | ArgBit2 | Popcount4 | UnpackEx | ArgIs3:\n")
    out.write("//           values popped and pushed on the fall-through and on the jump\n")
    out.write("//           edge (a value replaced in place counts as both), the deepest\n")
    out.write("//           slot read (PEEK(n), pops included), and bit masks over the\n")
    out.write("//           popped / pushed values (bit 0 = deepest) that may be NULL.\n")
    out.write("//===----------------------------------------------------------------------===//\n\n")
    out.write("// PYV_SPECIALIZED(Name, Number, Base): adaptive/specialised opcodes that live\n")
    out.write("// only in _co_code_adaptive; never valid in co_code (named for diagnostics;\n")
    out.write("// Base gives their inline cache count, _PyOpcode_Deopt).\n\n")
    out.write("#ifndef PYV_OPCODE\n#define PYV_OPCODE(Name, Number, Caches, Jump, Term, Raises, Effect, FT, JT, \\\n                   Operand, Pops, Pushes, JumpPops, JumpPushes, Reads, NullIn,  \\\n                   NullOut)\n#endif\n")
    out.write("#ifndef PYV_SPECIALIZED\n#define PYV_SPECIALIZED(Name, Number, Base)\n#endif\n\n")
    for op, name in enumerate(opcode.opname):
        if name.startswith("<") or op in opcode._specialized_instructions:
            continue
        has_arg = op >= opcode.HAVE_ARGUMENT
        caches = opcode._inline_cache_entries[op]
        if op in opcode.hasjrel:
            backward = "BACKWARD" in name
            cond = name not in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT")
            jump = ("Backward" if backward else "Forward") + ("Cond" if cond else "")
        else:
            jump = "None"
        if name == "CACHE":
            kind, ft, jt = "Const", 0, 0
        else:
            kind, ft, jt = fit(op, has_arg)
        raises = ("ArgDependent" if name in ARG_DEPENDENT_RAISE
                  else "Never" if name in NEVER_RAISE else "Always")
        term = "true" if name in TERMINATORS else "false"
        check_stack_io(op, name, has_arg)
        e = STACK_IO[name]
        out.write(f"PYV_OPCODE({name}, {op}, {caches}, {jump}, {term}, {raises}, {kind}, "
                  f"{ft}, {jt}, {operand_kind(op, name)},\n           "
                  + ", ".join(fmt(e[k]) for k in ("pops", "pushes", "jpops", "jpushes",
                                                   "reads", "null_in", "null_out"))
                  + ")\n")
    out.write("\n")
    base_of = {spec: base for base, specs in opcode._specializations.items()
               for spec in specs}
    for name, op in sorted(dis._all_opmap.items(), key=lambda kv: kv[1]):
        if name in opcode._specialized_instructions:
            out.write(f"PYV_SPECIALIZED({name}, {op}, {base_of[name]})\n")
    out.write("\n#undef PYV_OPCODE\n#undef PYV_SPECIALIZED\n")


if __name__ == "__main__":
    main()
