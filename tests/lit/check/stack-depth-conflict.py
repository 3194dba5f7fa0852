# stack-depth-conflict: two paths reach one instruction at different stack
# depths. CPython's frame layout needs one depth per instruction; the
# finding names both incoming edges in notes.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y

# pick: 0 RESUME; 2 LOAD_FAST x; 4 POP_JUMP_FORWARD_IF_FALSE 3 (to 12);
#       6 LOAD_CONST 1; 8 STORE_FAST y; 10 JUMP_FORWARD 2 (to 16);
#       12 LOAD_CONST 2; 14 STORE_FAST y; 16 LOAD_FAST y; 18 RETURN_VALUE.

if __name__ == "mkcode":
    code = pick.__code__
    assert bc.offsets(code, "STORE_FAST") == [8, 14]
    assert bc.instruction_at(code, 10).argval == 16

    # The then-branch's STORE_FAST becomes a NOP: its JUMP_FORWARD reaches
    # 16 with the constant still on the stack, the else-branch without.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.patch(code, 8, "NOP", 0)
    # CHECK:      {{.*}}.py:13:12: error: LOAD_FAST 1 is reached at stack depth 1 and at depth 0; CPython requires one depth per instruction [stack-depth-conflict]
    # CHECK-NEXT:   in pick (line 8) at offset 16: LOAD_FAST 1
    # CHECK-NEXT: {{.*}}.py:10:9: note: depth 1 by the jump at 10 JUMP_FORWARD 2 (offset 10)
    # CHECK-NEXT: {{.*}}.py:12:9: note: depth 0 by falling through from 14 STORE_FAST 1 (offset 14)
    # The analysis goes on with the first depth (1) as representative, and on
    # that path LOAD_FAST really overflows the frame:
    # CHECK-NEXT: {{.*}}.py:13:12: error: the stack reaches depth 2 at LOAD_FAST 1 but co_stacksize is 1; {{.*}} [stacksize-too-small]
    # CHECK-NEXT:   in pick (line 8) at offset 16: LOAD_FAST 1
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 3 error(s), 0 warning(s), 0 remark(s)

    # JUMP_FORWARD retargeted from 16 to 14 (argument 1): the then-branch
    # arrives at the else-branch's STORE_FAST with an empty stack, the
    # else-branch's LOAD_CONST falls into it with one value.
    # RUN: %mkcode marshal %s %t.retarget --object RETARGET
    # RUN: %not --code 1 %pyverify check %t.retarget | FileCheck %s --check-prefix=RETARGET
    RETARGET = bc.patch(code, 10, arg=1)
    # On the jump's path (depth 0, the representative) STORE_FAST underflows:
    # RETARGET:      {{.*}}.py:12:9: error: STORE_FAST 1 needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
    # RETARGET-NEXT:   in pick (line 8) at offset 14: STORE_FAST 1
    # RETARGET-NEXT: {{.*}}.py:10:9: note: the block is entered by the jump at 10 JUMP_FORWARD 1 (offset 10)
    # RETARGET-NEXT: {{.*}}.py:12:9: error: STORE_FAST 1 is reached at stack depth 0 and at depth 1; CPython requires one depth per instruction [stack-depth-conflict]
    # RETARGET-NEXT:   in pick (line 8) at offset 14: STORE_FAST 1
    # RETARGET-NEXT: {{.*}}.py:10:9: note: depth 0 by the jump at 10 JUMP_FORWARD 1 (offset 10)
    # RETARGET-NEXT: {{.*}}.py:12:13: note: depth 1 by falling through from 12 LOAD_CONST 2 (offset 12)
    # The conflict is reported once, not again where it propagates (16).
    # RETARGET-NOT:  error:
    # RETARGET:      pyverify: 1 file(s), 1 code object(s): 3 error(s), 0 warning(s), 0 remark(s)

def f(cm):
    with cm as x:
        body(x)

# f: ... 64 PUSH_EXC_INFO; 66 WITH_EXCEPT_START; 68 POP_JUMP_FORWARD_IF_TRUE
#    (to 78); 70 RERAISE 2; 72 COPY 3 (cleanup handler); ... 78 POP_TOP ...
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.

if __name__ == "mkcode":
    assert str(bc.entries(f.__code__)[2]) == "78 to 78 -> 72 [3] lasti"

    # Two entries share the cleanup handler at 72; the second one's depth
    # lowered to 2 enters it at 2 + 1 + 1 = 4 instead of 5.
    # RUN: %mkcode marshal %s %t.handler --object HANDLER
    # RUN: %not --code 1 %pyverify check %t.handler | FileCheck %s --check-prefix=HANDLER
    HANDLER = bc.set_entry(f.__code__, 2, depth=2)
    # HANDLER:      {{.*}}.py:{{[0-9]+}}: error: COPY 3 is reached at stack depth 5 and at depth 4; CPython requires one depth per instruction [stack-depth-conflict]
    # HANDLER-NEXT:   in f (line 57) at offset 72 (no line of its own): COPY 3
    # HANDLER-NEXT: {{.*}}.py:58:5: note: depth 5 by exception unwinding from 68 POP_JUMP_FORWARD_IF_TRUE 4 (entry 64 to 70 -> 72 [3] lasti) (offset 68)
    # HANDLER-NEXT: {{.*}}.py:58:5: note: depth 4 by exception unwinding from 78 POP_TOP (entry 78 to 78 -> 72 [2] lasti) (offset 78)
    # HANDLER-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
