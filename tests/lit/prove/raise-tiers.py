# The raise tiers (docs/prove.md, "Raise tiers"): exactly-once explores an
# exception at every with-body instruction, not only where an instruction
# raises by itself -- a trace function's (line and opcode events) and the
# eval breaker's at back edges. Before, the prover explored only the first
# tier: HOLE and LOOP below were proved, yet a trace function raising at the
# uncovered STORE_FAST, or a signal at the back edge, leaves the context
# entered (tests/versions/check_raise_tiers.py, check_back_edge.py measure
# both on the interpreters). CPython's own code stays proved: its exit
# sequences, NOPs and handler starts are outside the with's entry by design,
# and a raise there leaves that context entered in CPython too.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm, a):
    with cm:
        y = 1
        z = y + a
    return z

def nested(cm1, cm2, x):
    with cm1:
        with cm2:
            return x

def spin(cm):
    with cm:
        while True:
            n = 1

if __name__ == "mkcode":
    table = bc.entries(f.__code__)
    assert str(table[0]) == "6 to 20 -> 46 [1] lasti", table[0]
    # RUN: %mkcode marshal %s %t.hole.bin --object HOLE
    # RUN: %not --code 1 %pyverify prove %t.hole.bin | FileCheck %s --check-prefix=HOLE
    HOLE = bc.with_entries(f.__code__, [bc.Entry(6, 8, 46, 1, True),
                                        bc.Entry(12, 22, 46, 1, True)]
                           + table[1:])
    # HOLE: hole.bin: [original] refuted: exactly-once: original raises out with ctx#0 still active: never exited on this path
    # HOLE: ] an exception can be raised in a with body not only by the instructions that raise by themselves: at every instruction by a trace function (line and opcode events), and at back edges by the eval breaker (signals, asynchronous exceptions)
    # HOLE: 4 BEFORE_WITH [enter ctx#0]
    # HOLE: >> {{ *}}10 STORE_FAST [raises (a trace function or the eval breaker); raises out of original]
    #
    # Narrowed: no trace function raises. Proved, with the finding of
    # `check` discharged under that printed assumption.
    # RUN: %pyverify prove --no-assume=tracing %t.hole.bin | FileCheck %s --check-prefix=NOTRACE
    # NOTRACE: hole.bin: [original] proved
    # NOTRACE: no trace function raises (--no-assume=tracing)
    # NOTRACE: definite finding of check discharged: offset 8: {{.*}}[with-body-uncovered]
    #
    # RUN: %mkcode marshal %s %t.nested.bin --object NESTED
    # RUN: %pyverify prove %t.nested.bin | FileCheck %s --check-prefix=NESTED
    NESTED = nested.__code__
    # NESTED: nested.bin: [original] proved
    #
    # The with's entry starts at the loop head: the back edge's eval-breaker
    # exception, looked up at the target - 1 (3.11), finds no handler. Only
    # that tier (no trace function: the instructions before the head are
    # uncovered too), then none.
    # RUN: %mkcode marshal %s %t.loop.bin --object LOOP
    # RUN: %not --code 1 %pyverify prove --no-assume=tracing %t.loop.bin | FileCheck %s --check-prefix=LOOP
    # RUN: %pyverify prove --no-assume=tracing,eval-breaker %t.loop.bin | FileCheck %s --check-prefix=NOBREAK
    import dis
    co = spin.__code__
    k = next(i for i, e in enumerate(bc.entries(co)) if e.depth == 1)
    head = next(i.argval for i in dis.get_instructions(co)
                if "BACKWARD" in i.opname)
    LOOP = bc.set_entry(co, k, start=head)
    # LOOP: loop.bin: [original] refuted: exactly-once: original raises out with ctx#0 still active
    # LOOP: >> {{ *}}{{[0-9]+}} JUMP_BACKWARD [raises (a trace function or the eval breaker; looked up at {{[0-9]+}}); raises out of original]
    # NOBREAK: loop.bin: [original] proved
    # NOBREAK: no signal handler or asynchronous exception raises at a back edge (--no-assume=eval-breaker)
