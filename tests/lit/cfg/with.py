# pyverify cfg on a with statement: the body's blocks have exception edges
# to the with-handler ([1] lasti: __exit__ stays on the stack); the handler
# and its exit path have edges to the cleanup handler ([3] lasti).
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

# CHECK-LABEL: CFG of f (13 blocks)
# BEFORE_WITH is not covered: an exception from __enter__ skips __exit__.
# CHECK-NEXT:    B0 [0, 6)
# CHECK-NEXT:      -> B1 fallthrough
# CHECK-NEXT:    B1 [6, 20)
# CHECK-NEXT:      -> B2 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B2 [20, 22)
# CHECK-NEXT:      -> B3 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B3 [22, 26)
# CHECK-NEXT:      -> B4 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B4 [26, 36)
# CHECK-NEXT:      -> B5 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B5 [36, 38)
# CHECK-NEXT:      -> B6 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti no-raise
# CHECK-NEXT:    B6 [38, 64)
# The with-handler.
# CHECK-NEXT:    B7 [64, 68)
# CHECK-NEXT:      -> B8 fallthrough
# CHECK-NEXT:      -> B10 exception [3] lasti
# CHECK-NEXT:    B8 [68, 70)
# CHECK-NEXT:      -> B11 taken
# CHECK-NEXT:      -> B9 not-taken
# CHECK-NEXT:      -> B10 exception [3] lasti
# CHECK-NEXT:    B9 [70, 72)
# CHECK-NEXT:      -> B10 exception [3] lasti
# The cleanup handler: COPY 3; POP_EXCEPT; RERAISE 1 leave the frame.
# CHECK-NEXT:    B10 [72, 78)
# CHECK-NEXT:    B11 [78, 80)
# CHECK-NEXT:      -> B12 fallthrough
# CHECK-NEXT:      -> B10 exception [3] lasti no-raise
# CHECK-NEXT:    B12 [80, 90)
