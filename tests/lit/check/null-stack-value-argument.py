# null-stack-value names the slot it is about. A NULL in an argument slot of
# a call (here PUSH_NULL as g's argument; in emitted code, 3.12+'s LOAD_FAST
# of a local that is unbound, which pushes NULL) is not a call laid out for
# another version. Before, the message blamed the call layout for it
# ("CPython 3.12 calls take the NULL (or method) first ...: the callable
# before its NULL is 3.13's layout"); now it says which argument is NULL.
# Only a NULL in the callable's slot is a layout fault (null-stack-value.py).
# Measured: 3.12.1 and 3.13.0 segfault on g(NULL) (LOAD_CONST None made
# PUSH_NULL in `return g(None)`).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import rawcode

if __name__ == "mkcode":
    # 3.12: RESUME; LOAD_GLOBAL 1 (NULL + g); PUSH_NULL; CALL 1; RETURN_VALUE
    V312 = rawcode.code("9700" "7401" + "0000" * 4 + "0200" "ab01" + "0000" * 3
                        + "5300", "", stacksize=3, names=("g",))
    # 3.13: RESUME; LOAD_GLOBAL 1 (g + NULL); PUSH_NULL; CALL 1; RETURN_VALUE
    V313 = rawcode.code("9500" "5b01" + "0000" * 4 + "2200" "3501" + "0000" * 3
                        + "2400", "", stacksize=3, names=("g",))

# RUN: %mkcode marshal %s %t.312 --object V312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.312 | FileCheck %s --check-prefix=V312
# V312: error: 14 CALL 1 takes the value it pops #3 from the deepest, which is NULL, where it needs an object: argument 1 of 1 is NULL [null-stack-value]
# V312-NOT: layout
# RUN: %mkcode marshal %s %t.313 --object V313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.313 | FileCheck %s --check-prefix=V313
# V313: error: 14 CALL 1 takes the value it pops #3 from the deepest, which is NULL, where it needs an object: argument 1 of 1 is NULL [null-stack-value]
# V313-NOT: layout
