# stack-underflow is checked against what each instruction really pops and
# reads (getStackIO), at that instruction -- not from net stack effects,
# which hide a pop below the stack when the net effect is not negative.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def call(g):
    return g()

# call: 0 RESUME; 2 PUSH_NULL; 4 LOAD_FAST g; 6 PRECALL 0; 10 CALL 0;
#       20 RETURN_VALUE.

def enter(cm):
    with cm:
        pass

# enter: 0 RESUME; 2 LOAD_FAST cm; 4 BEFORE_WITH; 6 POP_TOP ...

def push_between(g):
    return g(1)

# push_between: 0 RESUME; 2 PUSH_NULL; 4 LOAD_FAST g; 6 LOAD_CONST 1;
#               8 PRECALL 1; 12 CALL 1; 22 RETURN_VALUE.

if __name__ == "mkcode":
    assert bc.offsets(call.__code__, "PUSH_NULL") == [2]
    assert bc.offsets(call.__code__, "CALL") == [10]
    assert bc.offsets(enter.__code__, "BEFORE_WITH") == [4]
    assert bc.offsets(push_between.__code__, "CALL") == [12]

    # PUSH_NULL becomes a NOP: the net effects (PRECALL -0, CALL -1) leave
    # the stack at 0 before RETURN_VALUE, which used to take the blame. PRECALL
    # reads the method-or-NULL slot (PEEK(2)) and CALL pops NULL + callable
    # from a stack of one: both named, nothing after them.
    # RUN: %mkcode marshal %s %t.call --object CALL
    # RUN: %not --code 1 %pyverify check %t.call | FileCheck %s --check-prefix=CALL
    CALL = bc.patch(call.__code__, 2, "NOP", 0)
    # CALL:      error: PRECALL 0 reads the stack 2 value(s) deep (PEEK(2)) but only 1 are on the stack [stack-underflow]
    # CALL-NEXT:   in call (line 8) at offset 6: PRECALL 0
    # CALL:      error: CALL 0 needs 2 stack value(s) but only 1 are on the stack [stack-underflow]
    # CALL-NEXT:   in call (line 8) at offset 10: CALL 0
    # CALL-NOT:  RETURN_VALUE
    # CALL:      pyverify: 1 file(s), 1 code object(s): 3 error(s), 0 warning(s), 0 remark(s)

    # LOAD_FAST cm becomes a NOP: BEFORE_WITH (net +1) pops the manager from
    # an empty stack.
    # RUN: %mkcode marshal %s %t.with --object WITH
    # RUN: %not --code 1 %pyverify check --checks=-*,stack-underflow %t.with | FileCheck %s --check-prefix=WITH
    WITH = bc.patch(enter.__code__, 2, "NOP", 0)
    # WITH:      error: BEFORE_WITH needs 1 stack value(s) but only 0 are on the stack [stack-underflow]
    # WITH-NEXT:   in enter (line 14) at offset 4: BEFORE_WITH
    # WITH:      pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # PUSH_NULL becomes a NOP with a push (the argument) in between: the net
    # depth never goes negative, so net effects report nothing at all.
    # RUN: %mkcode marshal %s %t.between --object BETWEEN
    # RUN: %not --code 1 %pyverify check --checks=-*,stack-underflow %t.between | FileCheck %s --check-prefix=BETWEEN
    BETWEEN = bc.patch(push_between.__code__, 2, "NOP", 0)
    # BETWEEN:      error: PRECALL 1 reads the stack 3 value(s) deep (PEEK(3)) but only 2 are on the stack [stack-underflow]
    # BETWEEN:      error: CALL 1 needs 3 stack value(s) but only 2 are on the stack [stack-underflow]
    # BETWEEN-NEXT:   in push_between (line 20) at offset 12: CALL 1
    # BETWEEN:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
