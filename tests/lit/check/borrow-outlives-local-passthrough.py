# borrow-outlives-local through an instruction that passes its input on:
# 3.14's FORMAT_SIMPLE pushes its input itself when it is an exact str
# (`res = value`), so a borrow survives it.
# Measured on CPython 3.14.2: the compiler's `f"{x}{(x := 'c')}"` with its
# LOAD_FAST x made LOAD_FAST_BORROW formats a freed string ("TypeError:
# sequence item 0: expected str instance, <garbage> found"). Before, the
# pass took FORMAT_SIMPLE's output as owned and missed it: LOAD_FAST_BORROW
# x; FORMAT_SIMPLE; LOAD_CONST None; STORE_FAST x; RETURN_VALUE.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import rawcode


def f(x, y):
    pass


if __name__ == "mkcode":
    FORMAT = rawcode.code("8000" "5600" "0c00" "5200" "7000" "2300", "",
                          consts=(None,), stacksize=4, template=f.__code__)

# RUN: %mkcode marshal %s %t --object FORMAT
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t | FileCheck %s
# CHECK: error: possibly: 8 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 10 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]
