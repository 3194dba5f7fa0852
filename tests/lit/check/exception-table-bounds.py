# exception-table-bounds: an entry's start or end is not an instruction
# boundary (a cache unit, an opcode behind its EXTENDED_ARG prefix) or lies
# past the end of the code.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 0 RESUME; 2 NOP (try:); 4 LOAD_FAST x; 6 LOAD_ATTR y (cache units
#    8..15); 16 RETURN_VALUE; 18 PUSH_EXC_INFO; ... 50 RERAISE 1 (52 bytes).
# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.

if __name__ == "mkcode":
    code = g.__code__
    assert str(bc.entries(code)[0]) == "4 to 14 -> 18 [0]"
    assert len(code.co_code) == 52

    # Entry 0 starts at LOAD_ATTR's first cache unit.
    # RUN: %mkcode marshal %s %t.start --object START_IN_CACHE
    # RUN: %not --code 1 %pyverify check %t.start | FileCheck %s --check-prefix=START
    START_IN_CACHE = bc.set_entry(code, 0, start=8)
    # START:      {{.*}}.py:10:16: error: exception-table entry '8 to 14 -> 18 [0]' (table byte 0) starts at byte 8, inside the LOAD_ATTR at 6 (which starts at 6) [exception-table-bounds]
    # START-NEXT:   in g (line 8) at offset 6: LOAD_ATTR 0
    # START-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # Entry 0 ends after LOAD_ATTR's second cache unit.
    # RUN: %mkcode marshal %s %t.end --object END_IN_CACHE
    # RUN: %not --code 1 %pyverify check %t.end | FileCheck %s --check-prefix=END
    END_IN_CACHE = bc.set_entry(code, 0, end=10)
    # END:      {{.*}}.py:10:16: error: exception-table entry '4 to 8 -> 18 [0]' (table byte 0) ends at byte 10, inside the LOAD_ATTR at 6 (which spans 6..16) [exception-table-bounds]
    # END-NEXT:   in g (line 8) at offset 6: LOAD_ATTR 0
    # END-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # An extra entry for bytes 52..55, just past the 52 bytes of code (as if
    # the code had been trimmed and the table not).
    # RUN: %mkcode marshal %s %t.past --object PAST_END
    # RUN: %not --code 1 %pyverify check %t.past | FileCheck %s --check-prefix=PAST
    PAST_END = bc.with_entries(code, bc.entries(code) + [bc.Entry(52, 56, 18, 0)])
    # Anchored at the last instruction, the entry's start being outside.
    # PAST:      {{.*}}.py:{{[0-9]+}}: error: exception-table entry '52 to 54 -> 18 [0]' (table byte 12) extends past the end of the code (52 bytes) [exception-table-bounds]
    # PAST-NEXT:   in g (line 8) at offset 50 (no line of its own): RERAISE 1
    # PAST-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # The `try:` NOP becomes an EXTENDED_ARG prefix of LOAD_FAST x, which now
    # starts at byte 2; entry 0 still starts at its opcode unit, byte 4.
    # RUN: %mkcode marshal %s %t.prefix --object SKIPS_PREFIX
    # RUN: %not --code 1 %pyverify check %t.prefix | FileCheck %s --check-prefix=PREFIX
    SKIPS_PREFIX = bc.patch(code, 2, "EXTENDED_ARG", 0)
    # PREFIX:      {{.*}}.py:10:16: error: exception-table entry '4 to 14 -> 18 [0]' (table byte 0) starts at byte 4, inside the LOAD_FAST at 4 (which starts at 2) [exception-table-bounds]
    # PREFIX-NEXT:   in g (line 8) at offset 4: LOAD_FAST 0
    # PREFIX-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
