# pyverify cfg on a with statement: the body is one block (a straight-line
# region, however many of its instructions may raise) with one exception
# edge to the with-handler ([1] lasti: __exit__ stays on the stack); the
# handler and its exit path have edges to the cleanup handler ([3] lasti).
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg %t.pyc | FileCheck %s

def f(cm):
    with cm as x:
        body(x)

# f: 0 RESUME; 2 LOAD_FAST cm; 4 BEFORE_WITH; 6 STORE_FAST x;
#    8 LOAD_GLOBAL body; 20 LOAD_FAST x; 22 PRECALL 1; 26 CALL 1; 36 POP_TOP;
#    38..62 __exit__(None, None, None), return;
#    64 PUSH_EXC_INFO; 66 WITH_EXCEPT_START; 68 POP_JUMP_FORWARD_IF_TRUE (to
#    78); 70 RERAISE 2; 72 COPY 3; 74 POP_EXCEPT; 76 RERAISE 1;
#    78 POP_TOP; 80 POP_EXCEPT; ... 88 RETURN_VALUE.
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.

# CHECK-LABEL: CFG of f (8 blocks)
# BEFORE_WITH is not covered: an exception from __enter__ skips __exit__.
# CHECK-NEXT:    B0 [0, 6)
# CHECK-NEXT:      -> B1 fallthrough
# The with body, 6 to 36, one block.
# CHECK-NEXT:    B1 [6, 38)
# CHECK-NEXT:      -> B2 fallthrough
# CHECK-NEXT:      -> B3 exception [1] lasti
# CHECK-NEXT:    B2 [38, 64)
# The with-handler, up to its conditional jump.
# CHECK-NEXT:    B3 [64, 70)
# CHECK-NEXT:      -> B6 taken
# CHECK-NEXT:      -> B4 not-taken
# CHECK-NEXT:      -> B5 exception [3] lasti
# CHECK-NEXT:    B4 [70, 72)
# CHECK-NEXT:      -> B5 exception [3] lasti
# The cleanup handler: COPY 3; POP_EXCEPT; RERAISE 1 leave the frame.
# CHECK-NEXT:    B5 [72, 78)
# CHECK-NEXT:    B6 [78, 80)
# CHECK-NEXT:      -> B7 fallthrough
# CHECK-NEXT:      -> B5 exception [3] lasti no-raise
# CHECK-NEXT:    B7 [80, 90)
