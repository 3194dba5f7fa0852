# 3.14's borrowing loads read their locals as LOAD_FAST / LOAD_FAST_LOAD_FAST
# do: LOAD_FAST_BORROW and LOAD_FAST_BORROW_LOAD_FAST_BORROW of a local that
# is never bound push NULL (no check: CPython 3.14.2 returns the NULL as a
# value, printed "<NULL>"), and the values they push are the locals' own (the
# typed stack, the value kinds and the prover follow them). Before, both were
# lowered as an unknown push, and the unbound reads below checked clean.
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t
# RUN: %not --code 1 %pyverify check %t/one.pyc | FileCheck %s --check-prefix=ONE
# ONE: error: {{[0-9]+}} LOAD_FAST_BORROW 1 reads local 'b', which is unbound{{.*}}[local-unbound]
# ONE: [null-stack-value]
# RUN: %not --code 1 %pyverify check %t/pair.pyc | FileCheck %s --check-prefix=PAIR
# PAIR: error: {{[0-9]+}} LOAD_FAST_BORROW_LOAD_FAST_BORROW {{[0-9]+}} reads local 'b', which is unbound{{.*}}[local-unbound]
# The compiler's own code: clean.
# RUN: %pyverify check %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN: 0 error(s)
import dis
import importlib.util
import marshal
import opcode
import os
import sys

SRC = '''
def one(a):
    b = a
    return b

def pair(a):
    b = a
    return (a, b)
'''


def write(path, code):
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))


def unbind_b(co):
    """STORE_FAST b -> POP_TOP: b is never bound."""
    code = bytearray(co.co_code)
    for i in dis.get_instructions(co):
        if i.opname == "STORE_FAST" and i.argval == "b":
            code[i.offset], code[i.offset + 1] = opcode.opmap["POP_TOP"], 0
    return co.replace(co_code=bytes(code))


def main():
    out = sys.argv[1]
    mod = compile(SRC, "borrow_local.py", "exec")
    write(os.path.join(out, "clean.pyc"), mod)
    for name in ("one", "pair"):
        fn = next(c for c in mod.co_consts if getattr(c, "co_name", "") == name)
        ops = {i.opname for i in dis.get_instructions(fn)}
        assert {"one": "LOAD_FAST_BORROW",
                "pair": "LOAD_FAST_BORROW_LOAD_FAST_BORROW"}[name] in ops, ops
        consts = tuple(unbind_b(c) if c is fn else c for c in mod.co_consts)
        write(os.path.join(out, name + ".pyc"), mod.replace(co_consts=consts))


main()
