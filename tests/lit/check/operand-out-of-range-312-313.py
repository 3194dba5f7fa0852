# operand-out-of-range on 3.12 and 3.13 bytecode (3.11's shapes and how the
# interpreters failed: operand-out-of-range.py). The code objects are written
# by python3.11 with the other version's bytes patched into the marshal data
# (the layout is the same; 3.11's marshal would de-specialise foreign opcode
# numbers) and read with --python-version. Each shape was run on
# python3.12.1 / python3.13.0 as built with CodeType.replace there.


def f(a=1, b=2):
    return a


if __name__ == "mkcode":
    import marshal

    # name: (3.12 number, 3.13 number, 3.12 caches, 3.13 caches)
    OPS = {
        "RESUME": (151, 149, 0, 0), "LOAD_CONST": (100, 83, 0, 0),
        "RETURN_VALUE": (83, 36, 0, 0), "RETURN_CONST": (121, 103, 0, 0),
        "COMPARE_OP": (107, 58, 1, 1), "LOAD_ATTR": (106, 82, 9, 9),
        "CALL_INTRINSIC_1": (173, 55, 0, 0), "CALL_INTRINSIC_2": (174, 56, 0, 0),
        "LOAD_DEREF": (137, 84, 0, 0), "COPY_FREE_VARS": (149, 62, 0, 0),
        "CONVERT_VALUE": (None, 60, 0, 0), "MAKE_FUNCTION": (None, 26, 0, 0),
        "SET_FUNCTION_ATTRIBUTE": (None, 106, 0, 0),
        "LOAD_FAST_LOAD_FAST": (None, 88, 0, 0), "BUILD_TUPLE": (102, 52, 0, 0),
        "SWAP": (99, 115, 0, 0), "POP_TOP": (1, 32, 0, 0),
        "RETURN_GENERATOR": (75, 35, 0, 0), "YIELD_VALUE": (150, 118, 0, 0),
        "LOAD_GLOBAL": (116, 91, 4, 4), "CALL_KW": (None, 57, 0, 0),
    }

    def code(v, *ins, consts=(None, 1), names=(), freevars=(), flags=0):
        body = b""
        for it in ins:
            name, arg = (it, 0) if isinstance(it, str) else it
            n, caches = OPS[name][v - 12], OPS[name][v - 10]
            body += bytes([n, arg]) + b"\0\0" * caches
        units = len(body) // 2
        lines = bytes([0x80 | (15 << 3) | 7]) * (units // 8)
        if units % 8:
            lines += bytes([0x80 | (15 << 3) | (units % 8 - 1)])
        nops = bytes([9, 0]) * units  # 3.11's NOP: kept by its marshal
        c = f.__code__.replace(co_code=nops, co_linetable=lines, co_consts=consts,
                               co_names=names, co_freevars=freevars,
                               co_stacksize=4, co_exceptiontable=b"",
                               co_flags=f.__code__.co_flags | flags)
        data = marshal.dumps(c)
        assert data.count(nops) == 1
        return data.replace(nops, body)

    # SIGSEGV on 3.12 and 3.13 (LOAD_CONST 2 of 2 constants too).
    CONST12 = code(12, ("RESUME", 0), ("RETURN_CONST", 200))
    # 3.12 compares with arg >> 4: 6 << 4 SIGSEGV on ints.
    CMP12 = code(12, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                 ("COMPARE_OP", 6 << 4), "RETURN_VALUE")
    # 3.12's LOAD_ATTR names co_names[arg >> 1]: LOAD_ATTR 400 of 1 name
    # raised "attribute name must be string, not 'type'" (it read a type).
    ATTR12 = code(12, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_ATTR", 4),
                  "RETURN_VALUE", names=("real",))
    # CALL_INTRINSIC_1 200 and 12 (one past dis._intrinsic_1_descs):
    # SIGSEGV on 3.12 and 3.13; 0 raised SystemError "invalid intrinsic
    # function" (not reported).
    INTR12 = code(12, ("RESUME", 0), ("LOAD_CONST", 1),
                  ("CALL_INTRINSIC_1", 12), "RETURN_VALUE")
    # CALL_INTRINSIC_2 0: SIGSEGV on 3.12.1 (3.12's table of binary
    # intrinsics has no entry 0: a NULL function pointer; found by the
    # differential sweep, seed 20261207, case 12733); 3.13.0 raised
    # SystemError "invalid intrinsic function" (its entry 0 reports).
    INTR2_12 = code(12, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                    ("CALL_INTRINSIC_2", 0), "RETURN_VALUE")
    INTR2_13 = code(13, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                    ("CALL_INTRINSIC_2", 0), "RETURN_VALUE")
    # 3.13 compares with arg >> 5 (bit 4: convert to bool): 6 << 5 SIGABRT.
    CMP13 = code(13, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                 ("COMPARE_OP", 6 << 5), "RETURN_VALUE")
    # CONVERT_VALUE 0 and 4: SIGSEGV (the converter table's entry 0 is NULL);
    # 1..3 are str, repr, ascii.
    CONV13 = code(13, ("RESUME", 0), ("LOAD_CONST", 1), ("CONVERT_VALUE", 0),
                  "RETURN_VALUE")
    # SET_FUNCTION_ATTRIBUTE takes one flag: after LOAD_CONST (1,),
    # LOAD_CONST <code>, MAKE_FUNCTION, flag 3 stored the tuple as
    # __kwdefaults__ (a dict's place), 16 and 32 as __closure__, 0 as
    # __kwdefaults__ (here the values are constants: the check reads the
    # argument only).
    SETATTR13 = code(13, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                     ("SET_FUNCTION_ATTRIBUTE", 3), "RETURN_VALUE")
    # LOAD_FAST_LOAD_FAST 0x19 (locals 1 and 9 of 2): SIGSEGV.
    LFLF13 = code(13, ("RESUME", 0), ("LOAD_FAST_LOAD_FAST", 0x19),
                  ("BUILD_TUPLE", 2), "RETURN_VALUE")
    # LOAD_DEREF of a plain local: SIGSEGV (3.12, 3.13).
    DEREF13 = code(13, ("COPY_FREE_VARS", 1), ("RESUME", 0), ("LOAD_DEREF", 1),
                   "RETURN_VALUE", freevars=("fv",))
    # 3.13's YIELD_VALUE sets the generator's frame state to FRAME_SUSPENDED
    # + arg (0: a yield, 1: inside yield from / await). In `def g(): x =
    # yield 1; return x`, YIELD_VALUE 2..7 and 200 made the first next()
    # raise StopIteration(1): the generator counts as running, completed or
    # cleared, ends at the yield without resuming, and close() runs no
    # finally block or __exit__ (our flow model resumes it). 3.12 ignores
    # the argument (0..200 all ran as 1), and 3.11's YIELD_VALUE takes none.
    YIELD13 = code(13, "RETURN_GENERATOR", "POP_TOP", ("RESUME", 0),
                   ("LOAD_CONST", 1), ("YIELD_VALUE", 2), ("RESUME", 5),
                   "POP_TOP", ("RETURN_CONST", 0), flags=0x20)
    YIELD12 = code(12, "RETURN_GENERATOR", "POP_TOP", ("RESUME", 0),
                   ("LOAD_CONST", 1), ("YIELD_VALUE", 2), ("RESUME", 5),
                   "POP_TOP", ("RETURN_CONST", 0), flags=0x20)
    # 3.13's CALL_KW takes its keyword names from the stack, a LOAD_CONST
    # right before it: dict(7) with names ('k', 'j') or with 5 said
    # "expected at most 1 argument, got 9223372036854775807" (a negative
    # positional count), with 'k' SIGSEGV; ('k',) is dict(k=7).
    CALLKW13 = code(13, ("RESUME", 0), ("LOAD_GLOBAL", 1), ("LOAD_CONST", 1),
                    ("LOAD_CONST", 2), ("CALL_KW", 1), "RETURN_VALUE",
                    consts=(None, 7, ("k", "j")), names=("dict",))
    CALLKWSTR13 = code(13, ("RESUME", 0), ("LOAD_GLOBAL", 1),
                       ("LOAD_CONST", 1), ("LOAD_CONST", 2), ("CALL_KW", 1),
                       "RETURN_VALUE", consts=(None, 7, "k"), names=("dict",))
    # In range: SWAP 1 is harmless, CALL_INTRINSIC_2 5 is 3.13's last.
    CLEAN13 = code(13, ("RESUME", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 1),
                   ("SWAP", 1), ("CALL_INTRINSIC_2", 5), ("CONVERT_VALUE", 3),
                   "RETURN_VALUE")

# RUN: %mkcode marshal %s %t.const12 --object CONST12
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.const12 | FileCheck %s --check-prefix=CONST12
# CONST12: error: 2 RETURN_CONST 200 reads co_consts[200], but the code object has 2 constant(s): CPython does not check the index and reads past the tuple [operand-out-of-range]
# RUN: %mkcode marshal %s %t.cmp12 --object CMP12
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.cmp12 | FileCheck %s --check-prefix=CMP12
# CMP12: error: 6 COMPARE_OP 96: the comparison 6 (the argument >> 4) is outside 0..5: CPython passes it to the rich comparison, whose operator tables it indexes (dis.cmp_op) [operand-out-of-range]
# RUN: %mkcode marshal %s %t.attr12 --object ATTR12
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.attr12 | FileCheck %s --check-prefix=ATTR12
# ATTR12: error: 4 LOAD_ATTR 4 names co_names[2] (the argument >> 1), but the code object has 1 name(s)
# RUN: %mkcode marshal %s %t.intr12 --object INTR12
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.intr12 | FileCheck %s --check-prefix=INTR12
# INTR12: error: 4 CALL_INTRINSIC_1 12: the intrinsic 12 is outside 0..11: CPython calls through its table of intrinsics with it (dis._intrinsic_1_descs)
# The same bytes as 3.13 are the same finding: 3.13 has 12 too.
# RUN: %mkcode marshal %s %t.intr2_12 --object INTR2_12
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.intr2_12 | FileCheck %s --check-prefix=INTR2-12
# INTR2-12: error: 6 CALL_INTRINSIC_2 0: the intrinsic 0 is outside 1..4: CPython calls through its table of intrinsics with it, whose entry 0 is NULL in 3.12 (dis._intrinsic_2_descs) [operand-out-of-range]
# RUN: %mkcode marshal %s %t.intr2_13 --object INTR2_13
# RUN: %pyverify check --python-version=3.13 %t.intr2_13 | FileCheck %s --check-prefix=INTR2-13
# INTR2-13: 0 error(s), 0 warning(s)
# RUN: %mkcode marshal %s %t.cmp13 --object CMP13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.cmp13 | FileCheck %s --check-prefix=CMP13
# CMP13: error: 6 COMPARE_OP 192: the comparison 6 (the argument >> 5) is outside 0..5: CPython passes it to the rich comparison
# RUN: %mkcode marshal %s %t.conv13 --object CONV13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.conv13 | FileCheck %s --check-prefix=CONV13
# CONV13: error: 4 CONVERT_VALUE 0: the conversion 0 is outside 1..3
# RUN: %mkcode marshal %s %t.setattr13 --object SETATTR13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.setattr13 | FileCheck %s --check-prefix=SETATTR13
# SETATTR13: error: 6 SET_FUNCTION_ATTRIBUTE 3: the attribute flag 3 is not a single bit of 1..8
# RUN: %mkcode marshal %s %t.lflf13 --object LFLF13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.lflf13 | FileCheck %s --check-prefix=LFLF13
# LFLF13: error: 2 LOAD_FAST_LOAD_FAST 25 uses localsplus slot 9 (the argument & 15), but the frame has 2 local, cell and free slot(s)
# LFLF13-NOT: slot 1 (
# RUN: %mkcode marshal %s %t.deref13 --object DEREF13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.deref13 | FileCheck %s --check-prefix=DEREF13
# DEREF13: error: 4 LOAD_DEREF 1 uses localsplus slot 1 ('b') as a cell, but it is a plain local
# RUN: %mkcode marshal %s %t.yield13 --object YIELD13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.yield13 | FileCheck %s --check-prefix=YIELD13
# YIELD13: error: 8 YIELD_VALUE 2: the yield kind 2 is outside 0..1: CPython
# RUN: %mkcode marshal %s %t.yield12 --object YIELD12
# RUN: %pyverify check --python-version=3.12 %t.yield12 | FileCheck %s --check-prefix=YIELD12
# YIELD12: 0 error(s), 0 warning(s)
# RUN: %mkcode marshal %s %t.callkw13 --object CALLKW13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.callkw13 | FileCheck %s --check-prefix=CALLKW13
# CALLKW13: error: 16 CALL_KW 1 passes 1 argument(s), but the keyword names the LOAD_CONST 2 before it loads are 2: CPython computes a negative positional count [operand-out-of-range]
# RUN: %mkcode marshal %s %t.callkwstr13 --object CALLKWSTR13
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.callkwstr13 | FileCheck %s --check-prefix=CALLKWSTR13
# CALLKWSTR13: error: 16 CALL_KW 1 takes co_consts[2], loaded by the LOAD_CONST right before it, as its keyword names, but it is not a tuple: CPython reads it as one [operand-out-of-range]
# RUN: %mkcode marshal %s %t.clean13 --object CLEAN13
# RUN: %pyverify check --python-version=3.13 %t.clean13 | FileCheck %s --check-prefix=CLEAN13
# CLEAN13: 0 error(s), 0 warning(s)
