# stack-underflow: an instruction pops more values than the stack holds.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def sign(x):
    if x:
        return 1
    return 0

# sign: 0 RESUME; 2 LOAD_FAST x; 4 POP_JUMP_FORWARD_IF_FALSE 2 (to 10);
#       6 LOAD_CONST 1; 8 RETURN_VALUE; 10 LOAD_CONST 0; 12 RETURN_VALUE.

if __name__ == "mkcode":
    code = sign.__code__
    assert bc.offsets(code, "LOAD_CONST") == [6, 10]

    # The jump target's LOAD_CONST 0 becomes a NOP: RETURN_VALUE at 12 runs on
    # an empty stack.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.patch(code, 10, "NOP", 0)
    # CHECK:      {{.*}}.py:9:12: error: RETURN_VALUE needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
    # CHECK-NEXT:   in sign (line 6) at offset 12: RETURN_VALUE
    # The note names how the block is entered.
    # CHECK-NEXT: {{.*}}.py:7:5: note: the block is entered by the jump at 4 POP_JUMP_FORWARD_IF_FALSE 2 (offset 4)
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # LOAD_FAST x becomes a NOP: the conditional jump pops nothing, in the
    # entry block (no predecessor to name).
    # RUN: %mkcode marshal %s %t.entry --object ENTRY
    # RUN: %not --code 1 %pyverify check %t.entry | FileCheck %s --check-prefix=ENTRY
    ENTRY = bc.patch(code, 2, "NOP", 0)
    # ENTRY:      {{.*}}.py:7:5: error: POP_JUMP_FORWARD_IF_FALSE 2 needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
    # ENTRY-NEXT:   in sign (line 6) at offset 4: POP_JUMP_FORWARD_IF_FALSE 2
    # ENTRY-NOT:  note:
    # ENTRY:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
