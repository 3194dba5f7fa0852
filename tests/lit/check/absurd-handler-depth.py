# An exception-table entry whose depth is absurd (here 350041571, from a
# fuzzed bundle: the varint codec allows up to 2^32) while the live stack is
# shallow. The stack pass reports it, and the context-balance pass, which
# keeps the whole operand stack per state, refuses the code object with an
# analysis-limit error instead of allocating 350 million slots (it used
# to abort with "out of memory"). The prover calls the same pass.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm, g):
    with cm:
        g()

if __name__ == "mkcode":
    code = f.__code__
    # f: the with body's entry is 0; its handler entry (PUSH_EXC_INFO...) 1.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
    CODE = bc.set_entry(code, 1, depth=350041571)
    # Findings are sorted by offset: the analysis limit is reported at 0.
    # The limit is an error naming the checks it left out: the code object
    # is not verified (before: a warning).
    # CHECK: error: context-balance analysis: the stack reaches depth {{[0-9]+}} (at offset {{[0-9]+}}), above the 65536 slots the context analysis models; not analysed; not run: block-nesting, context-not-exited, {{.*}} [analysis-limit]
    # CHECK: error: {{[0-9]+}} enabled checks did not run on this code object: the stack depths are inconsistent (stack-underflow or stack-depth-conflict), so stack slots cannot be typed; not run: null-stack-value, local-unbound{{.*}} [checks-not-run]
    # CHECK: error: {{.*}} [350041571] lasti{{.*}} [exception-table-depth-exceeds-stacksize]
    # CHECK: error: {{.*}}whose depth 350041571 is above the live stack depth {{[0-9]+}} here{{.*}}[handler-depth-exceeds-stack]
    # CHECK: pyverify: 1 file(s), 1 code object(s):
    #
    # `prove` refutes it as well-formed and never interprets it.
    # RUN: %not --code 1 %pyverify prove %t.bin | FileCheck %s --check-prefix=PROVE
    # PROVE: [original] refuted: well-formed: {{[0-9]+}} dataflow error(s)
