# borrow-outlives-local, measured in CPython 3.14 (the Pyodide oracle): the
# compiler's `return (x, (x := y))` loads x with LOAD_FAST_LOAD_FAST, since x
# is stored to while its value is on the stack. Made
# LOAD_FAST_BORROW_LOAD_FAST_BORROW (a rewriter's wrong borrow), the
# STORE_FAST x drops the only reference: x's object is finalized before
# BUILD_TUPLE takes the borrowed value, and the returned tuple holds the
# freed object. pyverify accepts the compiler's code and reports the
# mutant's. (Allocating more objects of the size after it makes the
# interpreter fault, SIGSEGV: measured, not done here.)
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python314 %s %t | FileCheck %s --check-prefix=ORACLE
# RUN: %pyverify check %t/compiler.pyc | FileCheck %s --check-prefix=CLEAN
# RUN: %not --code 1 %pyverify check %t/mutant.pyc | FileCheck %s --check-prefix=MUTANT
# RUN: FileCheck %s --check-prefix=DOC < %S/../../../docs/checks.md
#
# ORACLE: compiler: finalized before the use: False
# ORACLE-NEXT: mutant: finalized before the use: True
# CLEAN: 0 error(s), 0 warning(s)
# MUTANT: error: 6 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW_LOAD_FAST_BORROW borrowed from it (without a reference) is still on the stack, and 8 BUILD_TUPLE takes that value after: the object may have been freed (use after free); {{.*}} [borrow-outlives-local]
# DOC: `borrow-outlives-local`
import importlib._bootstrap_external as be
import opcode
import os
import sys

DEAD = []


class D:
    def __del__(self):
        DEAD.append(id(self))


def f(x, y):
    return (x, (x := y))


def run(code, label):
    DEAD.clear()
    t = type(f)(code, {})(D(), D())
    print(label + ": finalized before the use:", id(t[0]) in DEAD, flush=True)
    return t


c = f.__code__
b = bytearray(c.co_code)
assert b[2] == opcode.opmap["LOAD_FAST_LOAD_FAST"], c.co_code.hex()
b[2] = opcode.opmap["LOAD_FAST_BORROW_LOAD_FAST_BORROW"]
m = c.replace(co_code=bytes(b))
out = sys.argv[1]
with open(os.path.join(out, "compiler.pyc"), "wb") as fp:
    fp.write(be._code_to_timestamp_pyc(c))
with open(os.path.join(out, "mutant.pyc"), "wb") as fp:
    fp.write(be._code_to_timestamp_pyc(m))
run(c, "compiler")
keep = run(m, "mutant")
