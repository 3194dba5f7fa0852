# exception-table-overlap: two entries cover the same instruction; which
# handler runs depends on CPython's search order (linear or binary).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 4 LOAD_FAST x; 6 LOAD_ATTR y; 16 RETURN_VALUE; 18 PUSH_EXC_INFO;
#    20 LOAD_GLOBAL AttributeError; ...
# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.

if __name__ == "mkcode":
    code = g.__code__
    assert str(bc.entries(code)[0]) == "4 to 14 -> 18 [0]"

    # The handler body's entry now starts at the try body's LOAD_ATTR, so
    # LOAD_ATTR and RETURN_VALUE are covered twice.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_entry(code, 1, start=6)
    # CHECK:      {{.*}}.py:9:16: error: exception-table entry '6 to 36 -> 46 [1] lasti' (table byte 4) overlaps entry '4 to 14 -> 18 [0]' (table byte 0); which handler runs depends on CPython's search order [exception-table-overlap]
    # CHECK-NEXT:   in g (line 7) at offset 6: LOAD_ATTR 0
    # CHECK-NEXT: {{.*}}.py:9:16: note: the other entry starts here (offset 4)
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # Entry 0 extended over the handler's first instructions: also an
    # overlap, and its handler (18) is now inside its own range.
    # RUN: %mkcode marshal %s %t.over --object OVER_HANDLER
    # RUN: %not --code 1 %pyverify check %t.over | FileCheck %s --check-prefix=OVER
    OVER_HANDLER = bc.set_entry(code, 0, end=32)
    # The own-range finding comes first (same offset, lower check id).
    # OVER:      {{.*}}.py:9:16: error: exception-table entry '4 to 30 -> 18 [0]' (table byte 0) has its handler inside its own range: an exception in the handler would re-enter it [exception-table-target-not-instruction]
    # OVER-NEXT:   in g (line 7) at offset 4: LOAD_FAST 0
    # OVER-NEXT: {{.*}}.py:{{[0-9]+}}: note: handler (offset 18)
    # OVER-NEXT: {{.*}}.py:{{[0-9]+}}: error: exception-table entry '18 to 36 -> 46 [1] lasti' (table byte 4) overlaps entry '4 to 30 -> 18 [0]' (table byte 0); which handler runs depends on CPython's search order [exception-table-overlap]
    # OVER-NEXT:   in g (line 7) at offset 18 (no line of its own): PUSH_EXC_INFO
    # OVER-NEXT: {{.*}}.py:9:16: note: the other entry starts here (offset 4)
    # OVER-NEXT: pyverify: 1 file(s), 1 code object(s): 3 error(s), 0 warning(s), 0 remark(s)
