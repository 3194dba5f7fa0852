# pyverify prove on bundles from python/pyverify_rewriter: the text layout
# (verdict lines, assumptions, the two-column counterexample with its ">>"
# divergence row), the exit statuses, the JSON contract and --jobs.
#
# Run as a script, this file writes the bundles (generate DIR) and checks a
# --format=json output against the contract of docs/prove-cli.md
# (check-json FILE). Break point: the first eligible CALL of nested(), f(1)
# inside cm1.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s generate %t

# The correct rewrite (no torch-function modes): both code objects proved.
# RUN: %pyverify prove %t/correct.pvb | FileCheck %s --check-prefix=CORRECT
# CORRECT:      correct.pvb: [frame] proved
# CORRECT-NEXT:   in {{.+}} (line {{[0-9]+}})
# CORRECT-NEXT:   assuming: [1]{{.*}}
# CORRECT-NEXT:   [1] __exit__ never suppresses{{.*}}
# CORRECT: correct.pvb: [resume:0] proved
# CORRECT-NEXT:   in {{.+}} (line {{[0-9]+}})
# CORRECT-NEXT:   assuming: {{.+}}
# CORRECT: pyverify: 1 file(s), 2 result(s): 2 proved, 0 refuted, 0 unknown

# --no-assume=suppress drops the assumption that __exit__ never suppresses:
# the rewriter-shaped resume function is refuted on the suppress path (its
# new handler reaches the "raise None" sentinel where eager goes on).
# RUN: %not --code 1 %pyverify prove --no-assume=suppress %t/correct.pvb > %t.nosuppress
# RUN: FileCheck %s --check-prefix=NOSUPPRESS < %t.nosuppress
# NOSUPPRESS:     correct.pvb: [frame] proved
# NOSUPPRESS-NOT: never suppresses
# NOSUPPRESS:     correct.pvb: [resume:0] refuted: matches-eager: {{.*}}resume function raises out
# NOSUPPRESS:     WITH_EXCEPT_START [exit ctx#0]
# NOSUPPRESS:     pyverify: 1 file(s), 2 result(s): 1 proved, 1 refuted, 0 unknown

# The frame never exits cm1 when the graph call raises: exactly-once is
# refuted with a counterexample path, exit 1.
# RUN: %not --code 1 %pyverify prove %t/exit-missing-on-exception.pvb | FileCheck %s --check-prefix=MISSING
# MISSING:      exit-missing-on-exception.pvb: [frame] refuted: exactly-once: {{.+}}
# MISSING-NEXT:   in {{.+}} (line {{[0-9]+}})
# MISSING-NEXT:   assuming: {{.+}}
# MISSING:   eager (original{{( from [0-9]+)?}}){{ +}}emitted (frame)
# MISSING:      {{^>> +[0-9]+ [A-Z_]+}}
# MISSING-NEXT:   first divergence: {{.+}}
# MISSING:      exit-missing-on-exception.pvb: [resume:0] proved
# MISSING:      pyverify: 1 file(s), 2 result(s): 1 proved, 1 refuted, 0 unknown

# The resume function leaves a body instruction outside its with-handler.
# RUN: %not --code 1 %pyverify prove %t/uncovered-body-instruction.pvb | FileCheck %s --check-prefix=UNCOVERED
# UNCOVERED:      uncovered-body-instruction.pvb: [resume:0] refuted: exactly-once: {{.+}}
# UNCOVERED:        eager (original{{( from [0-9]+)?}}){{ +}}emitted (resume:0)
# UNCOVERED:      {{^>> +}}
# UNCOVERED-NEXT:   first divergence: {{.+}}

# A dataflow error: well-formed is refuted and the findings are printed,
# indented, as `pyverify check` prints them.
# RUN: %not --code 1 %pyverify prove %t/stacksize-no-exc-edges.pvb | FileCheck %s --check-prefix=WELLFORMED
# WELLFORMED:      stacksize-no-exc-edges.pvb: [frame] refuted: well-formed: {{.+}}
# WELLFORMED:      {{^  .*}}stacksize-no-exc-edges.pvb{{.*}}: error: {{.+}} [{{[a-z-]+}}]
# WELLFORMED-NEXT: {{^    in \[frame\] nested \(line [0-9]+\) at offset [0-9]+}}

