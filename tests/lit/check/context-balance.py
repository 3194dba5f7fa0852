# Context balance: every context entered (BEFORE_WITH, or the explicit
# m.__enter__() pattern rewriters emit) is exited exactly once, in LIFO
# order, on every path. Findings carry a note at the enter and a witness
# path (block entry offsets, "(raises)" where it takes an exception edge).
import os, sys, dis
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm):
    with cm as x:
        body(x)

# f: 2 LOAD_FAST cm; 4 BEFORE_WITH (pushes the bound __exit__, then the
#    __enter__ result); 6 STORE_FAST x; ... 36 POP_TOP;
#    38 LOAD_CONST None x3; 44 PRECALL 2; 48 CALL 2 (__exit__(None, None,
#    None)); 58 POP_TOP; 60 LOAD_CONST None; 62 RETURN_VALUE;
#    64 PUSH_EXC_INFO; 66 WITH_EXCEPT_START; ...
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.

if __name__ == "mkcode":
    code = f.__code__
    assert bc.offsets(code, "CALL") == [26, 48]

    # context-not-exited: the normal-exit call replaced by POP_TOP and NOPs
    # (bytes 38..57): the bound __exit__ is dropped uncalled.
    # RUN: %mkcode marshal %s %t.noexit --object NO_EXIT
    # RUN: %not --code 1 %pyverify check %t.noexit | FileCheck %s --check-prefix=NOEXIT
    NO_EXIT = bc.replace_bytes(code, 38, bc.unit("POP_TOP") + bc.unit("NOP") * 10)
    # NOEXIT:      {{.*}}.py:10:5: error: 38 POP_TOP consumes the bound __exit__ of the context entered at 4 BEFORE_WITH without calling it: the context is never exited [context-not-exited]
    # NOEXIT-NEXT:   in f (line 9) at offset 38: POP_TOP
    # NOEXIT-NEXT: {{.*}}.py:10:5: note: the context is entered here (offset 4)
    # NOEXIT-NEXT: {{.*}}.py:10:5: note: witness path: 4 -> 6 -> 38 (offset 38)
    # NOEXIT-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # with-handler-mismatch: the body's entry without lasti and with depth 2
    # (so the handler is still entered at depth 3). WITH_EXCEPT_START's
    # RERAISE 2 would then read a stale slot as the lasti.
    # RUN: %mkcode marshal %s %t.nolasti --object NO_LASTI
    # RUN: %not --code 1 %pyverify check %t.nolasti | FileCheck %s --check-prefix=NOLASTI
    NO_LASTI = bc.set_entry(code, 0, lasti=False, depth=2)
    # The depth is also above the live stack inside the body.
    # NOLASTI:      error: STORE_FAST 1 is covered by entry 6 to 36 -> 64 [2], whose depth 2 is above the live stack depth 1 here; {{.*}} [handler-depth-exceeds-stack]
    # NOLASTI:      {{.*}}.py:10:16: error: the with body entered at 4 BEFORE_WITH starts at 6 under entry 6 to 36 -> 64 [2], which has depth 2 (the bound __exit__ is slot 0, so the depth must be 1) and no lasti [with-handler-mismatch]
    # NOLASTI-NEXT:   in f (line 9) at offset 6: STORE_FAST 1
    # NOLASTI-NEXT: {{.*}}.py:10:5: note: the context is entered here (offset 4)
    # NOLASTI-NEXT: {{.*}}.py:10:5: note: the entry's handler (offset 64)

def twice(m):
    m.__enter__()
    try:
        body()
    finally:
        m.__exit__(None, None, None)
        m.__exit__(None, None, None)

# context-exited-twice: the explicit pattern with the exit emitted twice
# (twice's source as written; the finally body is copied onto the normal
# path, 72..166, and the exception path, 168..262).
# RUN: %mkcode marshal %s %t.twice --object TWICE
# RUN: %not --code 1 %pyverify check %t.twice | FileCheck %s --check-prefix=TWICE
# TWICE:      {{.*}}.py:55:9: error: 152 CALL 3 calls __exit__ of the context entered at 30 (__enter__ call) (local 'm') a second time [context-exited-twice]
# TWICE-NEXT:   in twice (line 49) at offset 152: CALL 3
# TWICE-NEXT: {{.*}}.py:50:5: note: the context is entered here (offset 30)
# TWICE-NEXT: {{.*}}.py:55:9: note: witness path: 30 -> {{.*}}152 (offset 152)
# TWICE-NEXT: {{.*}}.py:55:9: error: 250 CALL 3 calls __exit__ of the context entered at 30 (__enter__ call) (local 'm') a second time [context-exited-twice]
# TWICE-NEXT:   in twice (line 49) at offset 250: CALL 3
# TWICE:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

