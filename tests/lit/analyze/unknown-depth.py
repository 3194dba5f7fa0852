# Regression test for a bug found by this test and fixed since.
# Was: analyze --print=stack-depth labels an instruction "; unreachable"
# whenever its depth is unknown, including reachable code after a
# stack-depth conflict or an underflow (StackDepthResult::Before is
# nullopt there too). The listing then contradicts `pyverify cfg` and the
# unreachable-code check, both of which say the code is reachable.
# Expected: reachable instructions without a depth are not called
# unreachable (e.g. "; depth unknown").
# RUN: %mkcode marshal %s %t.conflict --object CONFLICT
# RUN: %pyverify analyze --print=stack-depth %t.conflict | FileCheck %s --check-prefix=CONFLICT
# RUN: %mkcode marshal %s %t.underflow --object UNDERFLOW
# RUN: %pyverify analyze --print=stack-depth %t.underflow | FileCheck %s --check-prefix=UNDERFLOW
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y

def h(x):
    y = x
    return y

if __name__ == "mkcode":
    # pick's then-branch STORE_FAST (byte 8) becomes a NOP: 16 LOAD_FAST y is
    # reached at depths 1 and 0.
    CONFLICT = bc.patch(pick.__code__, 8, "NOP", 0)
    # CONFLICT:      19 6 LOAD_CONST 1 (1) ; depth 0
    # CONFLICT:      16 LOAD_FAST 1 (y) ;
    # CONFLICT-NOT:  unreachable
    # CONFLICT:      18 RETURN_VALUE ;
    # CONFLICT-NOT:  unreachable

    # h's LOAD_FAST x becomes a NOP: STORE_FAST y underflows, and the rest of
    # the block has no depth.
    UNDERFLOW = bc.patch(h.__code__, 2, "NOP", 0)
    # UNDERFLOW:      4 STORE_FAST 1 (y) ; depth 0
    # UNDERFLOW-NOT:  unreachable
