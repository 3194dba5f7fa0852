# Findings in a nested code object name it by co_qualname, and its own
# co_firstlineno; the parent and siblings are checked too, in co_consts
# order.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def outer():
    def first(x):
        return x + 1
    def second(x):
        return x + 1
    return first, second

if __name__ == "mkcode":
    code = outer.__code__
    first = bc.child(code, "first")
    second = bc.child(code, "second")
    # Both children shrunk to co_stacksize 1 (they need 2), then put back.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    consts = tuple(bc.set_stacksize(c, 1) if c in (first, second) else c
                   for c in code.co_consts)
    CODE = code.replace(co_consts=consts)
    # CHECK:      {{.*}}.py:10:20: error: the stack reaches depth 2 at LOAD_CONST 1 but co_stacksize is 1; {{.*}} [stacksize-too-small]
    # CHECK-NEXT:   in outer.<locals>.first (line 9) at offset 4: LOAD_CONST 1
    # CHECK-NEXT: {{.*}}.py:12:20: error: the stack reaches depth 2 at LOAD_CONST 1 but co_stacksize is 1; {{.*}} [stacksize-too-small]
    # CHECK-NEXT:   in outer.<locals>.second (line 11) at offset 4: LOAD_CONST 1
    # CHECK-NEXT: pyverify: 1 file(s), 3 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
