"""The net stack-effect formulas of Opcode.cpp's evalStackEffect (EffectKind),
used by scripts/gen-opcodes.py (every version), which fits each opcode's
`dis.stack_effect` to one of them, in this order, over SWEEP."""

SWEEP = list(range(0, 1030)) + [2**16 - 1, 2**16, 2**24 - 1, 2**24, 2**30, 2**31 - 1]

FORMULAS = {
    "UnpackSequence": lambda a: a - 1,
    "UnpackEx": lambda a: (a & 0xFF) + (a >> 8),
    "BuildN": lambda a: 1 - a,
    "BuildMap": lambda a: 1 - 2 * a,
    "NegArg": lambda a: -a,
    "LoadGlobal": lambda a: 1 + (a & 1),
    "CallFunctionEx": lambda a: -2 - (a & 1),
    "MakeFunction": lambda a: -bin(a & 0xF).count("1"),
    "BuildSlice": lambda a: -2 if a == 3 else -1,
    "FormatValue": lambda a: -1 if a & 4 else 0,
    # 3.12 and 3.13 only.
    "ArgBit0": lambda a: a & 1,
    "LoadSuperAttr": lambda a: -2 + (a & 1),
    "CallN": lambda a: -1 - a,
    "CallKw": lambda a: -2 - a,
    # 3.14 on.
    "BuildInterpolation": lambda a: -1 - (a & 1),
}


def c_int(v):
    """What the C compiler's int arithmetic gives (BUILD_MAP overflows for huge args)."""
    v &= 0xFFFFFFFF
    return v - 2**32 if v >= 2**31 else v
