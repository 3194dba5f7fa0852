"""pyverify's operand rules (include/pyverify/Bytecode/OperandRules.def) for
the running interpreter's version, against that interpreter's dis/opcode
modules (issue 24: the table is one place, checked here).

    python3.12 tests/versions/check_operand_rules.py CXX OperandRules.def

The .def is expanded with the C++ preprocessor CXX (its rows are macros).
Checked, for the running version:
  * every rule's opcode is a base opcode of the version;
  * the opcodes whose operand indexes co_consts, co_names or the localsplus
    slots are exactly dis's hasconst, hasname, and haslocal + hasfree
    (COPY_FREE_VARS, a count, is in none of them);
  * the index a rule takes from the argument (arg, arg >> 1, arg >> 2, the
    two nibbles) is the one `dis` shows: each rule's opcode is disassembled
    with an argument whose field is 5 (the other fields 0) and dis's argval
    must be entry 5 of the table;
  * each operator range's top is the top of dis's table for it (dis decodes
    the top and raises IndexError one past it), with the same shift;
    SET_FUNCTION_ATTRIBUTE's top bit is dis.FUNCTION_ATTR_FLAGS's last.
Exits 1 listing every difference; prints the counts otherwise.
"""
import dis
import opcode
import re
import subprocess
import sys

VERSION = "V%d_%d" % sys.version_info[:2]
SHIFT = {"Arg": 0, "Shr1": 1, "Shr2": 2, "Shr4": 4, "Shr5": 5, "Low4": 0}
# Ranges no dis table states (measured: OperandRules.def, lit tests).
MEASURED = {"YIELD_VALUE", "LOAD_SMALL_INT"}
INDEXED = {"Consts": "hasconst", "KwNames": "hasconst", "Names": "hasname",
           "LocalsPlus": "haslocal/hasfree", "Cell": "haslocal/hasfree"}


def rules(cxx, path):
    out = subprocess.run(
        [cxx, "-E", "-P", "-x", "c++",
         "-DPYV_OPERAND_RULE(V,Op,F,B,Lo,Hi,W,E)=@RULE V Op F B Lo Hi@", path],
        capture_output=True, text=True, check=True).stdout
    found = []
    for m in re.finditer(r"@RULE (\w+) (\w+) (\w+) (\w+) (\w+) (\w+)@", out):
        v, op, field, bound, lo, hi = m.groups()
        if v == VERSION:
            found.append((op, field, bound, int(lo, 0),
                          int(hi.rstrip("u"), 0)))
    return found


def names(lst):
    return {opcode.opname[o] for o in lst
            if o < 256 and not opcode.opname[o].startswith(("<", "INSTRUMENTED_"))}


def caches(name):
    c = opcode._inline_cache_entries  # a list (3.11), a dict, a frozendict (3.15)
    return c.get(name, 0) if hasattr(c, "get") else c[opcode.opmap[name]]


def disassemble(name, arg, consts=(), co_names=(), varnames=()):
    """dis's (argval, argrepr) of one instruction NAME ARG, or the exception
    dis raised."""
    body = b""
    for sh in (24, 16, 8):
        if arg >> sh:
            body += bytes([opcode.opmap["EXTENDED_ARG"], (arg >> sh) & 255])
    body += bytes([opcode.opmap[name], arg & 255]) + b"\0\0" * caches(name)
    code = (lambda: None).__code__.replace(
        co_code=body, co_consts=tuple(consts), co_names=tuple(co_names),
        co_varnames=tuple(varnames), co_nlocals=len(varnames),
        co_linetable=b"", co_exceptiontable=b"")
    try:
        ins = [i for i in dis.get_instructions(code) if i.opname == name]
        return ins[0].argval, ins[0].argrepr
    except (IndexError, KeyError) as e:
        return e


def main():
    cxx, path = sys.argv[1:3]
    rows = rules(cxx, path)
    errors = []
    base = set(opcode.opmap)
    for op, *_ in rows:
        if op not in base:
            errors.append("%s is not a base opcode of %s" % (op, VERSION))
    by_bound = {}
    for op, field, bound, lo, hi in rows:
        by_bound.setdefault(INDEXED.get(bound), set()).add(op)
    for lst, want in (("hasconst", names(opcode.hasconst)),
                      ("hasname", names(opcode.hasname)),
                      ("haslocal/hasfree",
                       names(opcode.haslocal) | names(opcode.hasfree))):
        got = by_bound.get(lst, set())
        if got != want:
            errors.append("%s: rules have %s more, dis %s more"
                          % (lst, sorted(got - want), sorted(want - got)))
    table = ["e%d" % i for i in range(16)]
    fields = 0
    for op, field, bound, lo, hi in rows:
        if bound not in INDEXED:
            continue
        arg = 5 << SHIFT[field] if field != "Shr4" else 5 << 4
        r = disassemble(op, arg, consts=table, co_names=table, varnames=table)
        want = "e5"
        got = r[0] if isinstance(r, tuple) else r
        if isinstance(got, tuple):  # 3.13's two-local instructions
            got = got[0] if field == "Shr4" else got[1]
        if op == "KW_NAMES" and sys.version_info < (3, 12):
            continue  # 3.11's dis shows no constant for KW_NAMES
        fields += 1
        if got != want:
            errors.append("%s %s: field %s of argument %d is %r in dis, the "
                          "rule takes %r" % (op, bound, field, arg, got, want))
    ranges = 0
    for op, field, bound, lo, hi in rows:
        if bound == "OneFlag":
            ranges += 1
            top = 1 << (len(dis.FUNCTION_ATTR_FLAGS) - 1)
            if (lo, hi) != (1, top):
                errors.append("%s: flags %d..%d, dis.FUNCTION_ATTR_FLAGS "
                              "says 1..%d" % (op, lo, hi, top))
        if bound != "Range" or hi == 0xFFFFFFFF or op in MEASURED:
            continue  # a stack position or a measured range: not in dis
        ranges += 1
        ok = disassemble(op, hi << SHIFT[field])
        past = disassemble(op, (hi + 1) << SHIFT[field])
        if not isinstance(ok, tuple) or not isinstance(past, IndexError):
            errors.append("%s: top %d (shift %d): dis decodes %r, one past "
                          "%r" % (op, hi, SHIFT[field], ok, past))
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print("%s: %d operand rules; indexed opcodes equal to dis's has* lists, "
          "%d index fields and %d operator ranges equal to dis's"
          % (VERSION, len(rows), fields, ranges))


if __name__ == "__main__":
    main()
