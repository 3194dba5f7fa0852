# exception-table-zero-length: an entry that covers nothing. CPython skips it
# at run time, but no compiler writes one, so it marks a broken rewriter.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 2 NOP (try:); 4 LOAD_FAST x; 6 LOAD_ATTR y; 16 RETURN_VALUE;
#    18 PUSH_EXC_INFO ...  Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1]
#    lasti, 44 to 44 -> 46 [1] lasti.

if __name__ == "mkcode":
    code = g.__code__
    table = bc.entries(code)
    assert str(table[0]) == "4 to 14 -> 18 [0]"

    # A copy of the first entry with length 0, in front of it.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.with_entries(code, [bc.Entry(4, 4, 18, 0)] + table)
    # CHECK:      {{.*}}.py:9:16: error: exception-table entry '4 to 4 (empty) -> 18 [0]' (table byte 0) has length 0 and covers no instruction [exception-table-zero-length]
    # CHECK-NEXT:   in g (line 7) at offset 4: LOAD_FAST 0
    # Not also unsorted or overlapping: it starts where the next one does.
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
