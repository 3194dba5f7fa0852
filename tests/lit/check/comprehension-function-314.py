# TorchDynamo's function for a graph break in a comprehension
# (comprehension-function.py) on 3.14 and 3.15: RESUME, the comprehension's
# stack rebuilt from arguments, its instructions from FOR_ITER to the store
# of its result copied without exception-table entries, LOAD_FAST result,
# RETURN_VALUE. The copied bytes are the interpreter's own (relative jumps
# stay inside them). 3.14's stack at FOR_ITER is the saved local, the list
# and the iterator; 3.15's iterator takes two slots (GET_ITER's iterator and
# its index, NULL for an iterator), so a rebuilt stack without the second
# slot is one short: FOR_ITER's loop then underflows, and 3.15.0rc1 traps
# ("null function or function signature mismatch"); with a PUSH_NULL for it
# (Dynamo pushes a NULL slot that way) it runs.
#
# REQUIRES: python314, python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t/c314.marshal | FileCheck %s --check-prefix=RUNS
# RUN: %pyverify check --python-version=3.14 %t/c314.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python315 %s %t/c315.marshal index %t/short315.marshal | FileCheck %s --check-prefix=RUNS
# RUN: %pyverify check --python-version=3.15 %t/c315.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: %not --code 1 %pyverify check --python-version=3.15 %t/short315.marshal | FileCheck %s --check-prefix=SHORT
# RUNS: [11, 21]
# CLEAN: 0 error(s), 0 warning(s)
# SHORT: error: LIST_APPEND 3 reads the stack 4 value(s) deep (PEEK(4)) but only 3 are on the stack [stack-underflow]

import dis
import marshal
import sys
import types


def g(v):
    return v * 10


def f(xs, y):
    r = [g(a) + y for a in xs]
    return r


def build(out, mode=""):
    co = f.__code__
    ins = list(dis.get_instructions(co))
    first = next(i for i in ins if i.opname == "FOR_ITER")
    end = next(i for i in ins if i.opname == "END_FOR")
    store_r = next(i for i in ins if i.opname == "STORE_FAST"
                   and i.argval == "r" and i.offset > end.offset)
    body = co.co_code[first.offset:store_r.offset + 2]
    op = dis.opmap
    # The arguments ___stack0 (the iterator), ___stack1 (the list),
    # ___stack2 (the saved `a`) after f's own locals.
    n = len(co.co_varnames)
    prologue = [op["RESUME"], 0, op["LOAD_FAST"], n + 2, op["LOAD_FAST"],
                n + 1, op["LOAD_FAST"], n]
    if mode == "index":
        prologue += [op["PUSH_NULL"], 0]
    code = (bytes(prologue) + body
            + bytes([op["LOAD_FAST"], co.co_varnames.index("r"),
                     op["RETURN_VALUE"], 0]))
    units = len(code) // 2
    lines = bytes([0x80 | (15 << 3) | 7]) * (units // 8)
    if units % 8:
        lines += bytes([0x80 | (15 << 3) | (units % 8 - 1)])
    varnames = co.co_varnames + ("___stack0", "___stack1", "___stack2")
    new = co.replace(co_code=code, co_exceptiontable=b"", co_linetable=lines,
                     co_argcount=len(varnames), co_varnames=varnames,
                     co_nlocals=len(varnames), co_stacksize=co.co_stacksize + 2)
    with open(out, "wb") as fh:
        marshal.dump(new, fh)
    return new


def main(out, mode="", short=None):
    fn = types.FunctionType(build(out, mode), globals())
    print(fn(None, 1, None, None, iter([1, 2]), [], 0))
    if short:  # 3.15 without the index slot: written, not run (it traps)
        build(short)


if __name__ == "__main__":
    main(*sys.argv[1:])