# With a torch-function mode, a frame that enters the mode twice holds the
# wrong contexts at the break: matches-eager is refuted.
# RUN: %not --code 1 %pyverify prove %t/modes-entered-twice.pvb | FileCheck %s --check-prefix=TWICE
# TWICE: modes-entered-twice.pvb: [frame] refuted: matches-eager: {{.+}}

# The JSON output: every result has the contract's keys and types.
# RUN: %not --code 1 %pyverify prove --format=json %t > %t.json
# RUN: %python %s check-json %t.json | FileCheck %s --check-prefix=JSON
# JSON: json-contract: ok, 7 bundle(s)

# The output does not depend on --jobs.
# RUN: %not --code 1 %pyverify prove %t > %t.jobs1
# RUN: %not --code 1 %pyverify prove --jobs=4 %t > %t.jobs4
# RUN: diff %t.jobs1 %t.jobs4

import json
import os
import sys


def nested(cm1, cm2, f, g):
    with cm1:
        a = f(1)
        with cm2 as y:
            b = g(a, y)
            f(b)
        g(b)
    return a


BUNDLES = {
    # file name: (variant, modes)
    "correct": ("correct", ()),
    "exit-missing-on-exception": ("exit-missing-on-exception", ()),
    "uncovered-body-instruction": ("uncovered-body-instruction", ()),
    "stacksize-no-exc-edges": ("stacksize-no-exc-edges", ()),
    "modes-entered-twice": ("entered-twice", (0,)),
    "modes-correct": ("correct", (0,)),
    "modes-leaked-on-exception": ("mode-leaked-on-exception", (0,)),
}


def generate(outdir, names=None):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(nested) if b.reason is None)
    for name, (variant, modes) in BUNDLES.items():
        if names is not None and name not in names:
            continue
        rw = pr.rewrite(nested, bp.offset, variant=variant, modes=modes)
        pr.write_bundle(os.path.join(outdir, name + ".pvb"), rw)


STEP = {"code": str, "offset": int, "opname": str, "event": (str, type(None)),
        "line": (int, type(None))}
RESULT = {
    "file": str, "target": str, "code": str, "line": int, "verdict": str, "reason": (str, type(None)),
    "property": (str, type(None)), "counterexample": (dict, type(None)),
    "seconds": (float, int), "rlimit_used": int, "assumptions": list,
    "paths": int, "queries": int, "steps": int, "states": int,
}


def check_json(path):
    with open(path) as f:
        doc = json.load(f)
    assert set(doc) == {"results", "assumptions", "summary"}, sorted(doc)
    # The run's assumptions, once: every result's are among them.
    for r in doc["results"]:
        assert set(r["assumptions"]) <= set(doc["assumptions"]), r
    summary = doc["summary"]
    for key in ("bundles", "proved", "refuted", "unknown"):
        assert isinstance(summary[key], int), key
    counts = {"proved": 0, "refuted": 0, "unknown": 0}
    for r in doc["results"]:
        for key, types in RESULT.items():
            assert isinstance(r[key], types), (key, r[key])
        assert r["verdict"] in counts, r["verdict"]
        counts[r["verdict"]] += 1
        if r["verdict"] == "proved":
            assert r["reason"] is None and r["property"] is None, r
        else:
            assert r["reason"], r
        cex = r["counterexample"]
        if cex is not None:
            assert {"eager", "emitted", "divergence"} <= set(cex), sorted(cex)
            assert isinstance(cex["divergence"], int)
            for step in cex["eager"] + cex["emitted"]:
                for key, types in STEP.items():
                    assert isinstance(step[key], types), (key, step)
                assert step["event"] != ""
    for key, n in counts.items():
        assert summary[key] == n, (key, summary[key], n)
    print("json-contract: ok, %d bundle(s)" % summary["bundles"])


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2], sys.argv[3:] or None)
    elif sys.argv[1] == "check-json":
        check_json(sys.argv[2])
    else:
        sys.exit("usage: rewriter-bundles.py generate DIR [NAME...] | "
                 "check-json FILE")
