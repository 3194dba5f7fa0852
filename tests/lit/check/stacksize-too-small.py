# stacksize-too-small: the deepest reachable point needs more stack than
# co_stacksize provides, so the interpreter would write past the frame.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm):
    with cm as x:
        body(x)

# f: ... 64 PUSH_EXC_INFO (depth 3); 66 WITH_EXCEPT_START; ...
#    72 COPY 3 (depth 5 -> 6); 74 POP_EXCEPT; 76 RERAISE 1; ...
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.  co_stacksize 6.

def call(a, b):
    return a(b, b)

if __name__ == "mkcode":
    code = f.__code__
    assert code.co_stacksize == 6 and bc.offset_of(code, "COPY") == 72

    # co_stacksize 5, as if sized from the handler's entry depth (3 + lasti +
    # exception = 5) without its COPY 3: every entry still fits, so the
    # table is valid and the analysis finds the overflow at the cleanup
    # handler, which only the exception table reaches.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_stacksize(code, 5)
    # The cleanup code has no line number, so neither has the diagnostic.
    # CHECK:      {{.*}}.py:{{[0-9]+}}: error: the stack reaches depth 6 at COPY 3 but co_stacksize is 5; the frame is too small and the interpreter will write past it (co_stacksize must be at least 6) [stacksize-too-small]
    # CHECK-NEXT:   in f (line 7) at offset 72 (no line of its own): COPY 3
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: this code is a handler, reached only through the exception table at depth 5 (depth 3 + lasti 1 + 1); count handler edges when computing co_stacksize (offset 72)
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # Outside any handler there is no such note: call() shrunk by one.
    # call: 2 PUSH_NULL; 4 LOAD_FAST a; 6 LOAD_FAST b; 8 LOAD_FAST b (3 -> 4).
    # RUN: %mkcode marshal %s %t.plain --object PLAIN
    # RUN: %not --code 1 %pyverify check %t.plain | FileCheck %s --check-prefix=PLAIN
    assert call.__code__.co_stacksize == 4
    PLAIN = bc.set_stacksize(call.__code__, 3)
    # PLAIN:      {{.*}}.py:17:17: error: the stack reaches depth 4 at LOAD_FAST 1 but co_stacksize is 3; the frame is too small and the interpreter will write past it (co_stacksize must be at least 4) [stacksize-too-small]
    # PLAIN-NEXT:   in call (line 16) at offset 8: LOAD_FAST 1
    # PLAIN-NOT:  note:
    # PLAIN:      pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)
