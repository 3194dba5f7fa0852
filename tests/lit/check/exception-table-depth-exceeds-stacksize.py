# exception-table-depth-exceeds-stacksize: an entry enters its handler at
# depth + lasti + 1, above co_stacksize. This is what a rewriter that sizes
# the frame without exception edges produces for a `with` statement: the
# cleanup handler is entered deeper than any normal path goes.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm):
    with cm as x:
        body(x)

# f: ... 8 LOAD_GLOBAL (NULL + body); 20 LOAD_FAST x (depth 3 -> 4); ...
#    64 PUSH_EXC_INFO; 66 WITH_EXCEPT_START; ... 72 COPY 3 (cleanup);
#    78 POP_TOP ...  co_stacksize 6.
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.

if __name__ == "mkcode":
    code = f.__code__
    assert code.co_stacksize == 6
    assert [str(e) for e in bc.entries(code)] == [
        "6 to 36 -> 64 [1] lasti", "64 to 70 -> 72 [3] lasti",
        "78 to 78 -> 72 [3] lasti"]

    # co_stacksize 4: the deepest point of the body (body, x and NULL on top
    # of __exit__), ignoring the handlers.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_stacksize(code, 4)
    # The entry at 6 enters at 3 and is fine; the cleanup entries enter at 5.
    # CHECK-NOT:  '6 to 36 -> 64
    # CHECK:      {{.*}}.py:10:5: error: exception-table entry '64 to 70 -> 72 [3] lasti' (table byte 4) enters its handler at depth 5 (depth 3 + lasti 1 + exception 1), above co_stacksize 4 (the same cause at 1 more place, in the notes) [exception-table-depth-exceeds-stacksize]
    # CHECK-NEXT:   in f (line 9) at offset 64: PUSH_EXC_INFO
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: the handler; co_stacksize must count the depth handlers are entered at (compute it with exception edges) (offset 72)
    # One co_stacksize too small is one root cause: the other entry it is
    # too small for is a note, not a second error.
    # CHECK-NEXT: {{.*}}.py:10:5: note: also: entry '78 to 78 -> 72 [3] lasti' (table byte 8) enters its handler at depth 5 (offset 78)
    # The depth check no longer makes the code ill-formed (dead entries may
    # legitimately exceed co_stacksize), so the stack pass runs too, and says
    # the value needed:
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: error: the stack reaches depth 6 at COPY 3 but co_stacksize is 4; {{.*}} (co_stacksize must be at least 6) [stacksize-too-small]
    # CHECK-NEXT:   in f (line 9) at offset 72 (no line of its own): COPY 3
    # CHECK-NEXT: {{.*}}.py:{{[0-9]+}}: note: this code is a handler, reached only through the exception table at depth 5 {{.*}}
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # The body entry's depth raised from 1 to 5: its handler would be entered
    # at 5 + 1 + 1 = 7 > 6.
    # RUN: %mkcode marshal %s %t.raised --object RAISED
    # RUN: %not --code 1 %pyverify check %t.raised | FileCheck %s --check-prefix=RAISED
    RAISED = bc.set_entry(code, 0, depth=5)
    # RAISED:      {{.*}}.py:10:16: error: exception-table entry '6 to 36 -> 64 [5] lasti' (table byte 0) enters its handler at depth 7 (depth 5 + lasti 1 + exception 1), above co_stacksize 6 [exception-table-depth-exceeds-stacksize]
    # RAISED-NEXT:   in f (line 9) at offset 6: STORE_FAST 1
    # RAISED-NEXT: {{.*}}.py:10:5: note: the handler; co_stacksize must count the depth handlers are entered at (compute it with exception edges) (offset 64)
    # The dataflow passes run as well and see the same entry from their side:
    # RAISED:      error: STORE_FAST 1 is covered by entry 6 to 36 -> 64 [5] lasti, whose depth 5 is above the live stack depth 1 here{{.*}}[handler-depth-exceeds-stack]
    # RAISED:      pyverify: 1 file(s), 1 code object(s): {{[0-9]+}} error(s)
