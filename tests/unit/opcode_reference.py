"""Print python3.11's own opcode facts as JSON for OpcodeTableTest.

Everything OpcodeTableTest compares with include/pyverify/Bytecode/Opcodes.def
comes from here: the `opcode` and `dis` modules of the interpreter running
this script, nothing hard-coded. Stack effects are sampled at every argument
in ARGS on both edges (only with --effects: it takes most of the time); an
error (ValueError, OverflowError) is reported as null so the test can say
which call failed.
"""

import dis
import json
import opcode
import sys

# 0..1029 crosses the 8-bit boundaries every formula cares about (UNPACK_EX
# splits at 256, MAKE_FUNCTION/FORMAT_VALUE look at low bits); the large
# values cross 16, 24 and 31 bits.
ARGS = list(range(1030)) + [2**16 - 1, 2**16, 2**24, 2**30, 2**31 - 1]


def effect(op, arg, jump):
    try:
        if op < opcode.HAVE_ARGUMENT:
            return dis.stack_effect(op, jump=jump)
        return dis.stack_effect(op, arg, jump=jump)
    except (ValueError, OverflowError):
        return None


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("opcode_reference.py needs python3.11, got " + sys.version)
    out = {
        "version": sys.version.split()[0],
        "have_argument": opcode.HAVE_ARGUMENT,
        "extended_arg": opcode.EXTENDED_ARG,
        "opmap": opcode.opmap,
        "caches": {
            name: opcode._inline_cache_entries[op]
            for name, op in opcode.opmap.items()
        },
        "hasjrel": opcode.hasjrel,
        "hasjabs": opcode.hasjabs,
        "hasconst": opcode.hasconst,
        "hasname": opcode.hasname,
        "haslocal": opcode.haslocal,
        "hasfree": opcode.hasfree,
        "hascompare": opcode.hascompare,
        # Specialised names with the numbers dis gives them (dis._all_opmap).
        "specialized": {
            name: dis._all_opmap[name]
            for name in opcode._specialized_instructions
        },
    }
    if "--effects" in sys.argv[1:]:
        out["args"] = ARGS
        out["effects"] = {
            name: {
                "fall": [effect(op, a, False) for a in args],
                "jump": [effect(op, a, True) for a in args],
            }
            for name, op in opcode.opmap.items()
            for args in [[0] if op < opcode.HAVE_ARGUMENT else ARGS]
        }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
