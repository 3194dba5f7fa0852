# Unknown is a verdict of its own, never counted as proved; exit 3 when
# something is unknown and nothing is refuted (docs/prove-cli.md).
#
# toggle(): the contexts held alternate between [] and [with] from one loop
# iteration to the next, so the state at the loop head never repeats; once
# the loop is unrolled --unroll times (and the settle iterations) the path is
# cut, and the vacuity check reports the bound instead of a proof.
# branches(): four independent branches in a with body, 63 paths: proved at
# the default path limit, unknown at --max-paths=20.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %mkcode pyc %s %t/unknown.pyc
# RUN: %not --code 3 %pyverify prove %t/unknown.pyc | FileCheck %s --check-prefix=BOUND
# BOUND:      unknown.pyc: [original] proved
# BOUND:      unknown.pyc: [code:1] unknown: exactly-once: bound: the loop at offset {{[0-9]+}} of original is unrolled 2 time(s) and its context state still changes
# BOUND:      unknown.pyc: [code:2] proved
# BOUND:      pyverify: 1 file(s), 3 result(s): 2 proved, 0 refuted, 1 unknown
#
# A larger unroll bound does not help: the state never repeats.
# RUN: %not --code 3 %pyverify prove --unroll=5 %t/unknown.pyc | FileCheck %s --check-prefix=UNROLL5
# UNROLL5:    [code:1] unknown: exactly-once: bound: {{.*}} unrolled 5 time(s)
#
# RUN: %not --code 3 %pyverify prove --max-paths=20 %t/unknown.pyc | FileCheck %s --check-prefix=PATHS
# PATHS:      [code:2] unknown: exactly-once: path limit (20 paths)
# PATHS:      pyverify: 1 file(s), 3 result(s): 1 proved, 0 refuted, 2 unknown
#
# The JSON keeps the reason, and no counterexample.
# RUN: %not --code 3 %pyverify prove --format=json %t/unknown.pyc | FileCheck %s --check-prefix=JSON
# JSON:       "target": "original"
# JSON:       "counterexample": null
# JSON-NEXT:  "file": "{{.*}}unknown.pyc"
# JSON:       "reason": "bound: the loop at offset {{[0-9]+}} of original is unrolled 2 time(s) and its context state still changes"
# JSON:       "target": "code:1"
# JSON-NEXT:  "verdict": "unknown"
# JSON:       "summary":
# JSON:       "unknown": 1


def toggle(cm, items):
    held = False
    try:
        for x in items:
            if held:
                held = False
                cm.__exit__(None, None, None)
            else:
                cm.__enter__()
                held = True
    finally:
        if held:
            cm.__exit__(None, None, None)


def branches(cm, a, b, c, d, g):
    with cm:
        if a:
            g(1)
        if b:
            g(2)
        if c:
            g(3)
        if d:
            g(4)
