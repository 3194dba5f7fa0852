# exception-table-decode: co_exceptiontable bytes that do not parse. The
# table is then unusable, so no other exception-table or stack check runs.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g's table, four varints per entry (start, length, target, depth<<1|lasti,
# in code units; 0x80 marks an entry's first byte, 0x40 "more chunks"):
#   82 06 09 00 | 89 0a 17 03 | 96 01 17 03
#   4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1] lasti

if __name__ == "mkcode":
    code = g.__code__
    table = code.co_exceptiontable
    assert table == bytes.fromhex("82060900 890a1703 96011703")

    # The last entry loses its depth/lasti byte.
    # RUN: %mkcode marshal %s %t.trunc --object TRUNCATED
    # RUN: %not --code 1 %pyverify check %t.trunc | FileCheck %s --check-prefix=TRUNC
    TRUNCATED = bc.with_entries(code, table[:-1])
    # TRUNC:      {{.*}}.py:7:1: error: co_exceptiontable at byte 11: truncated exception-table entry (started at byte 8): expected a byte of its depth/lasti varint [exception-table-decode]
    # TRUNC-NEXT:   in g (line 7) at offset 0: RESUME 0
    # The checks that need the table are named as not run.
    # TRUNC-NEXT: {{.*}}.py:7:1: error: {{[0-9]+}} enabled checks did not run on this code object: the exception table is malformed (exception-table-decode); not run: exception-table-zero-length, {{.*}} [checks-not-run]
    # TRUNC-NEXT:   in g (line 7) at offset 0: RESUME 0
    # TRUNC-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # The first entry's first byte lacks the 0x80 start bit.
    # RUN: %mkcode marshal %s %t.nostart --object NO_START_BIT
    # RUN: %not --code 1 %pyverify check %t.nostart | FileCheck %s --check-prefix=NOSTART
    NO_START_BIT = bc.with_entries(code, b"\x02" + table[1:])
    # NOSTART:      error: co_exceptiontable at byte 0: exception-table entry must start with a byte that has the 0x80 start bit, found 02 [exception-table-decode]
    # NOSTART-NEXT:   in g (line 7) at offset 0: RESUME 0

    # A start bit inside an entry: its depth byte is 0x80, as if the entry
    # ended after three varints.
    # RUN: %mkcode marshal %s %t.midstart --object MID_START_BIT
    # RUN: %not --code 1 %pyverify check %t.midstart | FileCheck %s --check-prefix=MIDSTART
    MID_START_BIT = bc.with_entries(code, table[:3] + b"\x80" + table[4:])
    # MIDSTART: error: co_exceptiontable at byte 3: unexpected start bit (byte 80) inside the depth/lasti varint of the entry at byte 0; the entry is truncated [exception-table-decode]

    # A start varint of six chunks (more than the 30 bits CPython allows).
    # RUN: %mkcode marshal %s %t.long --object TOO_LONG
    # RUN: %not --code 1 %pyverify check %t.long | FileCheck %s --check-prefix=LONG
    TOO_LONG = bc.with_entries(code, bytes.fromhex("c0 40 40 40 40 02") +
                               table[1:])
    # LONG: error: co_exceptiontable at byte 0: start varint has more than 5 6-bit chunks (value would overflow) [exception-table-decode]
