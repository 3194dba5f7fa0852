# exception-table-unsorted: entries out of start order. CPython's lookup
# stops at the first entry starting past the raising instruction, so the
# handler of a later-listed, earlier-starting entry is never found.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.

if __name__ == "mkcode":
    code = g.__code__
    t = bc.entries(code)
    assert [str(e) for e in t] == ["4 to 14 -> 18 [0]",
                                   "18 to 36 -> 46 [1] lasti",
                                   "44 to 44 -> 46 [1] lasti"]

    # The first two entries swapped (bytes 0..3 and 4..7 of the table).
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.with_entries(code, [t[1], t[0], t[2]])
    # CHECK:      {{.*}}.py:10:16: error: exception-table entry '4 to 14 -> 18 [0]' (table byte 4) starts before the previous entry '18 to 36 -> 46 [1] lasti' (table byte 0); CPython's lookup stops at the first entry that starts past the instruction and misses handlers [exception-table-unsorted]
    # CHECK-NEXT:   in g (line 8) at offset 4: LOAD_FAST 0
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: previous entry starts here (offset 18)
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
