# exception-table-target-not-instruction: a handler target that is not the
# start of an instruction, or that lies inside the entry's own range.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 2 NOP (try:); 4 LOAD_FAST x; 6 LOAD_ATTR y; 16 RETURN_VALUE;
#    18 PUSH_EXC_INFO; 20 LOAD_GLOBAL AttributeError (cache units 22..31);
#    32 CHECK_EXC_MATCH; ... 50 RERAISE 1 (52 bytes).
# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.

if __name__ == "mkcode":
    code = g.__code__
    assert str(bc.entries(code)[0]) == "4 to 14 -> 18 [0]"
    assert bc.offset_of(code, "LOAD_GLOBAL") == 20

    # Entry 0's handler moved into LOAD_GLOBAL's inline caches.
    # RUN: %mkcode marshal %s %t.caches --object INTO_CACHES
    # RUN: %not --code 1 %pyverify check %t.caches | FileCheck %s --check-prefix=CACHES
    INTO_CACHES = bc.set_entry(code, 0, target=24)
    # CACHES:      {{.*}}.py:9:16: error: exception-table entry '4 to 14 -> 24 [0]' (table byte 0) has handler target 24 inside the inline caches of the LOAD_GLOBAL at 20 [exception-table-target-not-instruction]
    # CACHES-NEXT:   in g (line 7) at offset 4: LOAD_FAST 0
    # CACHES-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # PUSH_EXC_INFO becomes an EXTENDED_ARG prefix of LOAD_GLOBAL, and the
    # handler target skips the prefix: the opcode would run with only the
    # low byte of its argument.
    # RUN: %mkcode marshal %s %t.mid --object MID_INSTRUCTION
    # RUN: %not --code 1 %pyverify check %t.mid | FileCheck %s --check-prefix=MID
    MID_INSTRUCTION = bc.set_entry(bc.patch(code, 18, "EXTENDED_ARG", 0), 0,
                                   target=20)
    # MID:      {{.*}}.py:9:16: error: exception-table entry '4 to 14 -> 20 [0]' (table byte 0) has handler target 20 mid-instruction: the LOAD_GLOBAL at 20 starts at 18 [exception-table-target-not-instruction]
    # MID-NEXT:   in g (line 7) at offset 4: LOAD_FAST 0
    # MID-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # A handler past the end of the code.
    # RUN: %mkcode marshal %s %t.outside --object OUTSIDE
    # RUN: %not --code 1 %pyverify check %t.outside | FileCheck %s --check-prefix=OUTSIDE
    OUTSIDE = bc.set_entry(code, 0, target=100)
    # OUTSIDE:      {{.*}}.py:9:16: error: exception-table entry '4 to 14 -> 100 [0]' (table byte 0) has handler target 100 outside the code (52 bytes) [exception-table-target-not-instruction]
    # OUTSIDE-NEXT:   in g (line 7) at offset 4: LOAD_FAST 0

    # Entry 1 (the except clause) pointed at its own LOAD_GLOBAL: a valid
    # instruction, but one the entry itself covers.
    # RUN: %mkcode marshal %s %t.own --object OWN_RANGE
    # RUN: %not --code 1 %pyverify check %t.own | FileCheck %s --check-prefix=OWN
    OWN_RANGE = bc.set_entry(code, 1, target=20)
    # OWN:      {{.*}}.py:{{[0-9]+}}: error: exception-table entry '18 to 36 -> 20 [1] lasti' (table byte 4) has its handler inside its own range: an exception in the handler would re-enter it [exception-table-target-not-instruction]
    # OWN-NEXT:   in g (line 7) at offset 18 (no line of its own): PUSH_EXC_INFO
    # OWN-NEXT: {{.*}}.py:10:12: note: handler (offset 20)
