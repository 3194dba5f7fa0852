# location-table-decode: a co_linetable (PEP 626/657 location table) that
# does not parse or does not cover exactly the code units.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

# k: 0 RESUME; 2 LOAD_FAST x; 4 LOAD_CONST 1; 6 BINARY_OP + (cache 8);
#    10 RETURN_VALUE: 6 code units.

if __name__ == "mkcode":
    code = k.__code__
    table = code.co_linetable
    assert len(code.co_code) == 12

    # The last entry loses its final byte.
    # RUN: %mkcode marshal %s %t.trunc --object TRUNCATED
    # RUN: %not --code 1 %pyverify check %t.trunc | FileCheck %s --check-prefix=TRUNC
    TRUNCATED = code.replace(co_linetable=table[:-1])
    # Without a location table the diagnostic has no line.
    # TRUNC:      {{.*}}.py:{{[0-9]+}}: error: co_linetable at byte {{[0-9]+}}: truncated location table: expected {{.*}} [location-table-decode]
    # TRUNC-NEXT:   in k (line 7) at offset 0 (no line of its own): RESUME 0
    # TRUNC-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # The first byte without bit 7, which marks the start of an entry.
    # RUN: %mkcode marshal %s %t.nostart --object NO_START
    # RUN: %not --code 1 %pyverify check %t.nostart | FileCheck %s --check-prefix=NOSTART
    NO_START = code.replace(co_linetable=bytes([table[0] & 0x7F]) + table[1:])
    # NOSTART: error: co_linetable at byte 0: location-table entry must start with a byte that has bit 7 set, found {{[0-7][0-9a-f]}} [location-table-decode]

    # One more entry ("no location", one unit): 7 units for 6.
    # RUN: %mkcode marshal %s %t.long --object TOO_LONG
    # RUN: %not --code 1 %pyverify check %t.long | FileCheck %s --check-prefix=LONG
    TOO_LONG = code.replace(co_linetable=table + b"\xf8")
    # LONG: error: co_linetable at byte {{[0-9]+}}: location table covers more than the 6 code units [location-table-decode]

    # A table for the first 5 units only.
    # RUN: %mkcode marshal %s %t.short --object TOO_SHORT
    # RUN: %not --code 1 %pyverify check %t.short | FileCheck %s --check-prefix=SHORT
    TOO_SHORT = bc.fit_locations(code, 5)
    # SHORT: error: co_linetable at byte {{[0-9]+}}: location table covers 5 code units, the code has 6 [location-table-decode]
