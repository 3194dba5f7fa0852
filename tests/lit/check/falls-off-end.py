# falls-off-end: the last instruction is reachable and not a terminator, so
# execution would run past the end of co_code.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

# k: 0 RESUME; 2 LOAD_FAST x; 4 LOAD_CONST 1; 6 BINARY_OP +; 10 RETURN_VALUE.

if __name__ == "mkcode":
    code = k.__code__
    ret = bc.offset_of(code, "RETURN_VALUE")
    assert ret == 10

    # RETURN_VALUE replaced by POP_TOP: same stack effect, no terminator.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.patch(code, ret, "POP_TOP")
    # CHECK:      {{.*}}.py:8:5: error: POP_TOP is the last instruction and can fall through past the end of the code [falls-off-end]
    # CHECK-NEXT:   in k (line 7) at offset 10: POP_TOP
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # Unreachable trailing code is fine: a NOP after the RETURN_VALUE.
    # RUN: %mkcode marshal %s %t.dead --object DEAD_TAIL
    # RUN: %pyverify check %t.dead | FileCheck %s --check-prefix=DEAD
    DEAD_TAIL = bc.insert_bytes(code, len(code.co_code), bc.unit("NOP"))
    # DEAD-NOT:  falls-off-end
    # DEAD:      pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
