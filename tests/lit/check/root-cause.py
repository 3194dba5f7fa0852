# One root cause is reported once, the other places it shows as notes.
# Before: one wrong entry depth gave one handler-depth-exceeds-stack error per
# instruction the entry covers (10 errors for `g` below), and a context lost
# by an exception gave one context-not-exited error per instruction of the
# call sequence that can raise. stacksize-too-small says the value needed.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        a = x.y
        b = a + 1
        return foo(a, b, x)
    except AttributeError:
        return None

def leak(cm, x):
    cm.__enter__()
    use(x, x)
    cm.__exit__(None, None, None)

if __name__ == "mkcode":
    # The try body's entry given depth 3 instead of 0.
    CODE = bc.set_entry(g.__code__, 0, depth=3)
    LEAK = leak.__code__

# RUN: %mkcode marshal %s %t.depth
# RUN: %not --code 1 %pyverify check %t.depth | FileCheck %s --check-prefix=DEPTH
# DEPTH:      error: LOAD_FAST 0 is covered by entry 4 to {{[0-9]+}} -> [[H:[0-9]+]] [3], whose depth 3 is above the live stack depth 0 here; unwinding would keep slots this instruction already popped (the same cause at 9 more places, in the notes) [handler-depth-exceeds-stack]
# DEPTH-NEXT:   in g (line 10) at offset 4: LOAD_FAST 0
# DEPTH-NEXT: note: handler (offset [[H]])
# A raising instruction's live depth counts its inputs as popped
# (handler-depth-at-raise.py): LOAD_ATTR's 1 - 1.
# DEPTH-NEXT: :12:13: note: also covered: LOAD_ATTR 0, at live stack depth 0 (offset 6)
# DEPTH-COUNT-8: note: also covered:
# DEPTH-NEXT: error: the stack reaches depth 6 at LOAD_GLOBAL 4 but co_stacksize is 5; {{.*}} (co_stacksize must be at least 6) [stacksize-too-small]
# DEPTH:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

# The JSON output has the same two diagnostics, the places as notes.
# RUN: %not --code 1 %pyverify check --format=json %t.depth | %python -c "import json,sys; d=json.load(sys.stdin)['diagnostics']; print([(x['check'], len(x['notes'])) for x in d])" | FileCheck %s --check-prefix=JSON
# JSON: [('handler-depth-exceeds-stack', 10), ('stacksize-too-small', 1)]

# RUN: %mkcode marshal %s %t.leak --object LEAK
# RUN: %not --code 1 %pyverify check %t.leak | FileCheck %s --check-prefix=LEAK
# LEAK:      error: an exception raised by {{[0-9]+}} LOAD_GLOBAL 3 propagates out of the code object while the context entered at {{[0-9]+}} (__enter__ call) is still active (the same cause at 4 more places, in the notes) [context-not-exited]
# LEAK:      note: also: an exception raised by {{[0-9]+}} LOAD_FAST 1 propagates out
# LEAK:      note: also: an exception raised by {{[0-9]+}} CALL 2 propagates out
# LEAK:      pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)
