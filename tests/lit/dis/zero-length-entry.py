# A zero-length exception-table entry is printed "A to A (empty)", never
# like an entry that covers one instruction ("44 to 44"), in the dis
# listing and in the messages that name an entry.
# (include/pyverify/Bytecode/ExceptionTableText.h).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g's table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti (one instruction, RERAISE at 44).

if __name__ == "mkcode":
    # A copy of the first entry with length 0, in front of it.
    # RUN: %mkcode marshal %s %t.bin
    table = bc.entries(g.__code__)
    CODE = bc.with_entries(g.__code__, [bc.Entry(4, 4, 18, 0)] + table)
    assert str(bc.Entry(4, 4, 18, 0)) == "4 to 4 (empty) -> 18 [0]"

# RUN: %pyverify dis %t.bin | FileCheck %s --check-prefix=DIS
# DIS:      ExceptionTable:
# DIS-NEXT:   4 to 4 (empty) -> 18 [0]
# DIS-NEXT:   4 to 14 -> 18 [0]
# DIS-NEXT:   18 to 36 -> 46 [1] lasti
# DIS-NEXT:   44 to 44 -> 46 [1] lasti

# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s --check-prefix=CHECK-MSG
# CHECK-MSG: error: exception-table entry '4 to 4 (empty) -> 18 [0]' (table byte 0) has length 0 and covers no instruction [exception-table-zero-length]
