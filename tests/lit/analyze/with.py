# analyze --print=stack-depth: the dis listing with the operand-stack depth
# before each instruction and a "; max depth N (co_stacksize M)" header.
# A with-statement's handlers are entered at depth + lasti + 1 of their
# exception-table entry, whatever depth the raising instruction had.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify analyze --print=stack-depth %t.pyc | FileCheck %s

def f(cm):
    with cm as x:
        body(x)

# CHECK-LABEL: Disassembly of <code object f, file "{{.*}}with.py", line 8>:
# CHECK-NEXT:  ; max depth 6 (co_stacksize 6)
# CHECK-NEXT:  8 0 RESUME 0 ; depth 0
# CHECK-EMPTY:
# CHECK-NEXT:  9 2 LOAD_FAST 0 (cm) ; depth 0
# BEFORE_WITH replaces the manager by __exit__ and the value of __enter__.
# CHECK-NEXT:    4 BEFORE_WITH ; depth 1
# CHECK-NEXT:    6 STORE_FAST 1 (x) ; depth 2
# CHECK-EMPTY:
# The body runs above the bound __exit__ (depth 1, the entry's [1]).
# CHECK-NEXT: 10 8 LOAD_GLOBAL 1 (NULL + body) ; depth 1
# CHECK-NEXT:   20 LOAD_FAST 1 (x) ; depth 3
# CHECK-NEXT:   22 PRECALL 1 ; depth 4
# CHECK-NEXT:   26 CALL 1 ; depth 4
# CHECK-NEXT:   36 POP_TOP ; depth 2
# Normal exit: __exit__(None, None, None).
# CHECK:        44 PRECALL 2 ; depth 4
# CHECK:        62 RETURN_VALUE ; depth 1
# Handler of "6 to 36 -> 64 [1] lasti": entered at 1 + 1 + 1 = 3
# ([__exit__, lasti, exc]).
# CHECK-NEXT: >> 64 PUSH_EXC_INFO ; depth 3
# CHECK-NEXT:    66 WITH_EXCEPT_START ; depth 4
# CHECK-NEXT:    68 POP_JUMP_FORWARD_IF_TRUE 4 (to 78) ; depth 5
# CHECK-NEXT:    70 RERAISE 2 ; depth 4
# Cleanup handler of "64 to 70 -> 72 [3] lasti": 3 + 1 + 1 = 5; its COPY 3
# reaches the maximum, 6.
# CHECK-NEXT: >> 72 COPY 3 ; depth 5
# CHECK-NEXT:    74 POP_EXCEPT ; depth 6
# CHECK-NEXT:    76 RERAISE 1 ; depth 5
# The jump from 68 arrives with WITH_EXCEPT_START's result popped.
# CHECK-NEXT: >> 78 POP_TOP ; depth 4
# CHECK-NEXT:    80 POP_EXCEPT ; depth 3
# CHECK-NEXT:    82 POP_TOP ; depth 2
# CHECK-NEXT:    84 POP_TOP ; depth 1
# CHECK-NEXT:    86 LOAD_CONST 0 (None) ; depth 0
# CHECK-NEXT:    88 RETURN_VALUE ; depth 1
# CHECK-NEXT: ExceptionTable:
# CHECK-NEXT:   6 to 36 -> 64 [1] lasti
# CHECK-NEXT:   64 to 70 -> 72 [3] lasti
# CHECK-NEXT:   78 to 78 -> 72 [3] lasti
