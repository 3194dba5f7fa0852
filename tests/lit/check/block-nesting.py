# block-nesting: the handler nesting implied by the exception table (which
# handler's entry covers which handler's code) must be a tree in which an
# enclosing block is never deeper than the blocks it encloses. Both inputs
# also upset the stack and context checks; --checks=-*,block-nesting keeps
# this test to the nesting findings.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def nested(x):
    try:
        try:
            x()
        except ValueError:
            pass
    except TypeError:
        pass

# nested: 6..24 inner try body; 30 PUSH_EXC_INFO (inner except); 58 COPY 3
#   (its cleanup); 64 PUSH_EXC_INFO (outer except); 92 COPY 3.
# Table: 6 to 24 -> 30 [0], 30 to 48 -> 58 [1] lasti, 50 to 50 -> 64 [0],
#        56 to 56 -> 58 [1] lasti, 58 to 62 -> 64 [0], 64 to 82 -> 92 [1]
#        lasti, 90 to 90 -> 92 [1] lasti.

def f(cm):
    with cm as x:
        body(x)

# f: 64 PUSH_EXC_INFO (with-handler); 72 COPY 3 (its cleanup).
# Table: 6 to 36 -> 64 [1] lasti, 64 to 70 -> 72 [3] lasti,
#        78 to 78 -> 72 [3] lasti.

if __name__ == "mkcode":
    t = bc.entries(nested.__code__)
    assert str(t[4]) == "58 to 62 -> 64 [0]"

    # The entry covering the inner cleanup (58..62), which leads to the outer
    # except clause, given depth 2: the outer block is now deeper than the
    # inner blocks it encloses.
    # RUN: %mkcode marshal %s %t.deeper --object DEEPER
    # RUN: %not --code 1 %pyverify check --checks=-*,block-nesting %t.deeper | FileCheck %s --check-prefix=DEEPER
    DEEPER = bc.set_entry(nested.__code__, 4, depth=2)
    # DEEPER:      {{.*}}.py:13:13: error: entry for handler 30 (depth 0) is enclosed by the entry for handler 64 with a larger depth 2 [block-nesting]
    # DEEPER-NEXT:   in nested (line 10) at offset 6: PUSH_NULL
    # DEEPER-NEXT: {{.*}}.py:{{[0-9]+}}: error: entry for handler 58 (depth 1) is enclosed by the entry for handler 64 with a larger depth 2 [block-nesting]
    # DEEPER-NEXT:   in nested (line 10) at offset 30 (no line of its own): PUSH_EXC_INFO
    # DEEPER-NEXT: {{.*}}.py:14:9: error: entry for handler 58 (depth 1) is enclosed by the entry for handler 64 with a larger depth 2 [block-nesting]
    # DEEPER-NEXT:   in nested (line 10) at offset 56: RERAISE 0
    # DEEPER-NEXT: pyverify: 1 file(s), 1 code object(s): 3 error(s), 0 warning(s), 0 remark(s)

    # A new entry covering f's cleanup handler (72..77) that leads back to
    # the with-handler at 64, whose own code leads to 72: a cycle.
    # RUN: %mkcode marshal %s %t.cycle --object CYCLE
    # RUN: %not --code 1 %pyverify check --checks=-*,block-nesting %t.cycle | FileCheck %s --check-prefix=CYCLE
    t = bc.entries(f.__code__)
    CYCLE = bc.with_entries(f.__code__,
                            t[:2] + [bc.Entry(72, 78, 64, 1, True)] + t[2:])
    # CYCLE:      {{.*}}.py:26:16: error: the handlers enclosing entry 6 to 36 -> 64 form a cycle (through the entry for handler 64) [block-nesting]
    # CYCLE-NEXT:   in f (line 25) at offset 6: STORE_FAST 1
    # CYCLE-NEXT: {{.*}}.py:26:5: error: the handlers enclosing entry 64 to 70 -> 72 form a cycle (through the entry for handler 64) [block-nesting]
    # CYCLE-NEXT:   in f (line 25) at offset 64: PUSH_EXC_INFO
    # CYCLE-NEXT: {{.*}}.py:{{[0-9]+}}: error: the handlers enclosing entry 72 to 76 -> 64 form a cycle (through the entry for handler 64) [block-nesting]
    # CYCLE-NEXT:   in f (line 25) at offset 72 (no line of its own): COPY 3
    # CYCLE-NEXT: {{.*}}.py:26:5: error: the handlers enclosing entry 78 to 78 -> 72 form a cycle (through the entry for handler 64) [block-nesting]
    # CYCLE-NEXT:   in f (line 25) at offset 78: POP_TOP
    # CYCLE-NEXT: pyverify: 1 file(s), 1 code object(s): 4 error(s), 0 warning(s), 0 remark(s)
