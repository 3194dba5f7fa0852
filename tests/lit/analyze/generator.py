# Generator code starts at depth 0: RETURN_GENERATOR pushes the value the first send()
# pushes on the resumed frame (dis says 0: 3.11's compiler counts it at the start), the
# POP_TOP after it pops it (bytecode notes 4.4; check/generator-frame*.py: code before it).
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify analyze --print=stack-depth %t.pyc | FileCheck %s

def gen(n):
    for i in range(n):
        yield i

# CHECK-LABEL: Disassembly of <code object gen, file "{{.*}}generator.py", line 7>:
# CHECK-NEXT:  ; max depth 3 (co_stacksize 3)
# CHECK-NEXT:  7 0 RETURN_GENERATOR ; depth 0
# CHECK-NEXT:    2 POP_TOP ; depth 1
# CHECK-NEXT:    4 RESUME 0 ; depth 0
# CHECK-EMPTY:
# CHECK-NEXT:  8 6 LOAD_GLOBAL 1 (NULL + range) ; depth 0
# CHECK-NEXT:   18 LOAD_FAST 0 (n) ; depth 2
# CHECK-NEXT:   20 PRECALL 1 ; depth 3
# CHECK-NEXT:   24 CALL 1 ; depth 3
# CHECK-NEXT:   34 GET_ITER ; depth 1
# The loop head is reached from GET_ITER and from JUMP_BACKWARD at depth 1.
# CHECK-NEXT: >> 36 FOR_ITER 6 (to 50) ; depth 1
# CHECK-NEXT:   38 STORE_FAST 1 (i) ; depth 2
# CHECK-EMPTY:
# CHECK-NEXT:  9 40 LOAD_FAST 1 (i) ; depth 1
# CHECK-NEXT:   42 YIELD_VALUE ; depth 2
# CHECK-NEXT:   44 RESUME 1 ; depth 2
# CHECK-NEXT:   46 POP_TOP ; depth 2
# CHECK-NEXT:   48 JUMP_BACKWARD 7 (to 36) ; depth 1
# CHECK-EMPTY:
# FOR_ITER's exit edge pops the exhausted iterator.
# CHECK-NEXT:  8 >> 50 LOAD_CONST 0 (None) ; depth 0
# CHECK-NEXT:   52 RETURN_VALUE ; depth 1

# A coroutine too.
async def coro(x):
    return await x

# CHECK-LABEL: Disassembly of <code object coro, file "{{.*}}generator.py", line 37>:
# CHECK-NEXT:  ; max depth [[MAX:[0-9]+]] (co_stacksize [[MAX]])
# CHECK-NEXT:  37 0 RETURN_GENERATOR ; depth 0
# CHECK-NEXT:     2 POP_TOP ; depth 1
# CHECK-NEXT:     4 RESUME 0 ; depth 0
