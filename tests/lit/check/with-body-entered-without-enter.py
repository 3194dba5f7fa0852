# with-body-entered-without-enter: an edge from outside a with body reaches
# an instruction inside it (its block stack, rebuilt from the exception
# table, holds the with) while that with's context is not entered on the
# edge: a jump that bypasses BEFORE_WITH. The body, its exit call and its
# handler then work on a slot that holds no bound __exit__ of this with.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def body():
    pass

def loop(m, xs):
    for x in xs:
        if x:
            break
    with m:
        body()

# loop: ... 6 FOR_ITER; 8 STORE_FAST x; 10 LOAD_FAST x;
#       12 POP_JUMP_FORWARD_IF_FALSE 2 (to 18); ... 20 LOAD_FAST m;
#       22 BEFORE_WITH; 24 POP_TOP; 26 LOAD_GLOBAL body (the body, depth 1).

def two(a, b):
    with a:
        x = body()
    with b:
        y = body()
    return x, y

# two: 4 BEFORE_WITH (a); ... 34 STORE_FAST x (depth 2); ...
#      84 BEFORE_WITH (b); ... 114 STORE_FAST y (depth 2).

def after(m):
    with m:
        body()
    try:
        body()
    except E:
        pass

# after: 4 BEFORE_WITH; 6 POP_TOP; 8 LOAD_GLOBAL body (depth 1); ...
#        58 JUMP_FORWARD (to 82); ... 82 NOP (the `try:` line, depth 0).

if __name__ == "mkcode":
    code = loop.__code__
    assert bc.instruction_at(code, 12).opname == "POP_JUMP_FORWARD_IF_FALSE"
    assert bc.instruction_at(code, 26).opname == "LOAD_GLOBAL"
    # The loop's `if x` jump (depth 1: the iterator) retargeted to 26, inside
    # the with body (depth 1: the bound __exit__): the depths agree, so this
    # is no stack-depth conflict, but slot 0 holds the iterator.
    # RUN: %mkcode marshal %s %t.loop --object LOOP
    # RUN: %not --code 1 %pyverify check %t.loop | FileCheck %s --check-prefix=LOOP
    LOOP = bc.patch(code, 12, "POP_JUMP_FORWARD_IF_FALSE", (26 - 14) // 2)
    # LOOP:      {{.*}}.py:18:9: error: 26 LOAD_GLOBAL 1 is in the body of the with entered at 22 BEFORE_WITH, but the edge from 12 POP_JUMP_FORWARD_IF_FALSE 6 reaches it without entering that context: stack slot 0 holds no bound __exit__ [with-body-entered-without-enter]
    # LOOP-NEXT:   in loop (line 13) at offset 26: LOAD_GLOBAL 1
    # LOOP-NEXT: {{.*}}.py:15:{{[0-9]+}}: note: the jump into the with body (offset 12)
    # LOOP-NEXT: {{.*}}.py:17:{{[0-9]+}}: note: the with's context is entered only here (offset 22)
    # LOOP-NOT:  [stack-depth-conflict]
    # LOOP:      pyverify: 1 file(s), 1 code object(s): {{[0-9]+}} error(s)

    # The JSON form: an error, definite.
    # RUN: %not --code 1 %pyverify check --format=json --checks=-*,with-body-entered-without-enter %t.loop | %python -m json.tool --sort-keys | FileCheck %s --check-prefix=JSON
    # JSON:      "certainty": "definite",
    # JSON-NEXT: "check": "with-body-entered-without-enter",
    # JSON:      "offset": 26,
    # JSON-NEXT: "severity": "error"

    code = two.__code__
    assert bc.instruction_at(code, 34).opname == "STORE_FAST"
    assert bc.instruction_at(code, 114).opname == "STORE_FAST"
    # From inside a's body into b's: the slot holds a bound __exit__, a's.
    # Two contexts in one slot are one context for the analysis (a resume
    # function's prologue re-enters a with and jumps into the copied body,
    # whose entries may lead to the original's handler), so this is not
    # reported: b's exit code exits a, and both stay balanced.
    # RUN: %mkcode marshal %s %t.two --object TWO
    # RUN: %pyverify check --checks=-*,with-body-entered-without-enter %t.two | FileCheck %s --check-prefix=TWO
    TWO = bc.patch(code, 34, "JUMP_FORWARD", (114 - 36) // 2)
    # TWO: pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)

    code = after.__code__
    assert bc.instruction_at(code, 82).opname == "NOP"
    assert bc.instruction_at(code, 8).opname == "LOAD_GLOBAL"
    # The `try:` NOP after the with becomes a jump back to 8, in the body:
    # depth 0 on the jump, 1 in the body, so the paths meet at 8 at
    # different depths (stack-depth-conflict) and the analysis goes on along
    # one of them. The NOP's block is judged by that representative, so the
    # finding is an error with certainty "possible".
    # RUN: %mkcode marshal %s %t.after --object AFTER
    # RUN: %not --code 1 %pyverify check --checks=-*,with-body-entered-without-enter %t.after | FileCheck %s --check-prefix=AFTER
    # RUN: %not --code 1 %pyverify check --format=sarif --checks=-*,with-body-entered-without-enter %t.after | %python -m json.tool --sort-keys | FileCheck %s --check-prefix=SARIF
    AFTER = bc.patch(code, 82, "JUMP_BACKWARD", (84 - 8) // 2)
    # AFTER:      error: possibly: 8 LOAD_GLOBAL 1 is in the body of the with entered at 4 BEFORE_WITH, but the edge from 82 JUMP_BACKWARD 38 reaches it without entering that context: the stack holds 0 value(s), so there is no bound __exit__ in slot 0 [with-body-entered-without-enter]
    # AFTER:      pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)
    # SARIF:      "level": "error",
    # SARIF:      "text": "possibly: 8 LOAD_GLOBAL 1 is in the body
    # SARIF:      "properties": {
    # SARIF-NEXT:     "certainty": "possible"
    # SARIF-NEXT: },
    # SARIF:      "ruleId": "with-body-entered-without-enter",

    # The unmutated module and its functions are clean.
    # RUN: %mkcode pyc %s %t.pyc
    # RUN: %pyverify check %t.pyc | FileCheck %s --check-prefix=CLEAN
    # CLEAN: pyverify: 1 file(s), 5 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
