# A check that could not run is neither a proof nor a refutation. f's stack
# reaches 70,000 slots (70,000 LOAD_FASTs, then BUILD_TUPLE 70000, with
# co_stacksize 70,000): valid code (python3.11 runs it and returns the
# tuple), above the 65,536 slots the value and context analyses model, so
# `check` names the checks they serve (analysis-limit). `prove` says the
# well-formed property is unknown, with that reason (before: "refuted:
# well-formed: 2 dataflow error(s)", a false refutation; and before
# analysis-limit was an error, a warning nobody read, so well-formed held
# over checks that never ran).
#
# RUN: %python %s %t.marshal
# RUN: %python -c "import marshal,sys,types; c=marshal.load(open(sys.argv[1],'rb')); assert len(types.FunctionType(c, {})(1)) == 70000" %t.marshal
# RUN: %not --code 1 %pyverify check %t.marshal | FileCheck %s --check-prefix=CHECK
# CHECK: 2 error(s), 0 warning(s), 0 remark(s); 1 code object(s) not fully checked
# RUN: %not --code 3 %pyverify prove %t.marshal | FileCheck %s --check-prefix=PROVE
# PROVE: [original] unknown: well-formed: checks did not run (2 finding(s)), first: the stack reaches depth 70000, above the 65536 slots the value analysis models; not run: null-stack-value, {{.*}} [analysis-limit]
# PROVE: pyverify: 1 file(s), 1 result(s): 0 proved, 0 refuted, 1 unknown
import dis
import marshal
import sys


def f(x):
    return x


if __name__ == "__main__":
    op = dis.opmap
    n = 70000
    code = (bytes([op["RESUME"], 0]) + bytes([op["LOAD_FAST"], 0]) * n +
            bytes([op["EXTENDED_ARG"], (n >> 16) & 255, op["EXTENDED_ARG"],
                   (n >> 8) & 255, op["BUILD_TUPLE"], n & 255,
                   op["RETURN_VALUE"], 0]))
    units, table = len(code) // 2, bytearray()
    while units:  # "no location" entries of up to 8 units
        k = min(8, units)
        table.append(0xF8 | (k - 1))
        units -= k
    c = f.__code__.replace(co_code=code, co_stacksize=n,
                           co_linetable=bytes(table), co_exceptiontable=b"")
    with open(sys.argv[1], "wb") as out:
        marshal.dump(c, out)
