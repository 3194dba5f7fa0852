# The prover's complexity budget (docs/prove-cli.md): instructions executed
# (--max-steps) and paths held for exploration (--max-states), counted, never
# timed. Exceeding one ends the result in unknown, naming the budget and its
# value; the other results are still proved and printed.
#
# f(): the cleanup of the with handler (COPY 3; POP_EXCEPT; RERAISE 1) gets
# an exception-table entry that sends its RERAISE back to its own COPY 3.
# CPython 3.11 runs it forever once g() raises (measured: killed by timeout),
# and `check` finds nothing wrong with it. The prover used to follow that
# path without end, until it ran out of memory (abort, nothing printed).
# RUN: rm -rf %t && mkdir -p %t
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm, g):
    with cm:
        g()

def branches(cm, a, b, c, g):
    with cm:
        if a:
            g(1)
        if b:
            g(2)
        if c:
            g(3)

if __name__ == "mkcode":
    code = f.__code__
    table = bc.entries(code)
    reraise = bc.offset_of(code, "RERAISE", -1)
    table.append(bc.Entry(reraise, reraise + 2, bc.offset_of(code, "COPY", -1),
                          3, True))
    CODE = bc.with_entries(code, sorted(table, key=lambda e: e.start))
    # FORK, a second patch: the cycle goes through the handler's __exit__ call
    # and its branch (WITH_EXCEPT_START .. RERAISE 2 covered by an entry back to
    # PUSH_EXC_INFO), so every turn leaves a path to explore: the held paths
    # hit their budget first (20,000 by default; about 4 KB each).
    table = bc.entries(code)
    push = bc.offset_of(code, "PUSH_EXC_INFO")
    wes = bc.offset_of(code, "WITH_EXCEPT_START")
    copy = bc.offset_of(code, "COPY")
    table[1:2] = [bc.Entry(push, wes, copy, 3, True),
                  bc.Entry(wes, copy, push, 1, True)]
    FORK = bc.with_entries(code, table)
    # RUN: %mkcode marshal %s %t/fork.bin --object FORK
    # RUN: %not --code 3 timeout 60 %pyverify prove %t/fork.bin | FileCheck %s --check-prefix=FORK
    # FORK:       fork.bin: [original] unknown: exactly-once: budget: over --max-states=20000 (paths held for exploration): not every path was explored
    # RUN: %mkcode marshal %s %t/cycle.bin
    # RUN: %not --code 3 timeout 60 %pyverify prove %t/cycle.bin | FileCheck %s --check-prefix=CYCLE
    # CYCLE:      cycle.bin: [original] unknown: exactly-once: budget: over --max-steps=1000000 (instructions executed): not every path was explored
    # CYCLE:      pyverify: 1 file(s), 1 result(s): 0 proved, 0 refuted, 1 unknown
    #
    # RUN: %not --code 3 timeout 60 %pyverify prove --max-steps=5000 --format=json %t/cycle.bin | FileCheck %s --check-prefix=CYCLE-JSON
    # CYCLE-JSON: "reason": "budget: over --max-steps=5000 (instructions executed): not every path was explored"
    # CYCLE-JSON: "steps": 5001
    # CYCLE-JSON: "verdict": "unknown"
    #
    # RUN: %not --code 3 %pyverify prove --max-steps=5000 --format=sarif %t/cycle.bin | FileCheck %s --check-prefix=CYCLE-SARIF
    # CYCLE-SARIF: "text": "budget: over --max-steps=5000 (instructions executed): not every path was explored"
    # CYCLE-SARIF: "ruleId": "unknown"
    #
    # The held paths: the explorer holds the paths still to explore (each
    # may-raise instruction's raising one, each branch's other outcome, each
    # raise of a trace function in the with body); branches() needs 16 at a
    # time and 417 steps: proved with the default budget, unknown with 15
    # held paths or 416 steps (12 and 264 before the raise tiers).
    # RUN: %mkcode pyc %s %t/budget.pyc
    # RUN: %pyverify prove --format=json %t/budget.pyc | FileCheck %s --check-prefix=STATES-OK
    # STATES-OK:  "states": 16
    # STATES-OK-NEXT: "steps": 417
    # STATES-OK-NEXT: "target": "code:2"
    # STATES-OK-NEXT: "verdict": "proved"
    # RUN: %not --code 3 %pyverify prove --max-states=15 %t/budget.pyc | FileCheck %s --check-prefix=STATES
    # STATES:     budget.pyc: [code:1] proved
    # STATES:     budget.pyc: [code:2] unknown: exactly-once: budget: over --max-states=15 (paths held for exploration): not every path was explored
    # RUN: %not --code 3 %pyverify prove --max-steps=416 %t/budget.pyc | FileCheck %s --check-prefix=STEPS
    # STEPS:      budget.pyc: [code:2] unknown: exactly-once: budget: over --max-steps=416 (instructions executed): not every path was explored
    #
    # The fuzzer's bundle (tests/fuzz/regressions/fuzz_bundle): its resume
    # function's last with cleanup re-raises into itself the same way (it
    # took 184 s and 24 GB, then aborted out of memory, printing nothing).
    # The frame is refuted as well-formed; the resume function is unknown.
    # RUN: %not --code 1 timeout 60 %pyverify prove %S/../../fuzz/regressions/fuzz_bundle/handler-cycle-slow-prove.pvb | FileCheck %s --check-prefix=FUZZ
    # FUZZ:       handler-cycle-slow-prove.pvb: [frame] refuted: well-formed:
    # FUZZ:       handler-cycle-slow-prove.pvb: [resume:0] unknown: exactly-once: budget: over --max-steps=1000000 (instructions executed): not every path was explored
    # FUZZ:       pyverify: 1 file(s), 2 result(s): 0 proved, 1 refuted, 1 unknown
    # RUN: %not --code 1 timeout 60 %pyverify prove --format=json %S/../../fuzz/regressions/fuzz_bundle/handler-cycle-slow-prove.pvb | FileCheck %s --check-prefix=FUZZ-JSON
    # FUZZ-JSON:  "target": "frame"
    # FUZZ-JSON:  "reason": "budget: over --max-steps=1000000 (instructions executed): not every path was explored"
    # FUZZ-JSON:  "target": "resume:0"
    # FUZZ-JSON-NEXT: "verdict": "unknown"
