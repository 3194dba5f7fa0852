# Regression test for a bug found by this test and fixed since.
# Was: stacksize-too-small points at the handler only when the deepest
# instruction is in the handler's *first* basic block (checkStack looks at
# that block's predecessors only). In a try/except the except clause's
# cleanup entry starts right after PUSH_EXC_INFO, so the handler body is
# always in later blocks, and the exact bug the note is written for -- a
# rewriter that sizes the frame without exception edges -- gets no note.
# Expected: the note is given whenever the deepest point is reachable only
# through an exception edge, naming that entry's handler.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def guarded(f, a):
    try:
        return f(a, a)
    except ValueError:
        return report(f, a, a, a)

# guarded: 4 PUSH_NULL ... 10 LOAD_FAST a (3 -> 4: the deepest point of the
#   try body); 28 PUSH_EXC_INFO (handler, entered at depth 1); ...
#   48 LOAD_GLOBAL (NULL + report) ... 66 LOAD_FAST a (6 -> 7).
# Table: 4 to 24 -> 28 [0], 28 to 82 -> 90 [1] lasti, 88 to 88 -> 90 [1]
# lasti.  co_stacksize 7.

if __name__ == "mkcode":
    code = guarded.__code__
    assert code.co_stacksize == 7
    assert str(bc.entries(code)[0]) == "4 to 24 -> 28 [0]"

    # co_stacksize 4: the depth without exception edges. Every entry fits
    # (the deepest enters at 1 + lasti + 1 = 3), so only the analysis can
    # see that the except body needs 7.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_stacksize(code, 4)
    # CHECK:      {{.*}}.py:18:{{[0-9]+}}: error: the stack reaches depth 7 at LOAD_FAST 1 but co_stacksize is 4; the frame is too small and the interpreter will write past it (co_stacksize must be at least 7) [stacksize-too-small]
    # CHECK-NEXT:   in guarded (line 14) at offset 66: LOAD_FAST 1
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: {{.*}}handler, reached only through the exception table at depth 1 (depth 0 + lasti 0 + 1); count handler edges when computing co_stacksize (offset 28)
