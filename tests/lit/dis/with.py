# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify dis %t.pyc | FileCheck %s

def f(cm):
    with cm as x:
        body(x)

# CHECK-LABEL: Disassembly of <code object f, file "{{.*}}with.py", line 4>:
# CHECK:          4        0 RESUME                   0
# CHECK:          5        2 LOAD_FAST                0 (cm)
# CHECK-NEXT:              4 BEFORE_WITH
# CHECK-NEXT:              6 STORE_FAST               1 (x)
# CHECK:          6        8 LOAD_GLOBAL              1 (NULL + body)
# CHECK:                  48 CALL                     2
# CHECK:            >>    64 PUSH_EXC_INFO
# CHECK-NEXT:             66 WITH_EXCEPT_START
# CHECK-NEXT:             68 POP_JUMP_FORWARD_IF_TRUE     4 (to 78)
# CHECK-NEXT:             70 RERAISE                  2
# CHECK:      ExceptionTable:
# CHECK-NEXT:   6 to 36 -> 64 [1] lasti
# CHECK-NEXT:   64 to 70 -> 72 [3] lasti
# CHECK-NEXT:   78 to 78 -> 72 [3] lasti