def nested(a, b):
    a.__enter__()
    try:
        b.__enter__()
        try:
            body()
        finally:
            b.__exit__(None, None, None)
    finally:
        a.__exit__(None, None, None)

def swap_exits(code):
    """Each `LOAD_FAST a|b; LOAD_METHOD __exit__` loads the other local."""
    ins = list(dis.get_instructions(code))
    for i, j in zip(ins, ins[1:]):
        if (i.opname, j.opname, j.argval) == ("LOAD_FAST", "LOAD_METHOD",
                                               "__exit__"):
            code = bc.patch(code, i.offset, arg=1 - i.arg)
    return code

if __name__ == "mkcode":
    TWICE = twice.__code__

    # context-exit-order: nested() is balanced (no finding); with the two
    # exits' receivers swapped, a is exited while b is still active.
    # RUN: %mkcode marshal %s %t.nested --object NESTED
    # RUN: %pyverify check %t.nested | FileCheck %s --check-prefix=NESTED
    NESTED = nested.__code__
    # NESTED: pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
    # RUN: %mkcode marshal %s %t.order --object ORDER
    # RUN: %not --code 1 %pyverify check %t.order | FileCheck %s --check-prefix=ORDER
    ORDER = swap_exits(nested.__code__)
    # ORDER:      {{.*}}.py:{{[0-9]+}}:{{[0-9]+}}: error: {{[0-9]+}} CALL 3 exits the context entered at 30 (__enter__ call) while the context entered at 72 (__enter__ call), entered after it, is still active: contexts must exit in LIFO order [context-exit-order]
    # ORDER-NEXT:   in nested (line 70) at offset {{[0-9]+}}: CALL 3
    # ORDER-NEXT: {{.*}}.py:71:5: note: the context is entered here (offset 30)
    # On the path where b.__enter__() raised, b is not entered, yet the outer
    # finally now exits b: an error whose certainty is "possible", as it
    # holds on some paths only.
    # ORDER:      error: possibly: {{[0-9]+}} CALL 3 calls __exit__ of the manager in local 'b', which is entered on some paths to here but not on others [context-exit-without-enter]

def maybe(m, c):
    if c:
        m.__enter__()
    try:
        body()
    finally:
        m.__exit__(None, None, None)

# context-exit-without-enter: maybe's source as written -- an exit for a
# context entered only when c is true. A possible problem (it holds on some
# of the merged paths) keeps its check's severity, error, with certainty
# "possible" (text: "possibly: "), so the exit status is 1 (docs/json.md).
if __name__ == "mkcode":
    MAYBE = maybe.__code__
    # RUN: %mkcode marshal %s %t.maybe --object MAYBE
    # RUN: %not --code 1 %pyverify check %t.maybe | FileCheck %s --check-prefix=MAYBE
    # RUN: %not --code 1 %pyverify check --format=json %t.maybe | FileCheck %s --check-prefix=MAYBE-JSON
    # MAYBE:      {{.*}}.py:{{[0-9]+}}:9: error: possibly: {{[0-9]+}} CALL 3 calls __exit__ of the manager in local 'm', which is entered on some paths to here but not on others [context-exit-without-enter]
    # MAYBE-NEXT:   in maybe (line 110) at offset {{[0-9]+}}: CALL 3
    # MAYBE-NEXT: {{.*}}.py:112:9: note: the context is entered here (offset 34)
    # MAYBE:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
    # MAYBE-JSON:      "certainty": "possible",
    # MAYBE-JSON-NEXT: "check": "context-exit-without-enter",
    # MAYBE-JSON:      "message": "{{[0-9]+}} CALL 3 calls __exit__ of the manager in local 'm', which is entered on some paths to here but not on others",
    # MAYBE-JSON:      "severity": "error"
    # MAYBE-JSON:      "possible": 2,
