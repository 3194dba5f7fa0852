# jump-target-invalid: a jump whose target is not an instruction start:
# outside the code, in inline caches, or behind an EXTENDED_ARG prefix.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def h(x):
    if x:
        return x.attr
    return None

# h: 0 RESUME; 2 LOAD_FAST x; 4 POP_JUMP_FORWARD_IF_FALSE 7 (to 20);
#    6 LOAD_FAST x; 8 LOAD_ATTR attr (cache units 10..17); 18 RETURN_VALUE;
#    20 LOAD_CONST None; 22 RETURN_VALUE.
# A forward jump at byte J with argument A lands at J + 2 + 2*A.

if __name__ == "mkcode":
    code = h.__code__
    jump = bc.offset_of(code, "POP_JUMP_FORWARD_IF_FALSE")
    assert jump == 4 and bc.instruction_at(code, jump).argval == 20

    # Argument 3 instead of 7: byte 12, LOAD_ATTR's second cache unit.
    # RUN: %mkcode marshal %s %t.caches --object INTO_CACHES
    # RUN: %not --code 1 %pyverify check %t.caches | FileCheck %s --check-prefix=CACHES
    INTO_CACHES = bc.patch(code, jump, arg=3)
    # CACHES:      {{.*}}.py:8:5: error: POP_JUMP_FORWARD_IF_FALSE 3 jumps to byte 12, which is inside the LOAD_ATTR at 8, not on an instruction start [jump-target-invalid]
    # CACHES-NEXT:   in h (line 7) at offset 4: POP_JUMP_FORWARD_IF_FALSE 3
    # CACHES-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # Argument 100: byte 206, past the 24 bytes of code.
    # RUN: %mkcode marshal %s %t.outside --object OUTSIDE
    # RUN: %not --code 1 %pyverify check %t.outside | FileCheck %s --check-prefix=OUTSIDE
    OUTSIDE = bc.patch(code, jump, arg=100)
    # OUTSIDE:      {{.*}}.py:8:5: error: POP_JUMP_FORWARD_IF_FALSE 100 jumps to byte 206, outside the code (0..24) [jump-target-invalid]
    # OUTSIDE-NEXT:   in h (line 7) at offset 4: POP_JUMP_FORWARD_IF_FALSE 100
    # OUTSIDE-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # The backward form of the same jump, argument 3: unit 3 - 3 = byte 0
    # is RESUME, a valid target (no finding); argument 4 goes before byte 0.
    # RUN: %mkcode marshal %s %t.before --object BEFORE_START
    # RUN: %not --code 1 %pyverify check %t.before | FileCheck %s --check-prefix=BEFORE
    BEFORE_START = bc.patch(code, jump, "POP_JUMP_BACKWARD_IF_FALSE", 4)
    # BEFORE:      {{.*}}.py:8:5: error: POP_JUMP_BACKWARD_IF_FALSE 4 jumps to byte -2, outside the code (0..24) [jump-target-invalid]
    # BEFORE-NEXT:   in h (line 7) at offset 4: POP_JUMP_BACKWARD_IF_FALSE 4

    # The unit before the jump target (the then-branch's RETURN_VALUE at 18)
    # becomes an EXTENDED_ARG prefix of LOAD_CONST None, as if a rewriter
    # had grown its argument past 255 without moving the jump back to 18:
    # the jump would skip the prefix.
    # RUN: %mkcode marshal %s %t.prefix --object SKIPS_PREFIX
    # RUN: %not --code 1 %pyverify check %t.prefix | FileCheck %s --check-prefix=PREFIX
    SKIPS_PREFIX = bc.patch(code, 18, "EXTENDED_ARG", 0)
    # PREFIX:      {{.*}}.py:8:5: error: POP_JUMP_FORWARD_IF_FALSE 7 jumps to byte 20, which is inside the LOAD_CONST at 20, not on an instruction start [jump-target-invalid]
    # PREFIX-NEXT:   in h (line 7) at offset 4: POP_JUMP_FORWARD_IF_FALSE 7
    # PREFIX-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
