# A call laid out for another version: 3.13's CALL takes the callable first
# and its NULL second (LOAD_GLOBAL's "g + NULL"); 3.11's and 3.12's take the
# NULL first. A rewriter that keeps emitting PUSH_NULL before the callable
# for 3.13 hands CALL a NULL where the callable goes, and the interpreter
# calls NULL. The code object is written by python3.11 with 3.13's bytes
# (the marshal layout of a code object is the same; the bytes are patched
# into the marshal data, since 3.11's marshal de-specialises its own opcode
# numbers) and read with --python-version=3.13.
#
# RUN: %mkcode marshal %s %t.bad --object BAD
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.bad 2>&1 | FileCheck %s
# CHECK: error: 14 CALL 0 takes the value it pops first from the deepest, which is NULL, where it needs an object; CPython 3.13 calls take the callable first and its NULL (or self) second: NULL before the callable is 3.11's and 3.12's layout [null-stack-value]
# RUN: %mkcode marshal %s %t.good --object GOOD
# RUN: %pyverify check --python-version=3.13 %t.good | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)


def f():
    return g()


if __name__ == "mkcode":
    # 3.13: RESUME 149, PUSH_NULL 34, LOAD_GLOBAL 91 (4 cache units),
    # CALL 53 (3 cache units), RETURN_VALUE 36.
    def ins(op, arg=0, caches=0):
        return bytes([op, arg]) + b"\0\0" * caches

    import marshal

    def code(body):
        units = len(body) // 2
        lines = bytes([0x80 | (15 << 3) | 7]) * (units // 8)
        if units % 8:
            lines += bytes([0x80 | (15 << 3) | (units % 8 - 1)])
        nops = bytes([9, 0]) * units  # 3.11's NOP: kept by its marshal
        data = marshal.dumps(f.__code__.replace(co_code=nops, co_linetable=lines,
                                                co_stacksize=2, co_exceptiontable=b""))
        assert data.count(nops) == 1
        return data.replace(nops, body)

    BAD = code(ins(149) + ins(34) + ins(91, 0, 4) + ins(53, 0, 3) + ins(36))
    GOOD = code(ins(149) + ins(91, 1, 4) + ins(53, 0, 3) + ins(36))
