# handler-depth-exceeds-stack: an entry's depth is above the live stack at
# an instruction it covers. Unwinding "pops down to" that depth, but the
# stack is already lower: the handler would see slots that were popped.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 4 LOAD_FAST x (depth 0 -> 1); 6 LOAD_ATTR y (1 -> 1);
#    16 RETURN_VALUE (1 -> 0); 18 PUSH_EXC_INFO ...
# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.  co_stacksize 4.

if __name__ == "mkcode":
    code = g.__code__
    assert str(bc.entries(code)[0]) == "4 to 14 -> 18 [0]"
    assert code.co_stacksize == 4

    # The try body's entry claims depth 1. It covers LOAD_FAST x, which runs
    # at depth 0 (and raises UnboundLocalError if x is unbound), and
    # LOAD_ATTR, which runs at 1. (RETURN_VALUE at 16 is past its end.)
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_entry(code, 0, depth=1)
    # CHECK:      {{.*}}.py:10:16: error: LOAD_FAST 0 is covered by entry 4 to 14 -> 18 [1], whose depth 1 is above the live stack depth 0 here; unwinding would keep slots this instruction already popped (the same cause at 1 more place, in the notes) [handler-depth-exceeds-stack]
    # CHECK-NEXT:   in g (line 8) at offset 4: LOAD_FAST 0
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: handler (offset 18)
    # LOAD_ATTR (depth 1 before and after) counts as having popped its owner
    # when it raises: 3.12+ pop it (and unwinding then reads under the
    # stack), while 3.11 keeps it -- conservative there, measured in
    # handler-depth-at-raise.py.
    # CHECK-NEXT: {{.*}}.py:10:16: note: also covered: LOAD_ATTR 0, at live stack depth 0 (offset 6)
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)
